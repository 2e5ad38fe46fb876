import { createElement, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { BlockNoteEditor, type DefaultBlockSchema, type DefaultInlineContentSchema, type DefaultStyleSchema } from '@blocknote/core';
import { useCreateBlockNote } from '@blocknote/react';
import { BlockNoteView } from '@blocknote/mantine';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';
import { blockLines } from './html-text.ts';

// BlockNote with its React UI (`@blocknote/react`'s `useCreateBlockNote`, `@blocknote/mantine`'s
// `BlockNoteView`: side menu, formatting toolbar, slash menu), as its docs set it up for an app
// that stores HTML: the stored HTML parsed into blocks (`tryParseHTMLToBlocks`) as the editor's
// initial content (so the load is no undo step), and `onChange` writing `blocksToHTMLLossy` into
// React state, the value the app saves. A clock re-renders every 200 ms.
const stored = formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;
const initialContent = BlockNoteEditor.create().tryParseHTMLToBlocks(stored);
let html = '';
let changes = 0;
let current: BlockNoteEditor | null = null;

function App() {
  const [, setTick] = useState(0);
  useState(() => setInterval(() => setTick((tick) => tick + 1), 200));
  const editor = useCreateBlockNote({ initialContent });
  const [value, setValue] = useState(() => editor.blocksToHTMLLossy(editor.document));
  html = value;
  current = editor;
  return createElement(BlockNoteView<DefaultBlockSchema, DefaultInlineContentSchema, DefaultStyleSchema>, {
    editor,
    onChange: () => {
      changes++;
      setValue(editor.blocksToHTMLLossy(editor.document));
    },
  });
}

createRoot(document.querySelector('#app')!).render(createElement(App));

type Run = { type: string; text?: string; content?: Run[] };
const runText = (run: Run): string => (run.type === 'text' ? (run.text ?? '') : run.type === 'link' ? (run.content ?? []).map(runText).join('') : '');
const blockText = (block: { content?: unknown }): string => (Array.isArray(block.content) ? (block.content as Run[]).map(runText).join('') : '');
Object.assign(window, {
  editorText: () => blockLines(html),
  editorHtml: () => html,
  editorChanges: () => changes,
  // The editor's own serialization and text (its block list), beside the app's state.
  editorSerialized: () => current?.blocksToHTMLLossy(current.document) ?? '',
  editorModelText: () => current?.document.map(blockText).join('\n') ?? '',
  editorJson: () => JSON.stringify(current?.document ?? []),
  // The app locks the document (read-only) and unlocks it, through BlockNote's API.
  refuseEdits: () => void (current!.isEditable = false),
  allowEdits: () => void (current!.isEditable = true),
});
