import FroalaEditor from 'froala-editor';
import { PAGE_TEXT } from './text.ts';
import { htmlText } from './html-text.ts';

// Froala Editor 5 (its packaged build from npm, unlicensed: it shows its banner). Its undo stack
// is its own (snapshots of its HTML, Ctrl+Z restores them), and `contentChanged` fires when it
// takes one: the page's value is its HTML as of the last `contentChanged`, as Froala's own
// framework wrappers (React, Angular, Vue) keep their model.
const holder = document.querySelector<HTMLElement>('#editor')!;
holder.innerHTML = `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;
let model = '';
let changes = 0;
new FroalaEditor(holder, {
  heightMin: 160,
  events: {
    contentChanged(this: FroalaEditor) {
      changes++;
      model = this.html.get();
    },
  },
}, function (this: FroalaEditor) {
  model = this.html.get();
  Object.assign(window, { editorText: () => htmlText(model), editorHtml: () => this.html.get(), editorChanges: () => changes });
});
