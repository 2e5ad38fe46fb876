import { createSignal } from 'solid-js';
import { render } from 'solid-js/web';
import html from 'solid-js/html';
import { PAGE_TEXT } from './text.ts';

// A SolidJS 1.9 textarea controlled by a signal, written with solid-js/html's tagged templates
// (no compiler): the signal is the element's `value`, which Solid's effect writes into the DOM
// property whenever it changes, and `onInput` (Solid's delegated handler) sets it. A clock signal
// re-renders an attribute every 200 ms. The page's value is the signal.
const [draft, setDraft] = createSignal(`${PAGE_TEXT}\nA second paragraph, written by me on a Tuesday.`);
const [tick, setTick] = createSignal(0);
setInterval(() => setTick((value) => value + 1), 200);

render(
  () => html`<form onSubmit=${(event: Event) => event.preventDefault()}>
    <textarea id="field" rows="8" cols="70" style="font: 16px/1.5 serif; padding: 8px; display: block;"
      data-tick=${tick} value=${draft} onInput=${(event: Event) => setDraft((event.currentTarget as HTMLTextAreaElement).value)}></textarea>
  </form>`,
  document.querySelector('#app')!,
);
Object.assign(window, { editorText: () => draft() });
