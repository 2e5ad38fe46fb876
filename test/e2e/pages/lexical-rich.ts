import { $createParagraphNode, $createTextNode, $getRoot, $insertNodes, createEditor } from 'lexical';
import { registerRichText, HeadingNode, QuoteNode } from '@lexical/rich-text';
import { LinkNode } from '@lexical/link';
import { $generateNodesFromDOM } from '@lexical/html';
import { createEmptyHistoryState, registerHistory } from '@lexical/history';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// Lexical as a rich-text editor (what the Lexical playground and most apps register, unlike the
// plain-text page lexical.ts): @lexical/rich-text's command handlers, @lexical/link's LinkNode, and
// `?formatted` imported from FORMATTED_HTML through @lexical/html, as an app loads stored HTML.
const editor = createEditor({ namespace: 'e2e-rich', onError: (error) => console.error(error), nodes: [HeadingNode, QuoteNode, LinkNode] });
editor.setRootElement(document.querySelector<HTMLElement>('#editor'));
registerRichText(editor);
registerHistory(editor, createEmptyHistoryState(), 300);

editor.update(
  () => {
    const root = $getRoot();
    root.clear();
    if (formattedPage()) {
      root.select();
      $insertNodes($generateNodesFromDOM(editor, new DOMParser().parseFromString(FORMATTED_HTML, 'text/html')));
      // $insertNodes leaves the empty paragraph it started in.
      for (const child of root.getChildren()) if (child.getTextContent() === '') child.remove();
      return;
    }
    for (const line of [PAGE_TEXT, 'A second paragraph, written by me on a Tuesday.']) root.append($createParagraphNode().append($createTextNode(line)));
  },
  { discrete: true },
);
Object.assign(window, {
  editorText: () => editor.getEditorState().read(() => $getRoot().getTextContent()),
  editorJson: () => JSON.stringify(editor.getEditorState().toJSON()),
  // The app switches the editor to read-only (a locked document) and back.
  refuseEdits: () => editor.setEditable(false),
  allowEdits: () => editor.setEditable(true),
});
