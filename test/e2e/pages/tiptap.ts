import { Editor } from '@tiptap/core';
import StarterKit from '@tiptap/starter-kit';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

const editor = new Editor({
  element: document.querySelector('#editor')!,
  extensions: [StarterKit],
  content: formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`,
});
Object.assign(window, {
  editorText: () => editor.getText({ blockSeparator: '\n' }),
  // The app switches the editor to read-only (a locked document) and back.
  refuseEdits: () => editor.setEditable(false),
  allowEdits: () => editor.setEditable(true),
});
