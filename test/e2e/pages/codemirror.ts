import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { EditorView, keymap } from '@codemirror/view';
import { PAGE_TEXT } from './text.ts';

const view = new EditorView({
  doc: `${PAGE_TEXT}\nA second line, written by me on a Tuesday.`,
  extensions: [history(), keymap.of([...defaultKeymap, ...historyKeymap]), EditorView.lineWrapping],
  parent: document.querySelector('#editor')!,
});
Object.assign(window, { editorText: () => view.state.doc.toString() });
