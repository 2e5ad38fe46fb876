import EditorJS from '@editorjs/editorjs';
import { htmlText } from './html-text.ts';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// Editor.js (CodeX): a block editor, each paragraph its own contenteditable; `save()` reads the
// blocks back from their DOM into its JSON model (text as inline HTML).
// `?formatted`: FORMATTED_HTML's paragraphs as paragraph blocks, in Editor.js's own inline
// markup (its bold and italic tools write `<b>` and `<i>`; its link tool `<a>`).
const texts = formattedPage()
  ? [...FORMATTED_HTML.matchAll(/<p>(.*?)<\/p>/g)].map(([, html]) => html!.replace(/<(\/?)strong>/g, '<$1b>').replace(/<(\/?)em>/g, '<$1i>'))
  : [PAGE_TEXT, 'A second paragraph, written by me on a Tuesday.'];
const editor = new EditorJS({
  holder: 'editor',
  data: { blocks: texts.map((text) => ({ type: 'paragraph', data: { text } })) },
});

await editor.isReady;
Object.assign(window, {
  editorText: async () => (await editor.save()).blocks.map((block) => htmlText(String(block.data.text))).join('\n'),
  editorHtml: async () => (await editor.save()).blocks.map((block) => String(block.data.text)).join('\n'),
});
