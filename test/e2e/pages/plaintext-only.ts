import { PAGE_TEXT } from './text.ts';

// A bare `contenteditable="plaintext-only"` (comment boxes, chat inputs): the browser's own edits
// insert no formatting and write a line break as a "\n" in the text. Its text is the page's value.
const editor = document.querySelector<HTMLElement>('#editor')!;
editor.textContent = `${PAGE_TEXT}\nA second paragraph, written by me on a Tuesday.`;
Object.assign(window, { editorText: () => editor.innerText });
