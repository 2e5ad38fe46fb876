import { PAGE_TEXT } from './text.ts';

const field = document.querySelector<HTMLTextAreaElement>('#field')!;
field.value = `${PAGE_TEXT}\n\nA second paragraph, written by me on a Tuesday.`;
document.querySelector<HTMLTextAreaElement>('#inner')!.value = PAGE_TEXT;
const editor = document.querySelector<HTMLElement>('#editor')!;
editor.innerHTML = `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;
Object.assign(window, { editorText: () => editor.innerText });
