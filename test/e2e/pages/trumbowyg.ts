import $ from 'jquery';
import { htmlText } from './html-text.ts';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// Trumbowyg (jQuery): its value is its textarea's, which it syncs from its contenteditable
// (`.trumbowyg-editor`) on the writer's keys, cut, paste and drop; `trumbowyg('html')` reads that
// value (what a form posts). Its `tbwchange` event (what autosave listens to) is counted in
// `editorChanges()`. Loaded with jQuery as a global, as pages do; the text set through its API.
Object.assign(window, { jQuery: $, $ });
await import('trumbowyg');
let changes = 0;
const editor = $('#editor') as unknown as JQuery & { trumbowyg(command?: unknown, value?: string): string };
editor.trumbowyg({ btns: [['strong', 'em', 'link']], svgPath: false, autogrow: false });
editor.on('tbwchange', () => void changes++);
editor.trumbowyg('html', formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`);
changes = 0;
const value = () => editor.trumbowyg('html');
Object.assign(window, { editorText: () => htmlText(value()).replace(/\n$/, ''), editorHtml: value, editorChanges: () => changes });
