import Quill from 'quill';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// Quill 2 mounted inside an open shadow root (a web component's editor, as design systems wrap
// it); its snow styles are the shadow root's own. The page's value is Quill's own model.
const host = document.querySelector('#host')!;
const shadow = host.attachShadow({ mode: 'open' });
shadow.innerHTML = '<link rel="stylesheet" href="./quill.snow.css"><div id="editor"></div>';
const quill = new Quill(shadow.querySelector<HTMLElement>('#editor')!, {});
if (formattedPage()) quill.clipboard.dangerouslyPasteHTML(FORMATTED_HTML);
else quill.setText(`${PAGE_TEXT}\nA second paragraph, written by me on a Tuesday.\n`);
(quill.getModule('history') as { clear(): void }).clear();
let changes = 0;
quill.on('text-change', () => changes++);
Object.assign(window, { editorText: () => quill.getText().replace(/\n$/, ''), editorChanges: () => changes, editorHtml: () => quill.getSemanticHTML() });
