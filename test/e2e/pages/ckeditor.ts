import { Bold, ClassicEditor, Essentials, Italic, Link, Paragraph, type ModelElement, type ModelText } from 'ckeditor5';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

const editor = await ClassicEditor.create(document.querySelector<HTMLElement>('#editor')!, {
  licenseKey: 'GPL',
  plugins: [Essentials, Paragraph, Bold, Italic, Link],
  initialData: formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`,
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
