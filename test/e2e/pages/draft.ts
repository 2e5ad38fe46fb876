import { createElement, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { ContentState, Editor, EditorState } from 'draft-js';
import { PAGE_TEXT } from './text.ts';

// Draft.js (Meta): React owns the DOM and Draft's immutable EditorState is the document; a DOM
// edit that Draft did not see as input is rendered away on its next update.
let current = EditorState.createWithContent(ContentState.createFromText(`${PAGE_TEXT}\nA second paragraph, written by me on a Tuesday.`));

function App() {
  const [state, setState] = useState(current);
  return createElement(
    'div',
    { style: { border: '1px solid #888', padding: '8px' } },
    createElement(Editor, {
      editorState: state,
      onChange: (next: EditorState) => {
        current = next;
        setState(next);
      },
    }),
  );
}

Object.assign(window, { editorText: () => current.getCurrentContent().getPlainText('\n') });
createRoot(document.querySelector('#app')!).render(createElement(App));
