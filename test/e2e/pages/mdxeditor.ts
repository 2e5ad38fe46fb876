import { createElement, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { MDXEditor, headingsPlugin, linkPlugin, listsPlugin, markdownShortcutPlugin, quotePlugin, type MDXEditorMethods } from '@mdxeditor/editor';
import { PAGE_TEXT, formattedPage } from './text.ts';
import { FORMATTED_MARKDOWN, markdownText } from './markdown-text.ts';

// MDXEditor (a React markdown editor over Lexical), as its README sets it up: its `markdown` the
// app's state, `onChange` the markdown the app saves, and `getMarkdown()` through its ref.
let markdown = `${formattedPage() ? FORMATTED_MARKDOWN : PAGE_TEXT}\n\nA second paragraph, written by me on a Tuesday.`;
let methods: MDXEditorMethods | null = null;

/** The app makes the editor read-only (a locked document) and editable again, through its props. */
let setLocked: (locked: boolean) => void = () => {};
function App() {
  const [value, setValue] = useState(markdown);
  const [locked, lock] = useState(false);
  setLocked = lock;
  markdown = value;
  return createElement(MDXEditor, {
    markdown: value,
    onChange: (next: string) => setValue(next),
    readOnly: locked,
    plugins: [headingsPlugin(), quotePlugin(), listsPlugin(), linkPlugin(), markdownShortcutPlugin()],
    contentEditableClassName: 'mdx-content',
    ref: (instance: MDXEditorMethods | null) => void (methods = instance ?? methods),
  });
}

createRoot(document.querySelector('#app')!).render(createElement(App));
Object.assign(window, {
  refuseEdits: () => setLocked(true),
  allowEdits: () => setLocked(false),
  // The markdown as the app has it (`onChange`), paragraphs one per line as the other pages' text.
  editorText: () => markdownText(markdown),
  editorHtml: () => markdown,
  editorMarkdown: () => methods?.getMarkdown() ?? '',
});
