import { $createParagraphNode, $createTextNode, $getRoot, createEditor } from 'lexical';
import { registerPlainText } from '@lexical/plain-text';
import { createEmptyHistoryState, registerHistory } from '@lexical/history';
import { PAGE_TEXT } from './text.ts';

const editor = createEditor({ namespace: 'e2e', onError: (error) => console.error(error) });
editor.setRootElement(document.querySelector<HTMLElement>('#editor'));
registerPlainText(editor);
registerHistory(editor, createEmptyHistoryState(), 300);
editor.update(
  () => {
    const root = $getRoot();
    for (const line of [PAGE_TEXT, 'A second paragraph, written by me on a Tuesday.']) {
      root.append($createParagraphNode().append($createTextNode(line)));
    }
  },
  { discrete: true },
);
Object.assign(window, { editorText: () => editor.getEditorState().read(() => $getRoot().getTextContent()) });
