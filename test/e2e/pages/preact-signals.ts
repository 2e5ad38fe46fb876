import { h, render } from 'preact';
import { signal } from '@preact/signals';
import { PAGE_TEXT } from './text.ts';

// A Preact textarea controlled by a signal (@preact/signals): the signal is passed as the
// element's `value`, which the signals integration writes straight into the DOM property on each
// change without a render, and `onInput` sets the signal. A clock (another signal read in the
// render) re-renders the form every 200 ms, and each render writes the value back too.
const draft = signal(`${PAGE_TEXT}\nA second paragraph, written by me on a Tuesday.`);
const tick = signal(0);
setInterval(() => tick.value++, 200);

function Form() {
  return h(
    'form',
    { onSubmit: (event: Event) => event.preventDefault() },
    h('textarea', {
      id: 'field',
      rows: 8,
      cols: 70,
      style: { font: '16px/1.5 serif', padding: '8px', display: 'block' },
      'data-tick': tick.value,
      value: draft,
      onInput: (event: Event) => (draft.value = (event.currentTarget as HTMLTextAreaElement).value),
    }),
  );
}

render(h(Form, null), document.querySelector('#app')!);
Object.assign(window, { editorText: () => draft.value });
