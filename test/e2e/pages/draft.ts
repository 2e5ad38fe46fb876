import { createElement, useState, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { CompositeDecorator, ContentState, Editor, EditorState, convertFromHTML, type ContentBlock } from 'draft-js';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// Draft.js (Meta): React owns the DOM and Draft's immutable EditorState is the document; a DOM
// edit that Draft did not see as input is rendered away on its next update.
// `?formatted`: FORMATTED_HTML through Draft's own convertFromHTML (BOLD and ITALIC inline
// styles, a LINK entity rendered as `<a>` by a decorator, as Draft's link example does).
const linkDecorator = new CompositeDecorator([
  {
    strategy: (block: ContentBlock, callback: (start: number, end: number) => void, content: ContentState) =>
      block.findEntityRanges((character) => {
        const key = character.getEntity();
        return key !== null && content.getEntity(key).getType() === 'LINK';
      }, callback),
    component: ({ contentState, entityKey, children }: { contentState: ContentState; entityKey: string; children: ReactNode }) =>
      createElement('a', { href: (contentState.getEntity(entityKey).getData() as { url: string }).url }, children),
  },
]);

function formattedState(): EditorState {
  const { contentBlocks, entityMap } = convertFromHTML(FORMATTED_HTML);
  return EditorState.createWithContent(ContentState.createFromBlockArray(contentBlocks, entityMap), linkDecorator);
}

let current = formattedPage() ? formattedState() : EditorState.createWithContent(ContentState.createFromText(`${PAGE_TEXT}\nA second paragraph, written by me on a Tuesday.`));

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
