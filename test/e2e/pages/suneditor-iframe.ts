import suneditor from 'suneditor';
import { htmlText } from './html-text.ts';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// SunEditor 3 in its iframe mode (`iframe: true`): its editable body in a frame it writes itself,
// its own history of snapshots behind Ctrl+Z. Its value is `html.get()`.
const editor = suneditor.create(document.querySelector<HTMLElement>('#editor')!, {
  buttonList: [['bold', 'italic', 'undo', 'redo']],
  height: '240px',
  iframe: true,
  events: {
    // Its frame is ready only from `onload`.
    onload: () => {
      editor.$.html.set(formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`);
      const value = () => editor.$.html.get();
      Object.assign(window, { editorText: () => htmlText(value()).replace(/\n$/, ''), editorHtml: value });
    },
  },
});
