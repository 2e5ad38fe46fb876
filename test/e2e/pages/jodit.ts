import { Jodit } from 'jodit';
import { htmlText } from './html-text.ts';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// Jodit: a WYSIWYG editor whose value is the HTML of its contenteditable, kept in step through
// its own observer and history.
const editor = Jodit.make('#editor', { toolbar: false, statusbar: false, iframe: false });
editor.value = formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;
Object.assign(window, { editorText: () => htmlText(editor.value), editorHtml: () => editor.value });
