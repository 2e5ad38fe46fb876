import { createElement, useMemo } from 'react';
import { createRoot } from 'react-dom/client';
import YooptaEditor, { createYooptaEditor, type YooptaContentValue } from '@yoopta/editor';
import Paragraph from '@yoopta/paragraph';
import { PAGE_TEXT } from './text.ts';

// Yoopta-Editor 6 (a Notion-like block editor on Slate: each block its own Slate editor, one
// undo history of its own over all of them). The page's value is Yoopta's own value
// (`getEditorValue()`), its blocks in order.
const block = (id: string, order: number, text: string) => ({
  id,
  type: 'Paragraph',
  meta: { order, depth: 0 },
  value: [{ id: `${id}-p`, type: 'paragraph', children: [{ text }], props: { nodeType: 'block' } }],
});
const initial = {
  one: block('one', 0, PAGE_TEXT),
  two: block('two', 1, 'A second paragraph, written by me on a Tuesday.'),
} as unknown as YooptaContentValue;
let changes = 0;
type Leaf = { text?: string; children?: Leaf[] };
const textOf = (node: Leaf): string => node.text ?? (node.children ?? []).map(textOf).join('');

function App() {
  const editor = useMemo(() => createYooptaEditor({ plugins: [Paragraph] as never, value: initial }), []);
  Object.assign(window, {
    editorText: () =>
      Object.values(editor.getEditorValue())
        .sort((a, b) => a.meta.order - b.meta.order)
        .map((data) => (data.value as Leaf[]).map(textOf).join(''))
        .join('\n'),
    editorChanges: () => changes,
    yoopta: editor,
  });
  return createElement(YooptaEditor, { editor, autoFocus: false, style: { width: 700, border: '1px solid #888' }, onChange: () => changes++ });
}

createRoot(document.querySelector('#app')!).render(createElement(App));
