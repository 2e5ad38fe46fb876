import Quill from 'quill1';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// Quill 1: still on many sites. Unlike Quill 2 it has no `beforeinput` handler of its own; it
// takes edits from the DOM through a MutationObserver.
const quill = new Quill('#editor', {});
if (formattedPage()) quill.clipboard.dangerouslyPasteHTML(FORMATTED_HTML);
else quill.setText(`${PAGE_TEXT}\nA second paragraph, written by me on a Tuesday.\n`);
(quill.getModule('history') as { clear(): void }).clear();
Object.assign(window, { editorText: () => quill.getText() });
