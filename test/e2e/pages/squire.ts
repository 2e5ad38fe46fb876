import DOMPurify from 'dompurify';
import Squire from 'squire-rte';
import { htmlText } from './html-text.ts';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// Squire (Fastmail's mail composer): keeps its own undo stack, fed from the editor's input.
// Squire sanitises HTML with DOMPurify, which it expects as a global.
// `?formatted`: FORMATTED_HTML through setHTML, its paragraphs as Squire's blocks (`<div>`).
Object.assign(window, { DOMPurify });
const editor = new Squire(document.querySelector<HTMLElement>('#editor')!);
editor.setHTML(formattedPage() ? FORMATTED_HTML.replace(/<(\/?)p>/g, '<$1div>') : `<div>${PAGE_TEXT}</div><div>A second paragraph, written by me on a Tuesday.</div>`);
Object.assign(window, { editorText: () => htmlText(editor.getHTML()).replace(/\n$/, ''), editorHtml: () => editor.getHTML() });
