import { PAGE_TEXT } from './text.ts';

/** Light text on a dark background, as a site's dark theme has it. */
document.body.style.background = '#121212';
document.body.style.color = '#e6e6e6';
document.querySelector<HTMLElement>('#editor')!.innerHTML = `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;
