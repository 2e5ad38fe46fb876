import { mount } from 'svelte';
import SvelteRich from './svelte-rich.svelte';
import { PAGE_TEXT } from './text.ts';
import { htmlText } from './html-text.ts';

// A Svelte 5 contenteditable bound with `bind:innerHTML` (svelte-rich.svelte, compiled by Svelte's
// own compiler when the pages are built): the page's value is the component's `$state`.
let html = '';
mount(SvelteRich, {
  target: document.querySelector('#app')!,
  props: { initial: `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`, onchange: (value: string) => (html = value) },
});
Object.assign(window, { editorText: () => htmlText(html), editorHtml: () => html });
