import { BlockNoteEditor } from '@blocknote/core';
import { PAGE_TEXT, formattedPage } from './text.ts';

// BlockNote (a Notion-like block editor on Tiptap/ProseMirror), its core alone, without the
// React UI: one ProseMirror view whose document is a group of block containers. Its own model
// is the block list (`editor.document`), each block's inline content a list of styled runs.
// `?rich`: the AI-like text in a bullet list item, with a bold run inside its first sentence.
// `?formatted`: FORMATTED_HTML's first paragraph as styled runs and a link (BlockNote's own inline content).
const [head, tail] = PAGE_TEXT.split('crucial role') as [string, string];
const run = (text: string, styles: Record<string, boolean> = {}) => ({ type: 'text' as const, text, styles });
const FORMATTED_CONTENT = [
  run("In today's fast-paced digital landscape, it is important to note that "),
  run('artificial intelligence', { bold: true }),
  run(' plays a crucial role in '),
  { type: 'link' as const, href: 'https://example.com/innovation', content: [run('fostering innovation')] },
  run('. I went to the shop yesterday and honestly it was kinda closed. '),
  run('Moreover', { italic: true }),
  run(', organizations must utilize '),
  run('comprehensive tools', { bold: true }),
  run(' in order to navigate the complexities of an ever-evolving technological paradigm.'),
];
const editor = BlockNoteEditor.create({
  initialContent: [
    { type: 'heading', props: { level: 2 }, content: 'Notes on the launch' },
    formattedPage()
      ? { type: 'paragraph', content: FORMATTED_CONTENT }
      : location.search.includes('rich')
      ? { type: 'bulletListItem', content: [{ type: 'text', text: head, styles: {} }, { type: 'text', text: 'crucial role', styles: { bold: true } }, { type: 'text', text: tail, styles: {} }] }
      : { type: 'paragraph', content: PAGE_TEXT },
    { type: 'paragraph', content: 'A second paragraph, written by me on a Tuesday.' },
  ],
});
editor.mount(document.querySelector<HTMLElement>('#editor')!);

type Run = { type: string; text?: string; content?: Run[] };
const runText = (run: Run): string => (run.type === 'text' ? (run.text ?? '') : run.type === 'link' ? (run.content ?? []).map(runText).join('') : '');
const blockText = (block: { content?: unknown }): string => (Array.isArray(block.content) ? (block.content as Run[]).map(runText).join('') : '');

Object.assign(window, {
  // The document as BlockNote's block API returns it: one line per block.
  editorText: () => editor.document.map(blockText).join('\n'),
  // Each block's type (and a heading's level): an apply must leave the document's structure as it was.
  // The whole block tree (ids, props, styled runs): undo must bring back exactly this.
  editorJson: () => JSON.stringify(editor.document),
  editorBlocks: () => editor.document.map((block) => `${block.type}${block.type === 'heading' ? String((block.props as { level?: number }).level) : ''}`),
});
