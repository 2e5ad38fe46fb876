import { createElement, useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { createEditor, Node, type Descendant } from 'slate';
import { withHistory } from 'slate-history';
import { Editable, Slate, withReact } from 'slate-react';
import { PAGE_TEXT } from './text.ts';

const initial: Descendant[] = [PAGE_TEXT, 'A second paragraph, written by me on a Tuesday.'].map((text) => ({ type: 'paragraph', children: [{ text }] }) as Descendant);

function App() {
  const editor = useMemo(() => withHistory(withReact(createEditor())), []);
  const [readOnly, setReadOnly] = useState(false);
  // The document as Slate's own model holds it, one line per block.
  Object.assign(window, {
    editorText: () => editor.children.map((node) => Node.string(node)).join('\n'),
    refuseEdits: () => setReadOnly(true),
    allowEdits: () => setReadOnly(false),
  });
  return createElement(Slate, { editor, initialValue: initial, children: [] }, createElement(Editable, { id: 'editor', readOnly, style: { border: '1px solid #888', padding: '8px' } }));
}

createRoot(document.querySelector('#app')!).render(createElement(App));
