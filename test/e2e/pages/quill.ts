import Quill from 'quill';
import { PAGE_TEXT } from './text.ts';

const quill = new Quill('#editor', {});
quill.setText(`${PAGE_TEXT}\nA second paragraph, written by me on a Tuesday.\n`);
Object.assign(window, { editorText: () => quill.getText() });
