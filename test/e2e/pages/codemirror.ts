import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { Compartment, EditorState } from '@codemirror/state';
import { EditorView, keymap } from '@codemirror/view';
import { PAGE_TEXT } from './text.ts';

/** The app switches the editor to read-only (a locked document: `EditorState.readOnly`) and back. */
const readOnly = new Compartment();
const view = new EditorView({
  doc: `${PAGE_TEXT}\nA second line, written by me on a Tuesday.`,
  extensions: [readOnly.of([]), history(), keymap.of([...defaultKeymap, ...historyKeymap]), EditorView.lineWrapping],
  parent: document.querySelector('#editor')!,
});
Object.assign(window, {
  editorText: () => view.state.doc.toString(),
  refuseEdits: () => view.dispatch({ effects: readOnly.reconfigure(EditorState.readOnly.of(true)) }),
  allowEdits: () => view.dispatch({ effects: readOnly.reconfigure([]) }),
});
