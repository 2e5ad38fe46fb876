import { EditorView, minimalSetup } from 'codemirror';
import { PAGE_TEXT } from './text.ts';

const view = new EditorView({
  doc: `${PAGE_TEXT}\nA second line, written by me on a Tuesday.`,
  extensions: [minimalSetup, EditorView.lineWrapping],
  parent: document.querySelector('#editor')!,
});
Object.assign(window, { editorText: () => view.state.doc.toString() });
