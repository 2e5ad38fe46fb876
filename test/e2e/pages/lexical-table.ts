import { $getRoot, $insertNodes, createEditor } from 'lexical';
import { registerRichText, HeadingNode, QuoteNode } from '@lexical/rich-text';
import { LinkNode } from '@lexical/link';
import { $generateHtmlFromNodes, $generateNodesFromDOM } from '@lexical/html';
import { createEmptyHistoryState, registerHistory } from '@lexical/history';
import { TableCellNode, TableNode, TableRowNode, registerTablePlugin, registerTableSelectionObserver } from '@lexical/table';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// Lexical as the playground sets it up for tables: rich text, links, @lexical/table's nodes, its
// plugin and selection observer, history. The AI text is in a table's cell (a notes column), the
// writer's own paragraph after the table; loaded from HTML through @lexical/html, as an app loads
// stored HTML. The app saves the HTML Lexical exports (`editorHtml()`).
const editor = createEditor({ namespace: 'e2e-table', onError: (error) => console.error(error), nodes: [HeadingNode, QuoteNode, LinkNode, TableNode, TableRowNode, TableCellNode] });
editor.setRootElement(document.querySelector<HTMLElement>('#editor'));
registerRichText(editor);
registerTablePlugin(editor);
registerTableSelectionObserver(editor);
registerHistory(editor, createEmptyHistoryState(), 300);

const notes = formattedPage() ? /<p>(.*?)<\/p>/.exec(FORMATTED_HTML)![1]! : PAGE_TEXT;
const html =
  `<table><tr><th><p>Topic</p></th><th><p>Notes</p></th></tr><tr><td><p>Launch</p></td><td><p>${notes}</p></td></tr></table>` +
  '<p>A second paragraph, written by me on a Tuesday.</p>';
editor.update(
  () => {
    const root = $getRoot();
    root.clear();
    root.select();
    $insertNodes($generateNodesFromDOM(editor, new DOMParser().parseFromString(html, 'text/html')));
    for (const child of root.getChildren()) if (child.getTextContent() === '') child.remove();
  },
  { discrete: true },
);
let saved = '';
let changes = 0;
editor.registerUpdateListener(({ dirtyElements, dirtyLeaves }) => {
  if (dirtyElements.size === 0 && dirtyLeaves.size === 0) return;
  editor.read(() => {
    const next = $generateHtmlFromNodes(editor);
    if (next !== saved) changes++;
    saved = next;
  });
});
editor.read(() => (saved = $generateHtmlFromNodes(editor)));
Object.assign(window, {
  editorText: () => editor.getEditorState().read(() => $getRoot().getTextContent()),
  editorHtml: () => saved,
  // The editor's own serialization and text (its model), beside what the app saved.
  editorSerialized: () => editor.read(() => $generateHtmlFromNodes(editor)),
  editorModelText: () => editor.getEditorState().read(() => $getRoot().getTextContent()),
  editorChanges: () => changes,
  editorJson: () => JSON.stringify(editor.getEditorState().toJSON()),
});
