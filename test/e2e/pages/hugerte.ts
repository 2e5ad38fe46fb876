import hugerte from 'hugerte';
import 'hugerte/models/dom';
import 'hugerte/themes/silver';
import 'hugerte/icons/default';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';
import { blockLines } from './html-text.ts';

// HugeRTE 1 (the MIT fork of TinyMCE 6, made when TinyMCE 7 went GPL): classic mode, its body in
// an iframe it fills through srcdoc, its API on the page's `hugerte` global (there is no
// `tinymce`). Its document is its DOM, serialized by `getContent()` (what a form submits); its
// `change` event (what apps and autosave listen to) comes when it adds an undo level, and is
// counted in `editorChanges()`. Self-hosted: its skin and content CSS copied by build.ts.
const [editor] = await hugerte.init({
  selector: '#editor',
  menubar: false,
  toolbar: 'undo redo | bold italic link',
  skin_url: '/hugerte/skins/ui/oxide',
  content_css: '/hugerte/skins/content/default/content.min.css',
  height: 300,
});
editor!.setContent(formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`);
editor!.undoManager.clear();
let changes = 0;
editor!.on('change', () => void changes++);
Object.assign(window, {
  // The document as HugeRTE serializes it, one line per paragraph.
  editorText: () => blockLines(editor!.getContent()),
  editorHtml: () => editor!.getContent(),
  editorChanges: () => changes,
});
