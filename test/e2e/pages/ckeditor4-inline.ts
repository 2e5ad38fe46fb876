import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';
import { blockLines } from './html-text.ts';

// CKEditor 4 (4.22.1) in its inline mode (`CKEDITOR.inline`): the page's own contenteditable div
// is the editable, no iframe. Its value is `getData()`.
interface CkEditor4 {
  on(event: string, listener: () => void): void;
  setData(html: string, options: { callback(): void }): void;
  getData(): string;
  resetUndo(): void;
}
declare const CKEDITOR: { disableAutoInline: boolean; inline(id: string, config: object): CkEditor4 };

CKEDITOR.disableAutoInline = true;
const editor = CKEDITOR.inline('editor', { versionCheck: false, removePlugins: 'scayt,wsc,exportpdf,easyimage,cloudservices' });
editor.on('instanceReady', () => {
  editor.setData(formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`, {
    callback() {
      editor.resetUndo();
      Object.assign(window, {
        // The document as CKEditor serializes it, one line per paragraph.
        editorText: () => blockLines(editor.getData()),
        editorHtml: () => editor.getData(),
      });
    },
  });
});
