import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { BoldPlugin, ItalicPlugin } from '@platejs/basic-nodes/react';
import { LinkPlugin } from '@platejs/link/react';
import { NodeApi, type Value } from 'platejs';
import { Plate, PlateContent, PlateElement, usePlateEditor, type PlateElementProps } from 'platejs/react';
import { PAGE_TEXT, formattedPage } from './text.ts';

// Plate 53 (Slate 0.126 and slate-react under Plate's plugin system): its editable is
// `[data-slate-editor]`. Its value is its Slate model (`editor.children`); Ctrl+Z goes through
// its history (slate-history, a Plate core plugin). Marks from @platejs/basic-nodes (bold as
// `<strong>`, italic as `<em>`), links from @platejs/link (an inline element, drawn here as an
// `<a>`). Its `onChange` (what a page's autosave listens to) is counted in `editorChanges()`.
const SECOND_PARAGRAPH = 'A second paragraph, written by me on a Tuesday.';
const paragraph = (...children: unknown[]) => ({ type: 'p', children });

// `?formatted`: FORMATTED_HTML as Plate's model holds it: marks on text leaves, a link as an inline element.
const initial = (
  formattedPage()
    ? [
        paragraph(
          { text: "In today's fast-paced digital landscape, it is important to note that " },
          { text: 'artificial intelligence', bold: true },
          { text: ' plays a crucial role in ' },
          { type: 'a', url: 'https://example.com/innovation', children: [{ text: 'fostering innovation' }] },
          { text: '. I went to the shop yesterday and honestly it was kinda closed. ' },
          { text: 'Moreover', italic: true },
          { text: ', organizations must utilize ' },
          { text: 'comprehensive tools', bold: true },
          { text: ' in order to navigate the complexities of an ever-evolving technological paradigm.' },
        ),
        paragraph({ text: SECOND_PARAGRAPH }),
      ]
    : [paragraph({ text: PAGE_TEXT }), paragraph({ text: SECOND_PARAGRAPH })]
) as Value;

function LinkElement(props: PlateElementProps) {
  return createElement(PlateElement, { ...props, as: 'a', attributes: { ...props.attributes, href: (props.element as { url?: string }).url } });
}

let changes = 0;
function App() {
  const editor = usePlateEditor({ plugins: [BoldPlugin, ItalicPlugin, LinkPlugin.withComponent(LinkElement)], value: initial });
  Object.assign(window, {
    editorText: () => editor.children.map((node) => NodeApi.string(node)).join('\n'),
    editorHtml: () => JSON.stringify(editor.children),
    editorChanges: () => changes,
  });
  return createElement(Plate, {
    editor,
    onChange: () => void changes++,
    children: createElement(PlateContent, { id: 'editor', style: { border: '1px solid #888', padding: '8px' } }),
  });
}

createRoot(document.querySelector('#app')!).render(createElement(App));
