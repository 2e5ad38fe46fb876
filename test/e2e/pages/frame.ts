import { PAGE_TEXT } from './text.ts';

const editor = document.querySelector<HTMLElement>('#editor')!;
editor.innerHTML = `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;
