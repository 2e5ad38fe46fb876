import { createElement, useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { createEditor, Node, type Descendant, type Element as SlateElement } from 'slate';
import { withHistory } from 'slate-history';
import { Editable, Slate, withReact, type RenderElementProps, type RenderLeafProps } from 'slate-react';
import { PAGE_TEXT, formattedPage } from './text.ts';

const formatted = formattedPage();
const paragraph = (...children: unknown[]) => ({ type: 'paragraph', children }) as unknown as Descendant;

// `?formatted`: FORMATTED_HTML as Slate's model holds it: marks on text leaves, a link as an inline element.
const initial: Descendant[] = formatted
  ? [
      paragraph(
        { text: "In today's fast-paced digital landscape, it is important to note that " },
        { text: 'artificial intelligence', bold: true },
        { text: ' plays a crucial role in ' },
        { type: 'link', url: 'https://example.com/innovation', children: [{ text: 'fostering innovation' }] },
        { text: '. I went to the shop yesterday and honestly it was kinda closed. ' },
        { text: 'Moreover', italic: true },
        { text: ', organizations must utilize ' },
        { text: 'comprehensive tools', bold: true },
        { text: ' in order to navigate the complexities of an ever-evolving technological paradigm.' },
      ),
      paragraph({ text: 'A second paragraph, written by me on a Tuesday.' }),
    ]
  : [PAGE_TEXT, 'A second paragraph, written by me on a Tuesday.'].map((text) => paragraph({ text }));

type Leaf = { bold?: boolean; italic?: boolean };

/** Marks rendered as Slate's examples do: `<strong>`, `<em>` inside the leaf's span. */
function renderLeaf({ attributes, children, leaf }: RenderLeafProps) {
  let content = children;
  if ((leaf as Leaf).bold) content = createElement('strong', null, content);
  if ((leaf as Leaf).italic) content = createElement('em', null, content);
  return createElement('span', attributes, content);
}

function renderElement({ attributes, children, element }: RenderElementProps) {
  const { type, url } = element as SlateElement & { type?: string; url?: string };
  return type === 'link' ? createElement('a', { ...attributes, href: url }, children) : createElement('div', attributes, children);
}

function App() {
  const editor = useMemo(() => {
    const editor = withHistory(withReact(createEditor()));
    if (formatted) {
      const { isInline } = editor;
      editor.isInline = (element) => (element as { type?: string }).type === 'link' || isInline(element);
    }
    return editor;
  }, []);
  const [readOnly, setReadOnly] = useState(false);
  // The document as Slate's own model holds it, one line per block.
  Object.assign(window, {
    editorText: () => editor.children.map((node) => Node.string(node)).join('\n'),
    refuseEdits: () => setReadOnly(true),
    allowEdits: () => setReadOnly(false),
  });
  return createElement(
    Slate,
    { editor, initialValue: initial, children: [] },
    createElement(Editable, { id: 'editor', readOnly, style: { border: '1px solid #888', padding: '8px' }, ...(formatted ? { renderLeaf, renderElement } : {}) }),
  );
}

createRoot(document.querySelector('#app')!).render(createElement(App));
