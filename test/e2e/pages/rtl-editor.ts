import { RTL_TEXT } from './rtl.ts';

// A right-to-left contenteditable (`dir="rtl"`), one paragraph a line of RTL_TEXT.
const editor = document.querySelector<HTMLElement>('#editor')!;
editor.innerHTML = RTL_TEXT.split('\n').map((line) => `<p>${line}</p>`).join('');
Object.assign(window, { editorText: () => editor.innerText.replace(/\n+/g, '\n').trim() });
