import { Jodit } from 'jodit';
import { htmlText } from './html-text.ts';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// Jodit in its iframe mode (`iframe: true`, as CMSs use it to keep the page's styles out): its
// editable body in an about:blank frame it writes itself. The page's value is `editor.value`.
const editor = Jodit.make('#editor', { toolbar: false, statusbar: false, iframe: true });
await editor.waitForReady();
editor.value = formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;
Object.assign(window, { editorText: () => htmlText(editor.value), editorHtml: () => editor.value });
