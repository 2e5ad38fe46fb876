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

const cm = editor.codemirror;
Object.assign(window, {
  editorText: () => editor.value(),
  setEditorText: (text: string) => cm.setValue(text),
  // The text under the extension's marks, as CodeMirror holds them.
  markedTexts: () =>
    cm
      .getAllMarks()
      .filter((mark) => (mark as { className?: string }).className?.startsWith('redline-'))
      .map((mark) => {
        const range = mark.find() as { from: CodeMirror.Position; to: CodeMirror.Position };
        return cm.getRange(range.from, range.to);
      }),
});
