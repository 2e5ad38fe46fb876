import { init } from 'pell';
import { htmlText } from './html-text.ts';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// Pell: a contenteditable (`.pell-content`) and a toolbar over `execCommand`. It keeps no model:
// a page learns the value only from `onChange(html)`, which pell calls on the editable's `input`,
// so the page's value here is the last HTML onChange gave (what a page saves), not the DOM's.
// onChange calls are counted in `editorChanges()`. Undo is the browser's own.
let changes = 0;
const initial = formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;
let saved = initial;
const editor = init({
  element: document.querySelector<HTMLElement>('#editor')!,
  defaultParagraphSeparator: 'p',
  actions: ['bold', 'italic', 'link'],
  onChange: (html: string) => {
    saved = html;
    changes++;
  },
});
editor.content.innerHTML = initial;
Object.assign(window, { editorText: () => htmlText(saved).replace(/\n$/, ''), editorHtml: () => saved, editorChanges: () => changes });
