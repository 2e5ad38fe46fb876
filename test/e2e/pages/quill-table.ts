import Quill from 'quill';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// Quill 2 with its table module (`modules: { table: true }`): the AI-like text in a table's first
// cell, a human note in the second, a paragraph after the table. Its model is its Delta
// (`getText()`, cells one line each); `text-change` from the writer's or an accept's edit (what a
// page's autosave listens to) is counted in `editorChanges()`. Ctrl+Z is its history module's.
const quill = new Quill('#editor', { modules: { table: true } });
const firstParagraph = /^<p>(.*?)<\/p>/.exec(FORMATTED_HTML)![1]!;
const cell = formattedPage() ? firstParagraph : PAGE_TEXT;
quill.clipboard.dangerouslyPasteHTML(`<table><tbody><tr><td>${cell}</td><td>A human note in a cell.</td></tr></tbody></table><p>A second paragraph, written by me on a Tuesday.</p>`);
// A loaded document starts with an empty undo history, as in a real app.
(quill.getModule('history') as { clear(): void }).clear();
let changes = 0;
quill.on('text-change', (_delta, _old, source) => {
  if (source === 'user') changes++;
});
// Its HTML as Quill renders its Delta (2.0.3's getSemanticHTML() writes every space as &nbsp;).
Object.assign(window, { editorText: () => quill.getText(), editorHtml: () => quill.root.innerHTML, editorChanges: () => changes });
