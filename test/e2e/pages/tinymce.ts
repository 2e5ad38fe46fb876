import tinymce from 'tinymce';
import 'tinymce/models/dom';
import 'tinymce/themes/silver';
import 'tinymce/icons/default';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';
import { blockLines } from './html-text.ts';

// Classic mode: the editable body lives in an iframe TinyMCE fills through srcdoc. Self-hosted:
// the skin and content CSS are served from the npm package (copied by build.ts).
const [editor] = await tinymce.init({
  selector: '#editor',
  license_key: 'gpl',
  menubar: false,
  toolbar: 'undo redo',
  skin_url: '/tinymce/skins/ui/oxide',
  content_css: '/tinymce/skins/content/default/content.min.css',
  height: 300,
});
editor!.setContent(formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`);
editor!.undoManager.clear();
Object.assign(window, {
  // The document as TinyMCE serializes it (what a form submits), one line per paragraph.
  editorText: () => blockLines(editor!.getContent()),
  refuseEdits: () => editor!.mode.set('readonly'),
  allowEdits: () => editor!.mode.set('design'),
});
