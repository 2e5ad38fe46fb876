import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';
import { blockLines } from './html-text.ts';

// CKEditor 4 (4.22.1, the last release under GPL/LGPL/MPL; 4.23 and later are the commercial
// LTS), classic mode: the editable body in an iframe CKEditor writes itself (`src=""`, so
// about:blank), as in many older CMSs. Loaded as its own script (`ckeditor4/ckeditor.js`, copied
// from the npm package by build.ts: it loads its plugins, skin and language from its folder).
// Its document is its DOM; `getData()` is what it submits: its data processor's HTML.
interface CkEditor4 {
  on(event: string, listener: () => void): void;
  setData(html: string, options: { callback(): void }): void;
  getData(): string;
  resetUndo(): void;
  setReadOnly(readOnly: boolean): void;
}
declare const CKEDITOR: { replace(id: string, config: object): CkEditor4 };

const editor = CKEDITOR.replace('editor', {
  // 4.22 would fetch the latest version from ckeditor.com and show a notice over the editor.
  versionCheck: false,
  height: 300,
  removePlugins: 'scayt,wsc,exportpdf,easyimage,cloudservices',
});
editor.on('instanceReady', () => {
  editor.setData(formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`, {
    callback() {
      // A loaded document starts with an empty undo history, as in a real app.
      editor.resetUndo();
      // CKEditor's `change` (what autosave and ckeditor4-react's onChange read), counted.
      let changes = 0;
      editor.on('change', () => changes++);
      Object.assign(window, {
        ckeditor: editor,
        // The document as CKEditor serializes it (what a form submits), one line per paragraph.
        editorText: () => blockLines(editor.getData()),
        editorHtml: () => editor.getData(),
        editorChanges: () => changes,
        refuseEdits: () => editor.setReadOnly(true),
        allowEdits: () => editor.setReadOnly(false),
      });
    },
  });
});
