import tinymce from 'tinymce';
import 'tinymce/models/dom';
import 'tinymce/themes/silver';
import 'tinymce/icons/default';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';
import { htmlText } from './html-text.ts';

// TinyMCE 8 in its inline mode (`inline: true`): the page's own div is the editable, no iframe.
const [editor] = await tinymce.init({
  selector: '#editor',
  inline: true,
  license_key: 'gpl',
  menubar: false,
  toolbar: 'undo redo',
  skin_url: '/tinymce/skins/ui/oxide',
});
editor!.setContent(formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`);
editor!.undoManager.clear();
Object.assign(window, { editorText: () => htmlText(editor!.getContent()), editorHtml: () => editor!.getContent() });
