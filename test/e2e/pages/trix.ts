import 'trix';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// Trix (Basecamp): its own document model under <trix-editor>; the DOM is a rendering of it.
// `?formatted`: FORMATTED_HTML through Trix's loadHTML, its paragraphs as Trix's blocks (`<div>`).
const element = document.querySelector('trix-editor') as HTMLElement & { editor: { loadHTML(html: string): void; getDocument(): { toString(): string } } };
element.addEventListener('trix-initialize', () => {
  element.editor.loadHTML(
    formattedPage() ? FORMATTED_HTML.replace(/<(\/?)p>/g, '<$1div>') : `<div>${PAGE_TEXT}</div><div>A second paragraph, written by me on a Tuesday.</div>`,
  );
  // The model's own text, without Trix's closing newline.
  Object.assign(window, { editorText: () => element.editor.getDocument().toString().replace(/\n$/, '') });
});
