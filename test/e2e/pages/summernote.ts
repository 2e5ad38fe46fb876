import $ from 'jquery';
import 'summernote/dist/summernote-lite.js';
import { htmlText } from './html-text.ts';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// Summernote (lite, jQuery): its value is the HTML of its editable, and Ctrl+Z goes through its
// own history of snapshots, not the browser's. Pages load it with jQuery as a global, as here;
// the text is set through its API after it started (as a page that loads a saved draft does),
// so its first snapshot is an empty editor.
Object.assign(window, { jQuery: $, $ });
const editor = $('#editor') as unknown as { summernote(command: unknown, value?: string): string };
editor.summernote({ toolbar: [], height: 200 });
editor.summernote('code', formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`);
Object.assign(window, { editorText: () => htmlText(editor.summernote('code')), editorHtml: () => editor.summernote('code') });
