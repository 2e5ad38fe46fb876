import suneditor from 'suneditor';
import { htmlText } from './html-text.ts';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// SunEditor 3 (no iframe): its value is the HTML its `html.get()` serialises from its editable
// (`.sun-editor-editable`), and Ctrl+Z goes through its own history of snapshots. Its `onChange`
// (what a page's autosave listens to) is counted in `editorChanges()`. The text is set through
// its API after it started, as a page that loads a saved draft does.
let changes = 0;
const editor = suneditor.create(document.querySelector<HTMLElement>('#editor')!, {
  buttonList: [['bold', 'italic', 'undo', 'redo']],
  height: '240px',
  events: { onChange: () => void changes++ },
});
editor.$.html.set(formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`);
const value = () => editor.$.html.get();
Object.assign(window, { editorText: () => htmlText(value()).replace(/\n$/, ''), editorHtml: value, editorChanges: () => changes });
