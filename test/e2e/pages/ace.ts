import ace from 'ace-builds';
import { PAGE_TEXT } from './text.ts';

// Ace: draws its own DOM over a hidden textarea that only ever holds the selection.
const editor = ace.edit('editor', { wrap: true, useWorker: false });
editor.session.setValue(`${PAGE_TEXT}\nA second paragraph, written by me on a Tuesday.`);
Object.assign(window, {
  editorText: () => editor.session.getValue(),
  setEditorText: (text: string) => editor.session.setValue(text),
  // The text under the extension's marks, as Ace's session holds them.
  markedTexts: () =>
    Object.values(editor.session.getMarkers(false) ?? {})
      .filter((marker) => marker.clazz.startsWith('redline-'))
      .map((marker) => editor.session.getTextRange(marker.range!)),
});
