import FroalaEditor from 'froala-editor';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';
import { htmlText } from './html-text.ts';

// Froala Editor 5 in its iframe mode (`iframe: true`): its editable body in a frame it writes
// itself. As on the froala page, the page's value is its HTML as of the last `contentChanged`.
let model = '';
new FroalaEditor('#editor', {
  iframe: true,
  heightMin: 160,
  events: {
    contentChanged(this: FroalaEditor) {
      model = this.html.get();
    },
  },
}, function (this: FroalaEditor) {
  this.html.set(formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`);
  this.undo.reset();
  model = this.html.get();
  Object.assign(window, { editorText: () => htmlText(model), editorHtml: () => this.html.get() });
});
