import * as monaco from 'monaco-editor/editor/editor.api.js';
import { PAGE_TEXT } from './text.ts';

// Monaco (VS Code's editor): draws only the lines in view, over an EditContext element in
// Chromium (a hidden textarea elsewhere, or with `editContext: false`). Its instances are
// reachable only where the page exposes the `monaco` global, as pages loading it from a CDN
// with its AMD loader do; a bundled Monaco keeps them private. One script, four pages:
//   monaco.html                   the global, EditContext input (Monaco's default in Chromium)
//   monaco-textarea.html          the global, textarea input
//   monaco-private.html           no global: nothing outside the page's own code reaches the model
//   monaco-private-textarea.html  no global, textarea input
//   monaco-readonly.html          the global, a read-only editor (a code sample on a page)
const page = document.body.dataset.monaco ?? 'monaco';
const editor = monaco.editor.create(document.getElementById('editor')!, {
  value: `${PAGE_TEXT}\nA second paragraph, written by me on a Tuesday.`,
  language: 'plaintext',
  wordWrap: 'on',
  minimap: { enabled: false },
  automaticLayout: true,
  editContext: !page.endsWith('-textarea'),
  readOnly: page === 'monaco-readonly',
});
if (!page.startsWith('monaco-private')) Object.assign(window, { monaco });
const model = editor.getModel()!;
Object.assign(window, {
  editorText: () => model.getValue(),
  setEditorText: (text: string) => model.setValue(text),
  // The text under the extension's decorations, as Monaco's model holds them.
  markedTexts: () =>
    model
      .getAllDecorations()
      .filter((decoration) => decoration.options.inlineClassName?.startsWith('redline-'))
      .sort((a, b) => a.range.startLineNumber - b.range.startLineNumber || a.range.startColumn - b.range.startColumn)
      .map((decoration) => model.getValueInRange(decoration.range)),
});
