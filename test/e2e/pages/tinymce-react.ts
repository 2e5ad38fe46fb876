import { createElement, useState, type FunctionComponent } from 'react';
import { createRoot } from 'react-dom/client';
import { Editor, type IAllProps } from '@tinymce/tinymce-react';
import tinymce from 'tinymce';
import 'tinymce/models/dom';
import 'tinymce/themes/silver';
import 'tinymce/icons/default';
import { PAGE_TEXT } from './text.ts';
import { blockLines } from './html-text.ts';

// TinyMCE's official React component, controlled as its docs show: `value` is the app's state,
// set from `onEditorChange`. The component rolls the editor back to `value` when the app does not
// take a change (its `rollback`), and sets the editor's content when `value` differs from it.
// TinyMCE self-hosted (the global the component uses when the page has loaded it), classic mode.
Object.assign(window, { tinymce });
let html = `<p>${PAGE_TEXT}</p>\n<p>A second paragraph, written by me on a Tuesday.</p>`;

/** The app makes the editor read-only (a locked document) and editable again, through its props. */
let setLocked: (locked: boolean) => void = () => {};
function App() {
  const [value, setValue] = useState(html);
  const [locked, lock] = useState(false);
  setLocked = lock;
  html = value;
  // Its class's propTypes typing and @types/react's disagree on prop-types versions; the props are the documented ones.
  return createElement(Editor as unknown as FunctionComponent<IAllProps>, {
    licenseKey: 'gpl',
    value,
    onEditorChange: (next: string) => setValue(next),
    disabled: locked,
    init: { menubar: false, toolbar: 'undo redo', skin_url: '/tinymce/skins/ui/oxide', content_css: '/tinymce/skins/content/default/content.min.css', height: 300 },
  });
}

createRoot(document.querySelector('#app')!).render(createElement(App));
Object.assign(window, {
  refuseEdits: () => setLocked(true),
  allowEdits: () => setLocked(false),
  // The app's value (what it saves), one line per paragraph.
  editorText: () => blockLines(html),
});
