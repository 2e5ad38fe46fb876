import { createElement, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { EditorContent, EditorRoot, StarterKit, TiptapLink, TiptapUnderline, type JSONContent } from 'novel';
import { PAGE_TEXT } from './text.ts';

// Novel (a Notion-style editor: Tiptap 2 in React), as its docs set it up: `EditorRoot` and
// `EditorContent` with the document as JSON, saved by the app from `onUpdate`.
const paragraph = (text: string): JSONContent => ({ type: 'paragraph', content: [{ type: 'text', text }] });
let saved: JSONContent = { type: 'doc', content: [paragraph(PAGE_TEXT), paragraph('A second paragraph, written by me on a Tuesday.')] };

function App() {
  const [, setDoc] = useState(saved);
  return createElement(
    EditorRoot,
    null,
    createElement(EditorContent, {
      initialContent: saved,
      extensions: [StarterKit, TiptapLink, TiptapUnderline],
      className: 'novel-editor',
      onUpdate: ({ editor }) => setDoc((saved = editor.getJSON())),
    }),
  );
}

createRoot(document.querySelector('#app')!).render(createElement(App));
const textOf = (node: JSONContent): string => node.text ?? (node.content ?? []).map(textOf).join('');
Object.assign(window, {
  // The JSON the app saves (`onUpdate`), one line per paragraph.
  editorText: () => (saved.content ?? []).map(textOf).join('\n'),
});
