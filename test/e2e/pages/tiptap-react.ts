import { createElement, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { EditorContent, useEditor, type Editor } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';
import { blockLines } from './html-text.ts';

// Tiptap 3 in React (`@tiptap/react`'s `useEditor` and `EditorContent`, StarterKit 3 with its
// link), as a controlled component the way many apps write it: the HTML in React state, set from
// `onUpdate`, and written back into the editor (`setContent`) whenever the state and the editor
// differ. A clock re-renders every 200 ms. What the app saves is the state.
let html = formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;
let changes = 0;
let current: Editor | null = null;

function App() {
  const [value, setValue] = useState(html);
  const [, setTick] = useState(0);
  useState(() => setInterval(() => setTick((tick) => tick + 1), 200));
  const editor = useEditor({
    extensions: [StarterKit],
    content: value,
    immediatelyRender: true,
    onUpdate: ({ editor }) => {
      changes++;
      setValue(editor.getHTML());
    },
  });
  useEffect(() => {
    if (editor && editor.getHTML() !== value) editor.commands.setContent(value, { emitUpdate: false });
  }, [editor, value]);
  html = value;
  current = editor;
  return createElement(EditorContent, { editor });
}

createRoot(document.querySelector('#app')!).render(createElement(App));

Object.assign(window, {
  editorText: () => blockLines(html),
  editorHtml: () => html,
  editorChanges: () => changes,
  // The editor's own serialization and text (its model), beside the app's state.
  editorSerialized: () => current?.getHTML() ?? '',
  editorModelText: () => current?.getText() ?? '',
});
