import { defaultKeymap } from '@codemirror/commands';
import { EditorView, keymap } from '@codemirror/view';
import { yCollab, yUndoManagerKeymap } from 'y-codemirror.next';
import type * as Y from 'yjs';
import { Compartment, EditorState } from '@codemirror/state';
import { PAGE_TEXT } from './text.ts';
import { exposeCoauthor, sharedDocs } from './coauthor.ts';

// CodeMirror 6 views bound to Yjs by y-codemirror.next (`yCollab`, with its Yjs undo manager in
// place of CodeMirror's history): the writer's (#editor) and a co-author's, not on the page, each
// with its own Y.Doc (coauthor.ts).
const { writerDoc, coauthorDoc } = sharedDocs((doc) => doc.getText('codemirror').insert(0, `${PAGE_TEXT}\nA second paragraph, written by me on a Tuesday.`));

/** The app switches the writer's editor to read-only (a locked document: `EditorState.readOnly`) and back. */
const readOnly = new Compartment();
const viewOf = (doc: Y.Doc, parent: HTMLElement) =>
  new EditorView({
    doc: doc.getText('codemirror').toString(),
    extensions: [readOnly.of([]), yCollab(doc.getText('codemirror'), null), keymap.of([...yUndoManagerKeymap, ...defaultKeymap]), EditorView.lineWrapping],
    parent,
  });
const writer = viewOf(writerDoc, document.querySelector('#editor')!);
const coauthor = viewOf(coauthorDoc, document.createElement('div'));

Object.assign(window, {
  refuseEdits: () => writer.dispatch({ effects: readOnly.reconfigure(EditorState.readOnly.of(true)) }),
  allowEdits: () => writer.dispatch({ effects: readOnly.reconfigure([]) }),
});
exposeCoauthor({
  writerDoc,
  editorText: () => writer.state.doc.toString(),
  coauthorText: () => coauthor.state.doc.toString(),
  type(word, where) {
    // The caret: where CodeMirror mapped it through the changes since (it starts at 0).
    const from = where === 'end' ? coauthor.state.doc.length : where === 'start' ? 0 : coauthor.state.selection.main.head;
    coauthor.dispatch({ changes: { from, insert: word }, selection: { anchor: from + word.length }, userEvent: 'input.type' });
  },
});
