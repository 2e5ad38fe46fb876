import MediumEditor from 'medium-editor';
import { htmlText } from './html-text.ts';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// medium-editor: a contenteditable with its own toolbar and paste handling; its value is the HTML.
const editor = new MediumEditor('#editor', { toolbar: false, placeholder: false });
editor.setContent(formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`);
Object.assign(window, { editorText: () => htmlText(editor.getContent()), editorHtml: () => editor.getContent() });
