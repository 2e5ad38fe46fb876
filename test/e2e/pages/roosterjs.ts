import { Editor, createModelFromHtml, exportContent } from 'roosterjs-content-model-core';
import { EditPlugin, PastePlugin, ShortcutPlugin } from 'roosterjs-content-model-plugins';
import type { EditorPlugin, PluginEvent } from 'roosterjs-content-model-types';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// RoosterJS 9 (Microsoft; the editor of Outlook on the web), with the plugins Outlook's compose
// box has for typing: EditPlugin (Backspace, Delete, Enter, Tab through its model), ShortcutPlugin
// (Ctrl+Z/Ctrl+Y to its own undo snapshots, Ctrl+B...) and PastePlugin. Its value is its Content
// Model, which it keeps from its DOM (a cache reconciled on input and mutations) and renders back;
// `exportContent(editor, 'PlainText' | 'HTML')` goes through that model (what a page saves).
// Ctrl+Z restores its own snapshots. A page's autosave listens to its plugin events `input` (the
// writer's typing, a native edit) and `contentChanged` (its own API's edits): counted in
// `editorChanges()`.
let changes = 0;
const changeCounter: EditorPlugin = {
  getName: () => 'ChangeCounter',
  initialize: () => {},
  dispose: () => {},
  onPluginEvent: (event: PluginEvent) => {
    if (event.eventType === 'input' || event.eventType === 'contentChanged') changes++;
  },
};
const html = formattedPage() ? FORMATTED_HTML : `<div>${PAGE_TEXT}</div><div>A second paragraph, written by me on a Tuesday.</div>`;
const editor = new Editor(document.querySelector<HTMLDivElement>('#editor')!, {
  plugins: [new EditPlugin(), new ShortcutPlugin(), new PastePlugin(), changeCounter],
  initialModel: createModelFromHtml(html),
});
changes = 0;
Object.assign(window, {
  // Its model's text: one line per paragraph (it joins them with CRLF).
  editorText: () => exportContent(editor, 'PlainText').replace(/\r\n/g, '\n'),
  editorHtml: () => exportContent(editor, 'HTML'),
  editorChanges: () => changes,
});
