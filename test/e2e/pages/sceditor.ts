import 'sceditor/src/sceditor.js';
import 'sceditor/src/formats/bbcode.js';
import 'sceditor/src/formats/xhtml.js';
import { htmlText } from './html-text.ts';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// SCEditor 3 (forums: MyBB, SMF and others): a WYSIWYG body in an iframe it writes itself, over
// the page's textarea. Its value is `instance.val()`, converted from that body by its format:
// BBCode with `?bbcode` (what a forum stores), else XHTML. The textarea (what a form posts) is
// copied from it on submit and, with `autoUpdate`, on blur. Its `valuechanged` event (what a
// page's draft autosave listens to) is counted in `editorChanges()`. Undo is the browser's own.
interface SCEditorInstance {
  val(value?: string): string;
  bind(events: string, handler: () => void): void;
  updateOriginal(): void;
}
declare const sceditor: { create(textarea: HTMLTextAreaElement, options: object): void; instance(textarea: HTMLTextAreaElement): SCEditorInstance };

const bbcode = new URLSearchParams(location.search).has('bbcode');
const textarea = document.querySelector<HTMLTextAreaElement>('#editor')!;
const BBCODE_PAGE = `${PAGE_TEXT}\n\nA second paragraph, written by me on a Tuesday.`;
textarea.value = bbcode ? BBCODE_PAGE : formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;
sceditor.create(textarea, { format: bbcode ? 'bbcode' : 'xhtml', toolbar: 'bold,italic,link|source', style: './sceditor-content.css', autoUpdate: true, height: 260, emoticonsEnabled: false });
const editor = sceditor.instance(textarea);
let changes = 0;
editor.bind('valuechanged', () => void changes++);
/** BBCode's text: tags dropped, a blank line between paragraphs as one line break. */
const bbcodeText = (value: string) => value.replace(/\[\/?[a-z*]+(=[^\]]*)?\]/g, '').replace(/\n+/g, '\n').replace(/\n$/, '');
const value = () => editor.val();
Object.assign(window, {
  // Its XHTML is indented: one line per paragraph, each trimmed.
  editorText: () => (bbcode ? bbcodeText(value()) : htmlText(value()).split('\n').map((line) => line.trim()).filter(Boolean).join('\n')),
  editorHtml: value,
  editorChanges: () => changes,
  /** What the form would post now (the textarea), without a submit. */
  postedText: () => textarea.value,
});
