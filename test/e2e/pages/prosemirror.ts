import { EditorState } from 'prosemirror-state';
import { EditorView } from 'prosemirror-view';
import { DOMParser as ProseMirrorParser, Schema } from 'prosemirror-model';
import { schema as basicSchema } from 'prosemirror-schema-basic';
import { addListNodes } from 'prosemirror-schema-list';
import { exampleSetup } from 'prosemirror-example-setup';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// ProseMirror used directly (no Tiptap): prosemirror-schema-basic's schema with lists, and
// prosemirror-example-setup's plugins (its menu bar, input rules, keymaps, history), as in
// ProseMirror's own examples.
const schema = new Schema({ nodes: addListNodes(basicSchema.spec.nodes, 'paragraph block*', 'block'), marks: basicSchema.spec.marks });
const source = document.createElement('div');
source.innerHTML = formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;
const view = new EditorView(document.querySelector('#editor')!, {
  state: EditorState.create({ doc: ProseMirrorParser.fromSchema(schema).parse(source), plugins: exampleSetup({ schema }) }),
});
Object.assign(window, {
  editorText: () => view.state.doc.textBetween(0, view.state.doc.content.size, '\n'),
  editorJson: () => JSON.stringify(view.state.doc.toJSON()),
});
