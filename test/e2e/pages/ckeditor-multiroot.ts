import { Bold, Essentials, Italic, Link, MultiRootEditor, Paragraph, type ModelElement, type ModelText } from 'ckeditor5';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// CKEditor 5's multi-root editor (a CMS's title and body as two editables of one editor: one
// model, one undo stack). The page's value is the body root's text in CKEditor's model.
const editor = await MultiRootEditor.create(
  { title: document.querySelector<HTMLElement>('#title')!, body: document.querySelector<HTMLElement>('#body')! },
  {
    licenseKey: 'GPL',
    plugins: [Essentials, Paragraph, Bold, Italic, Link],
    initialData: {
      title: '<p>A title, written by me.</p>',
      body: formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`,
    },
  },
);
const rootText = (name: string) =>
  [...editor.model.document.getRoot(name)!.getChildren()]
    .map((paragraph) => [...(paragraph as ModelElement).getChildren()].map((node) => (node as ModelText).data ?? '').join(''))
    .join('\n');
Object.assign(window, {
  editorText: () => rootText('body'),
  titleText: () => rootText('title'),
  editorHtml: () => editor.getData({ rootName: 'body' }),
});
