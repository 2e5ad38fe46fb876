import { createElement, useState } from 'react';
import { createRoot } from 'react-dom/client';
import MDEditor from '@uiw/react-md-editor';
import { PAGE_TEXT } from './text.ts';

// @uiw/react-md-editor: a markdown textarea (under a highlighted copy of its text) in a React
// component, controlled by the app's state through `value` and `onChange`, as its README shows.
let markdown = `${PAGE_TEXT}\n\nA second paragraph, written by me on a Tuesday.`;

function App() {
  const [value, setValue] = useState(markdown);
  markdown = value;
  return createElement(MDEditor, { value, onChange: (next?: string) => setValue(next ?? ''), preview: 'edit', height: 320 });
}

createRoot(document.querySelector('#app')!).render(createElement(App));
Object.assign(window, { editorText: () => markdown });
