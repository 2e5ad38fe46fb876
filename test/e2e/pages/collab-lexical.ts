import { $createParagraphNode, $createTextNode, $getRoot, $getSelection, $isRangeSelection, createEditor, type LexicalEditor } from 'lexical';
import { registerPlainText } from '@lexical/plain-text';
import { createBinding, initLocalState, syncLexicalUpdateToYjs, syncYjsChangesToLexical, type Provider, type UserState } from '@lexical/yjs';
import * as Y from 'yjs';
import { PAGE_TEXT } from './text.ts';
import { exposeCoauthor, sharedDocs } from './coauthor.ts';

// Lexical editors bound to Yjs by @lexical/yjs, wired as @lexical/react's CollaborationPlugin
// wires them (its Yjs observer and update listener, a local awareness state for the caret): the
// writer's (#editor) and a co-author's, with no root element, each with its own Y.Doc
// (coauthor.ts). The relay is the network; the provider only holds the awareness.
const { writerDoc, coauthorDoc } = sharedDocs(() => {});

/** A provider with no connection: the awareness state of this side alone. */
function localProvider(doc: Y.Doc): Provider {
  let state: UserState | null = null;
  const noop = () => {};
  return {
    awareness: {
      getLocalState: () => state,
      getStates: () => new Map(state ? [[doc.clientID, state]] : []),
      setLocalState: (next) => void (state = next),
      setLocalStateField: (field, value) => void (state = state && { ...state, [field]: value }),
      on: noop,
      off: noop,
    },
    connect: noop,
    disconnect: noop,
    on: noop,
    off: noop,
  };
}

function collaborate(doc: Y.Doc, root: HTMLElement | null, name: string): LexicalEditor {
  const editor = createEditor({ namespace: 'e2e-collab', onError: (error) => console.error(error) });
  editor.setRootElement(root);
  registerPlainText(editor);
  const provider = localProvider(doc);
  const binding = createBinding(editor, provider, name, doc, new Map([[name, doc]]));
  initLocalState(provider, name, '#c33', root !== null, {});
  binding.root.getSharedType().observeDeep((events, transaction) => {
    if (transaction.origin !== binding) syncYjsChangesToLexical(binding, provider, events as Y.YEvent<Y.XmlText>[], transaction.origin instanceof Y.UndoManager);
  });
  editor.registerUpdateListener(({ prevEditorState, editorState, dirtyElements, dirtyLeaves, normalizedNodes, tags }) =>
    syncLexicalUpdateToYjs(binding, provider, prevEditorState, editorState, dirtyElements, dirtyLeaves, normalizedNodes, tags),
  );
  return editor;
}
const writer = collaborate(writerDoc, document.querySelector<HTMLElement>('#editor'), 'writer');
const coauthor = collaborate(coauthorDoc, null, 'coauthor');

// The writer's editor starts the shared document (CollaborationPlugin's bootstrap), and the
// co-author's has it at once (the relay brings it again 30 ms later: Yjs applies an update once).
writer.update(
  () => {
    for (const line of [PAGE_TEXT, 'A second paragraph, written by me on a Tuesday.']) $getRoot().append($createParagraphNode().append($createTextNode(line)));
  },
  { discrete: true },
);
Y.applyUpdate(coauthorDoc, Y.encodeStateAsUpdate(writerDoc), 'network');

const textOf = (editor: LexicalEditor) => editor.getEditorState().read(() => $getRoot().getTextContent());
// The app switches the writer's editor to read-only (a locked document) and back.
Object.assign(window, { refuseEdits: () => writer.setEditable(false), allowEdits: () => writer.setEditable(true) });
exposeCoauthor({
  writerDoc,
  editorText: () => textOf(writer),
  coauthorText: () => textOf(coauthor),
  type(word, where) {
    coauthor.update(
      () => {
        const root = $getRoot();
        // The caret: the editor's selection, which the binding keeps through remote changes (it starts at the start).
        const caret = $getSelection();
        const selection = where === 'end' ? root.getLastChildOrThrow().selectEnd() : where === 'caret' && $isRangeSelection(caret) ? caret : root.getFirstChildOrThrow().selectStart();
        selection.insertText(word);
      },
      { discrete: true },
    );
  },
});
