import * as Y from 'yjs';
import { ySyncPlugin } from 'y-prosemirror';
import { EditorState, TextSelection } from 'prosemirror-state';
import { EditorView } from 'prosemirror-view';
import { DOMParser as ProseMirrorParser } from 'prosemirror-model';
import { schema } from 'prosemirror-schema-basic';
import { keymap } from 'prosemirror-keymap';
import { baseKeymap } from 'prosemirror-commands';
import { prosemirrorToYXmlFragment } from 'y-prosemirror';
import { PAGE_TEXT } from './text.ts';

// Collaborative editing as Tiptap's and BlockNote's collaboration extensions do it: ProseMirror
// views bound to Yjs documents by y-prosemirror. The writer's editor (#editor) and a co-author's
// (another view, not on the page) each have their own Y.Doc; their updates reach each other after
// a network delay. `coauthor.start(ms, where)` has the co-author type a word every `ms` at the end
// of the last paragraph, or at the start of the first; what arrives changes the writer's document
// while an accept runs. `coauthor.afterWriter(ms, where)` has them type one word `ms` after the
// writer's copy next changes.
const NETWORK_MS = 30;

const source = document.createElement('div');
source.innerHTML = `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;
const initial = ProseMirrorParser.fromSchema(schema).parse(source);

const writerDoc = new Y.Doc();
const coauthorDoc = new Y.Doc();
prosemirrorToYXmlFragment(initial, writerDoc.getXmlFragment('prosemirror'));
Y.applyUpdate(coauthorDoc, Y.encodeStateAsUpdate(writerDoc));

// Each side's updates travel to the other after NETWORK_MS, in order.
const relay = (from: Y.Doc, to: Y.Doc) =>
  from.on('update', (update: Uint8Array, origin: unknown) => {
    if (origin !== 'network') setTimeout(() => Y.applyUpdate(to, update, 'network'), NETWORK_MS);
  });
relay(writerDoc, coauthorDoc);
relay(coauthorDoc, writerDoc);

const viewOf = (doc: Y.Doc, mount: HTMLElement) =>
  new EditorView(mount, { state: EditorState.create({ schema, plugins: [ySyncPlugin(doc.getXmlFragment('prosemirror')), keymap(baseKeymap)] }) });
const writer = viewOf(writerDoc, document.querySelector('#editor')!);
const coauthor = viewOf(coauthorDoc, document.createElement('div'));

const textOf = (view: EditorView) => view.state.doc.textBetween(0, view.state.doc.content.size, '\n');
let timer: ReturnType<typeof setInterval> | undefined;
const typed: string[] = [];

/** The co-author types one word at the end of the last paragraph, or at the start of the first. */
function typeWord(where: 'start' | 'end'): void {
  const word = where === 'end' ? ` co${typed.length + 1}` : `co${typed.length + 1} `;
  typed.push(word);
  const at = where === 'end' ? coauthor.state.doc.content.size - 1 : 1;
  coauthor.dispatch(coauthor.state.tr.setSelection(TextSelection.create(coauthor.state.doc, at)).insertText(word));
}

Object.assign(window, {
  editorText: () => textOf(writer),
  coauthorText: () => textOf(coauthor),
  coauthor: {
    start(ms: number, where: 'start' | 'end' = 'end') {
      timer = setInterval(() => typeWord(where), ms);
    },
    /** One word, typed `ms` after the writer's copy next changes (an accept's edit): it reaches the writer while the accept is judged. */
    afterWriter(ms: number, where: 'start' | 'end' = 'end') {
      const once = (_update: Uint8Array, origin: unknown) => {
        if (origin === 'network') return;
        writerDoc.off('update', once);
        setTimeout(() => typeWord(where), ms);
      };
      writerDoc.on('update', once);
    },
    stop: () => clearInterval(timer),
    typed: () => typed,
  },
});
