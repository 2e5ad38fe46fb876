import { Editor, defaultValueCtx, editorViewCtx, rootCtx } from '@milkdown/core';
import { history } from '@milkdown/plugin-history';
import { commonmark } from '@milkdown/preset-commonmark';
import { getMarkdown } from '@milkdown/utils';
import { PAGE_TEXT, formattedPage } from './text.ts';

// Milkdown (a Markdown editor on ProseMirror, with remark): the CommonMark preset and its
// history plugin, no theme. Its own data is the ProseMirror document, and the Markdown it
// serializes from it (`getMarkdown()`), which is what a site stores.
const editor = await Editor.make()
  .config((ctx) => {
    ctx.set(rootCtx, document.querySelector('#editor'));
    // `?rich`: the AI-like text in a bullet list item, with a bold run inside its first sentence.
    // `?formatted`: FORMATTED_HTML's first paragraph in Markdown (bold, a link, an italic opener).
    const text = formattedPage()
      ? "In today's fast-paced digital landscape, it is important to note that **artificial intelligence** plays a crucial role in [fostering innovation](https://example.com/innovation). " +
        'I went to the shop yesterday and honestly it was kinda closed. ' +
        '*Moreover*, organizations must utilize **comprehensive tools** in order to navigate the complexities of an ever-evolving technological paradigm.'
      : location.search.includes('rich')
        ? `- ${PAGE_TEXT.replace('crucial role', '**crucial role**')}`
        : PAGE_TEXT;
    ctx.set(defaultValueCtx, `## Notes on the launch\n\n${text}\n\nA second paragraph, written by me on a Tuesday.\n`);
  })
  .use(commonmark)
  .use(history)
  .create();

Object.assign(window, {
  // The document's text from Milkdown's ProseMirror state: one line per block.
  editorText: () => editor.action((ctx) => ctx.get(editorViewCtx).state.doc.textBetween(0, ctx.get(editorViewCtx).state.doc.content.size, '\n')),
  editorMarkdown: () => editor.action(getMarkdown()),
  // The whole document (nodes, marks): undo must bring back exactly this.
  editorJson: () => editor.action((ctx) => JSON.stringify(ctx.get(editorViewCtx).state.doc.toJSON())),
  editorBlocks: () => {
    const blocks: string[] = [];
    editor.action((ctx) => ctx.get(editorViewCtx).state.doc.forEach((node) => blocks.push(`${node.type.name}${node.type.name === 'heading' ? String(node.attrs.level) : ''}`)));
    return blocks;
  },
});
