import $ from 'jquery';
import Simditor from 'simditor';
import { htmlText } from './html-text.ts';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// Simditor 2 (Tower's editor; jQuery): a contenteditable (`.simditor-body`) over the page's
// textarea, which `getValue()` syncs (what a form posts). Its own undo history (Ctrl+Z and
// Ctrl+Shift+Z are its, not the browser's), a state kept at most every 2 s after its
// `valuechanged`, which it fires (throttled) on the editable's `input`; `valuechanged` is counted
// in `editorChanges()`.
// jQuery as a global, as pages that load Simditor have it.
Object.assign(window, { jQuery: $, $ });
const textarea = document.querySelector<HTMLTextAreaElement>('#editor')!;
textarea.value = formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;
const editor = new (Simditor as unknown as new (options: object) => { getValue(): string; on(event: string, handler: () => void): void })({
  textarea: $(textarea),
  toolbar: ['bold', 'italic', 'link'],
  pasteImage: false,
});
let changes = 0;
editor.on('valuechanged', () => void changes++);
// Its first `valuechanged` is its own (the value set at start).
setTimeout(() => {
  changes = 0;
  Object.assign(window, { editorText: () => htmlText(editor.getValue()).replace(/\n$/, ''), editorHtml: () => editor.getValue(), editorChanges: () => changes });
}, 500);
