import { createElement, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { $getRoot, $insertNodes, type EditorState, type LexicalEditor } from 'lexical';
import { LexicalComposer } from '@lexical/react/LexicalComposer';
import { useLexicalComposerContext } from '@lexical/react/LexicalComposerContext';
import { RichTextPlugin } from '@lexical/react/LexicalRichTextPlugin';
import { ContentEditable } from '@lexical/react/LexicalContentEditable';
import { LexicalErrorBoundary } from '@lexical/react/LexicalErrorBoundary';
import { HistoryPlugin } from '@lexical/react/LexicalHistoryPlugin';
import { ListPlugin } from '@lexical/react/LexicalListPlugin';
import { LinkPlugin } from '@lexical/react/LexicalLinkPlugin';
import { MarkdownShortcutPlugin } from '@lexical/react/LexicalMarkdownShortcutPlugin';
import { OnChangePlugin } from '@lexical/react/LexicalOnChangePlugin';
import { EditorRefPlugin } from '@lexical/react/LexicalEditorRefPlugin';
import { ELEMENT_TRANSFORMERS, TEXT_FORMAT_TRANSFORMERS, TEXT_MATCH_TRANSFORMERS } from '@lexical/markdown';
import { HeadingNode, QuoteNode } from '@lexical/rich-text';
import { ListItemNode, ListNode } from '@lexical/list';
import { LinkNode } from '@lexical/link';
import { $generateHtmlFromNodes, $generateNodesFromDOM } from '@lexical/html';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';
import { blockLines } from './html-text.ts';

// Lexical through its React bindings as its "rich text" example sets it up: LexicalComposer,
// RichTextPlugin over a ContentEditable, HistoryPlugin, ListPlugin, LinkPlugin and
// MarkdownShortcutPlugin (headings, quotes, lists, bold/italic, links). The stored HTML is loaded
// through @lexical/html as the composer's initial state, and OnChangePlugin writes the exported
// HTML into React state, the value the app saves. A clock re-renders every 200 ms.
const stored = formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;
let html = '';
let changes = 0;
let current: LexicalEditor | null = null;

function loadStored(editor: LexicalEditor): void {
  const root = $getRoot();
  root.clear();
  root.select();
  $insertNodes($generateNodesFromDOM(editor, new DOMParser().parseFromString(stored, 'text/html')));
  for (const child of root.getChildren()) if (child.getTextContent() === '') child.remove();
}

/** The app's value starts as the loaded document's HTML (OnChangePlugin leaves the initial state out). */
function InitialValue({ onValue }: { onValue: (html: string) => void }) {
  const [editor] = useLexicalComposerContext();
  useEffect(() => editor.read(() => onValue($generateHtmlFromNodes(editor))), [editor]);
  return null;
}

function App() {
  const [, setTick] = useState(0);
  useState(() => setInterval(() => setTick((tick) => tick + 1), 200));
  const [value, setValue] = useState('');
  html = value;
  return createElement(
    LexicalComposer,
    {
      initialConfig: {
        namespace: 'e2e-lexical-react',
        nodes: [HeadingNode, QuoteNode, ListNode, ListItemNode, LinkNode],
        onError: (error: Error) => console.error(error),
        editorState: loadStored,
      },
    },
    createElement(RichTextPlugin, {
      contentEditable: createElement(ContentEditable, { className: 'editor-input', style: { border: '1px solid #888', padding: '8px' } }),
      ErrorBoundary: LexicalErrorBoundary,
    }),
    createElement(HistoryPlugin),
    createElement(ListPlugin),
    createElement(LinkPlugin),
    createElement(MarkdownShortcutPlugin, { transformers: [...ELEMENT_TRANSFORMERS, ...TEXT_FORMAT_TRANSFORMERS, ...TEXT_MATCH_TRANSFORMERS] }),
    createElement(InitialValue, { onValue: setValue }),
    createElement(EditorRefPlugin, { editorRef: (editor: LexicalEditor | null) => void (current = editor ?? current) }),
    createElement(OnChangePlugin, {
      ignoreSelectionChange: true,
      onChange: (state: EditorState, editor: LexicalEditor) =>
        state.read(() => {
          const next = $generateHtmlFromNodes(editor);
          if (next !== html) changes++;
          setValue(next);
        }),
    }),
  );
}

createRoot(document.querySelector('#app')!).render(createElement(App));

Object.assign(window, {
  editorText: () => blockLines(html),
  editorHtml: () => html,
  editorChanges: () => changes,
  // The editor's own serialization and text (its model), beside the app's state.
  editorSerialized: () => current?.read(() => $generateHtmlFromNodes(current!)) ?? '',
  editorModelText: () => current?.getEditorState().read(() => $getRoot().getTextContent()) ?? '',
  editorJson: () => JSON.stringify(current?.getEditorState().toJSON() ?? null),
  // The app locks the document (read-only) and unlocks it, through Lexical's API.
  refuseEdits: () => current?.setEditable(false),
  allowEdits: () => current?.setEditable(true),
});
