import { createElement, createRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import ReactQuill from 'react-quill-new';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// react-quill-new (the maintained React wrapper of Quill 2) as apps use it: a controlled
// component, its `value` (HTML) React state set from `onChange`. What the app saves is that
// state: an edit Quill took but the state missed, or that a re-render from the state wrote
// over, is lost. A clock re-renders every 200 ms, as apps' other state does.
let html = formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;
const quill = createRef<ReactQuill>();

/** The app makes the editor read-only (a locked document) and editable again, through its props. */
let setLocked: (locked: boolean) => void = () => {};
function App() {
  const [value, setValue] = useState(html);
  const [locked, lock] = useState(false);
  setLocked = lock;
  const [, setTick] = useState(0);
  useState(() => setInterval(() => setTick((tick) => tick + 1), 200));
  html = value;
  return createElement(ReactQuill, {
    theme: 'snow',
    value,
    onChange: (next: string) => setValue(next),
    readOnly: locked,
    ref: quill,
  });
}

createRoot(document.querySelector('#app')!).render(createElement(App));
// The document loaded is where the writer's undo history starts, as apps that open a saved
// document make it: without this, Quill's history holds the load, and one Ctrl+Z too many
// empties the editor.
const clearHistoryOnceLoaded = () => {
  const editor = quill.current?.getEditor();
  if (!editor || editor.getText().trim() === '') return void setTimeout(clearHistoryOnceLoaded, 50);
  editor.history.clear();
  Object.assign(window, { historyCleared: true });
};
clearHistoryOnceLoaded();

/** The state's HTML as text, one line per paragraph, as Quill's `getText()` writes it. */
function stateText(): string {
  const body = new DOMParser().parseFromString(html, 'text/html').body;
  return [...body.children].map((block) => `${block.textContent}\n`).join('');
}
Object.assign(window, {
  refuseEdits: () => setLocked(true),
  allowEdits: () => setLocked(false),
  editorText: stateText,
  editorHtml: () => html,
  quillText: () => quill.current?.getEditor().getText() ?? '',
});
