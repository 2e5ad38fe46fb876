import { createElement, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { CKEditor } from '@ckeditor/ckeditor5-react';
import { Bold, ClassicEditor, Essentials, Italic, Link, Paragraph, type ModelElement, type ModelText } from 'ckeditor5';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';
import { blockLines } from './html-text.ts';

// CKEditor 5 through its React component (`@ckeditor/ckeditor5-react`), as its guide writes a
// controlled field: `data` from React state, `onChange` setting the state from `getData()`, the
// value the app saves. A clock re-renders every 200 ms.
let html = formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;
let changes = 0;
let current: ClassicEditor | null = null;
const config = { licenseKey: 'GPL', plugins: [Essentials, Paragraph, Bold, Italic, Link] };

/** The app locks the document (read-only) and unlocks it, through the component's `disabled` prop. */
let setLocked: (locked: boolean) => void = () => {};
function App() {
  const [, setTick] = useState(0);
  useState(() => setInterval(() => setTick((tick) => tick + 1), 200));
  const [value, setValue] = useState(html);
  const [locked, lock] = useState(false);
  setLocked = lock;
  html = value;
  return createElement(CKEditor<ClassicEditor>, {
    editor: ClassicEditor,
    config,
    data: value,
    disabled: locked,
    onReady: (editor: ClassicEditor) => void (current = editor),
    onChange: (_event: unknown, editor: ClassicEditor) => {
      changes++;
      setValue(editor.getData());
    },
  });
}

createRoot(document.querySelector('#app')!).render(createElement(App));

Object.assign(window, {
  editorText: () => blockLines(html),
  editorHtml: () => html,
  editorChanges: () => changes,
  refuseEdits: () => setLocked(true),
  allowEdits: () => setLocked(false),
  // The editor's own serialization and text (its model), beside the app's state.
  editorSerialized: () => current?.getData() ?? '',
  editorModelText: () =>
    current
      ? [...current.model.document.getRoot()!.getChildren()]
          .map((paragraph) => [...(paragraph as ModelElement).getChildren()].map((node) => (node as ModelText).data ?? '').join(''))
          .join('\n')
      : '',
});
