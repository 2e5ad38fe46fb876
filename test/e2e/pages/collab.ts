import { ySyncPlugin } from 'y-prosemirror';
import { EditorState, TextSelection } from 'prosemirror-state';
import { EditorView } from 'prosemirror-view';
import { DOMParser as ProseMirrorParser } from 'prosemirror-model';
import { schema } from 'prosemirror-schema-basic';
import { keymap } from 'prosemirror-keymap';
import { baseKeymap } from 'prosemirror-commands';
import { prosemirrorToYXmlFragment } from 'y-prosemirror';
import type * as Y from 'yjs';
import { PAGE_TEXT } from './text.ts';
import { exposeCoauthor, sharedDocs } from './coauthor.ts';

// Collaborative editing as Tiptap's and BlockNote's collaboration extensions do it: ProseMirror
// views bound to Yjs documents by y-prosemirror. The writer's editor (#editor) and a co-author's
// (another view, not on the page) each have their own Y.Doc (coauthor.ts); what the co-author
// types changes the writer's document while an accept runs.
const source = document.createElement('div');
source.innerHTML = `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;
const initial = ProseMirrorParser.fromSchema(schema).parse(source);
const { writerDoc, coauthorDoc } = sharedDocs((doc) => prosemirrorToYXmlFragment(initial, doc.getXmlFragment('prosemirror')));

const viewOf = (doc: Y.Doc, mount: HTMLElement) =>
  new EditorView(mount, { state: EditorState.create({ schema, plugins: [ySyncPlugin(doc.getXmlFragment('prosemirror')), keymap(baseKeymap)] }) });
const writer = viewOf(writerDoc, document.querySelector('#editor')!);
const coauthor = viewOf(coauthorDoc, document.createElement('div'));

const textOf = (view: EditorView) => view.state.doc.textBetween(0, view.state.doc.content.size, '\n');
let typed = 0;
// The app switches the writer's editor to read-only (a locked document) and back, as Tiptap's `setEditable` does.
const setEditable = (editable: boolean) => writer.setProps({ editable: () => editable });
Object.assign(window, { refuseEdits: () => setEditable(false), allowEdits: () => setEditable(true) });
exposeCoauthor({
  writerDoc,
  editorText: () => textOf(writer),
  coauthorText: () => textOf(coauthor),
  type(word, where) {
    // Inside the last paragraph, at its end; inside the first, at its start; or at the caret (y-prosemirror keeps it through remote changes).
    if (where !== 'caret' || typed === 0) {
      const at = where === 'end' ? coauthor.state.doc.content.size - 1 : 1;
      coauthor.dispatch(coauthor.state.tr.setSelection(TextSelection.create(coauthor.state.doc, at)));
    }
    typed++;
    coauthor.dispatch(coauthor.state.tr.insertText(word));
  },
});
