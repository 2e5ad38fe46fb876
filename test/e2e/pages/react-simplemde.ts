import { createElement, useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';
import SimpleMdeReact from 'react-simplemde-editor';
import { PAGE_TEXT } from './text.ts';

// react-simplemde-editor (EasyMDE, CodeMirror 5, in React), controlled as its README shows:
// `value` the app's state, set from `onChange`; the options memoised (new options rebuild it).
let markdown = `${PAGE_TEXT}\n\nA second paragraph, written by me on a Tuesday.`;
let codemirror: CodeMirror.Editor | undefined;

function App() {
  const [value, setValue] = useState(markdown);
  markdown = value;
  const options = useMemo(() => ({ autosave: { enabled: false, uniqueId: 'e2e' }, spellChecker: false, autoDownloadFontAwesome: false, status: false, maxHeight: '240px' }), []);
  return createElement(SimpleMdeReact, { value, onChange: (next: string) => setValue(next), options, getCodemirrorInstance: (instance) => void (codemirror = instance) });
}

createRoot(document.querySelector('#app')!).render(createElement(App));
Object.assign(window, {
  // The app's value, paragraphs one per line as the other pages' text.
  editorText: () => markdown.replace(/\n\n/g, '\n'),
  // The text under the extension's marks, as CodeMirror holds them.
  markedTexts: () =>
    (codemirror?.getAllMarks() ?? [])
      .filter((mark) => (mark as { className?: string }).className?.startsWith('redline-'))
      .map((mark) => {
        const range = mark.find() as { from: CodeMirror.Position; to: CodeMirror.Position };
        return codemirror!.getRange(range.from, range.to);
      }),
});
