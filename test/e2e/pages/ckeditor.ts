import { ClassicEditor, Essentials, Paragraph, type ModelElement, type ModelText } from 'ckeditor5';
import { PAGE_TEXT } from './text.ts';

const editor = await ClassicEditor.create(document.querySelector<HTMLElement>('#editor')!, {
  licenseKey: 'GPL',
  plugins: [Essentials, Paragraph],
  initialData: `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`,
});
Object.assign(window, {
  // The document as CKEditor's model holds it, one line per paragraph.
  editorText: () =>
    [...editor.model.document.getRoot()!.getChildren()]
      .map((paragraph) => [...(paragraph as ModelElement).getChildren()].map((node) => (node as ModelText).data ?? '').join(''))
      .join('\n'),
  refuseEdits: () => editor.enableReadOnlyMode('e2e'),
  allowEdits: () => editor.disableReadOnlyMode('e2e'),
});
