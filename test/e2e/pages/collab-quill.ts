import Quill from 'quill';
import { QuillBinding } from 'y-quill';
import type * as Y from 'yjs';
import { PAGE_TEXT } from './text.ts';
import { exposeCoauthor, sharedDocs } from './coauthor.ts';

// Quill 2 editors bound to Yjs by y-quill (`QuillBinding`): the writer's (#editor) and a
// co-author's, not on the page, each with its own Y.Doc (coauthor.ts).
const { writerDoc, coauthorDoc } = sharedDocs((doc) => doc.getText('quill').insert(0, `${PAGE_TEXT}\nA second paragraph, written by me on a Tuesday.\n`));

const quillOf = (doc: Y.Doc, mount: HTMLElement) => {
  const quill = new Quill(mount, {});
  new QuillBinding(doc.getText('quill'), quill);
  // A loaded document starts with an empty undo history, as in a real app.
  (quill.getModule('history') as { clear(): void }).clear();
  return quill;
};
const writer = quillOf(writerDoc, document.querySelector('#editor')!);
const coauthor = quillOf(coauthorDoc, document.createElement('div'));

// The co-author's caret (a detached Quill has no selection of its own), moved by the writer's
// edits as Quill moves a selection through changes not the user's (text put at it stays after it).
let caret = 0;
coauthor.on('text-change', (delta, _old, source) => {
  if (source !== 'user') caret = delta.transformPosition(caret, true);
});
// The app switches the writer's editor to read-only (a locked document) and back.
Object.assign(window, { refuseEdits: () => writer.disable(), allowEdits: () => writer.enable() });
exposeCoauthor({
  writerDoc,
  editorText: () => writer.getText(),
  coauthorText: () => coauthor.getText(),
  type(word, where) {
    // At the end of the last line (before Quill's closing newline), at the start, or at the caret.
    const index = where === 'end' ? coauthor.getLength() - 1 : where === 'start' ? 0 : caret;
    coauthor.insertText(index, word, 'user');
    caret = index + word.length;
  },
});
