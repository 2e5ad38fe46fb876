import { htmlText } from './html-text.ts';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// wysihtml 0.5 (Voog's fork of XING's wysihtml5; loaded as its own scripts, as pages did, with its
// "advanced and extended" parser rules), made on a textarea: its composer is the body of an iframe
// it writes itself, and the textarea (what a form posts, `editor.getValue()` is its source) is
// copied from it every 400 ms and on submit. It keeps an undo history of its own (Ctrl+Z and
// Ctrl+Y are its, not the browser's), with a step at each new word (the writer's Space or Enter),
// Backspace, command and paste. Its `change` event fires on blur when the text changed since focus.
interface Wysihtml {
  getValue(parse?: boolean, clearInternals?: boolean): string;
  setValue(html: string, parse?: boolean): void;
  on(event: string, handler: () => void): Wysihtml;
}
declare const wysihtml5: { Editor: new (element: HTMLElement, options: object) => Wysihtml };
declare const wysihtml5ParserRules: object;

const textarea = document.querySelector<HTMLTextAreaElement>('#editor')!;
textarea.value = formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;
const editor = new wysihtml5.Editor(textarea, { parserRules: wysihtml5ParserRules, stylesheets: [] });
let changes = 0;
editor.on('change', () => void changes++);
editor.on('load', () =>
  Object.assign(window, {
    // The textarea's value, as the form would post it now.
    editorText: () => htmlText(textarea.value).replace(/\n$/, ''),
    editorHtml: () => textarea.value,
    editorChanges: () => changes,
    wysihtml: editor,
  }),
);
