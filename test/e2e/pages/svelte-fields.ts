import { mount } from 'svelte';
import SvelteField from './svelte-field.svelte';
import { PAGE_TEXT } from './text.ts';

// A Svelte 5 `bind:value` textarea (svelte-field.svelte, compiled by Svelte's own compiler when
// the pages are built): the page's value is the component's `$state`, reported on each change.
let draft = '';
mount(SvelteField, {
  target: document.querySelector('#app')!,
  props: { initial: `${PAGE_TEXT}\nA second paragraph, written by me on a Tuesday.`, onchange: (value: string) => (draft = value) },
});
Object.assign(window, { editorText: () => draft });
