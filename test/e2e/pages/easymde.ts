import EasyMDE from 'easymde';
import { PAGE_TEXT } from './text.ts';

// EasyMDE: a Markdown editor on CodeMirror 5, which (like Ace) keeps its document in its own
// model, draws the lines itself and takes input through a hidden textarea.
const editor = new EasyMDE({
  element: document.querySelector<HTMLTextAreaElement>('#editor')!,
  initialValue: `${PAGE_TEXT}\n\nA second paragraph, written by me on a Tuesday.`,
  autosave: { enabled: false, uniqueId: 'e2e' },
  spellChecker: false,
  autoDownloadFontAwesome: false,
  status: false,
  maxHeight: '240px',
});

Object.assign(window, { editorText: () => editor.value(), setEditorText: (text: string) => editor.codemirror.setValue(text) });
