import { Crepe } from '@milkdown/crepe';
import { editorViewCtx } from '@milkdown/kit/core';
import { PAGE_TEXT, formattedPage } from './text.ts';

// Milkdown Crepe (Milkdown's ready-made editor: its block handle, toolbar, slash menu, link
// tooltip, tables, code blocks and LaTeX, all its default features) as its docs set it up. The
// app saves the Markdown Crepe gives its `markdownUpdated` listener (`editorHtml()`); the text is
// read from its ProseMirror document.
const text = formattedPage()
  ? "In today's fast-paced digital landscape, it is important to note that **artificial intelligence** plays a crucial role in [fostering innovation](https://example.com/innovation). " +
    'I went to the shop yesterday and honestly it was kinda closed. ' +
    '*Moreover*, organizations must utilize **comprehensive tools** in order to navigate the complexities of an ever-evolving technological paradigm.'
  : PAGE_TEXT;
const crepe = new Crepe({ root: '#editor', defaultValue: `${text}\n\nA second paragraph, written by me on a Tuesday.\n` });
let saved = '';
let changes = 0;
crepe.on((listener) =>
  listener.markdownUpdated((_ctx, markdown) => {
    changes++;
    saved = markdown;
  }),
);
await crepe.create();
saved = crepe.getMarkdown();

const view = () => crepe.editor.action((ctx) => ctx.get(editorViewCtx));
Object.assign(window, {
  editorText: () => view().state.doc.textBetween(0, view().state.doc.content.size, '\n'),
  editorHtml: () => saved,
  // The editor's own serialization and text (its model), beside what the app saved.
  editorSerialized: () => crepe.getMarkdown(),
  editorModelText: () => view().state.doc.textContent,
  editorChanges: () => changes,
  editorJson: () => JSON.stringify(view().state.doc.toJSON()),
});
