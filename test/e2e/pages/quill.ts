import Quill from 'quill';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

const quill = new Quill('#editor', {});
if (formattedPage()) quill.clipboard.dangerouslyPasteHTML(FORMATTED_HTML);
else quill.setText(`${PAGE_TEXT}\nA second paragraph, written by me on a Tuesday.\n`);
// A loaded document starts with an empty undo history, as in a real app.
(quill.getModule('history') as { clear(): void }).clear();
Object.assign(window, {
  editorText: () => quill.getText(),
  // The app switches the editor to read-only (a locked document) and back.
  refuseEdits: () => quill.disable(),
  allowEdits: () => quill.enable(),
});
