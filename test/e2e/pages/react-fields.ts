import { createElement, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { PAGE_TEXT } from './text.ts';

// Form fields as React apps write them: controlled components, whose value is React state set
// from `onChange`. A value written to the element without the input event React listens for
// is not in the state, and the next render (here a clock re-renders every 200 ms) writes the
// state's old value back over it.
const TEXT = `${PAGE_TEXT}\nA second paragraph, written by me on a Tuesday.`;
let state = { draft: TEXT, title: 'Moreover, it is important to note that this title matters.' };

function App() {
  const [draft, setDraft] = useState(state.draft);
  const [title, setTitle] = useState(state.title);
  const [, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((tick) => tick + 1), 200);
    return () => clearInterval(timer);
  }, []);
  state = { draft, title };
  return createElement(
    'form',
    null,
    createElement('input', { id: 'title', type: 'text', size: 70, value: title, onChange: (event: { target: HTMLInputElement }) => setTitle(event.target.value) }),
    createElement('textarea', {
      id: 'field',
      rows: 8,
      cols: 70,
      style: { font: '16px/1.5 serif', padding: '8px', display: 'block', marginTop: '12px' },
      value: draft,
      onChange: (event: { target: HTMLTextAreaElement }) => setDraft(event.target.value),
    }),
  );
}

createRoot(document.querySelector('#app')!).render(createElement(App));
Object.assign(window, {
  editorText: () => state.draft,
  titleText: () => state.title,
});
