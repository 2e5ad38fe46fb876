import MediumEditor from 'medium-editor';
import { htmlText } from './html-text.ts';
import { PAGE_TEXT } from './text.ts';

// medium-editor: a contenteditable with its own toolbar and paste handling; its value is the HTML.
const editor = new MediumEditor('#editor', { toolbar: false, placeholder: false });
editor.setContent(`<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`);
Object.assign(window, { editorText: () => htmlText(editor.getContent()) });
