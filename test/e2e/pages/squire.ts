import DOMPurify from 'dompurify';
import Squire from 'squire-rte';
import { htmlText } from './html-text.ts';
import { PAGE_TEXT } from './text.ts';

// Squire (Fastmail's mail composer): keeps its own undo stack, fed from the editor's input.
// Squire sanitises HTML with DOMPurify, which it expects as a global.
Object.assign(window, { DOMPurify });
const editor = new Squire(document.querySelector<HTMLElement>('#editor')!);
editor.setHTML(`<div>${PAGE_TEXT}</div><div>A second paragraph, written by me on a Tuesday.</div>`);
Object.assign(window, { editorText: () => htmlText(editor.getHTML()).replace(/\n$/, '') });
