import { Jodit } from 'jodit';
import { PAGE_TEXT } from './text.ts';

// Jodit: a WYSIWYG editor whose value is the HTML of its contenteditable, kept in step through
// its own observer and history.
const editor = Jodit.make('#editor', { toolbar: false, statusbar: false, iframe: false });
editor.value = `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;

const plain = (html: string) => {
  const element = document.createElement('div');
  element.innerHTML = html.replace(/<\/p>\s*<p>/g, '</p>\n<p>');
  return (element.textContent ?? '').replace(/\u00a0/g, ' ');
};
Object.assign(window, { editorText: () => plain(editor.value) });
