import EditorJS from '@editorjs/editorjs';
import { htmlText } from './html-text.ts';
import { PAGE_TEXT } from './text.ts';

// Editor.js (CodeX): a block editor, each paragraph its own contenteditable; `save()` reads the
// blocks back from their DOM into its JSON model (text as inline HTML).
const editor = new EditorJS({
  holder: 'editor',
  data: { blocks: [PAGE_TEXT, 'A second paragraph, written by me on a Tuesday.'].map((text) => ({ type: 'paragraph', data: { text } })) },
});

await editor.isReady;
Object.assign(window, {
  editorText: async () => (await editor.save()).blocks.map((block) => htmlText(String(block.data.text))).join('\n'),
});
