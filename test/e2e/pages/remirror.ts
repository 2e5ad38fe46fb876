import { createDomEditor, createDomManager } from '@remirror/dom';
import { BoldExtension } from '@remirror/extension-bold';
import { HistoryExtension } from '@remirror/extension-history';
import { PAGE_TEXT } from './text.ts';

// Remirror 3 (ProseMirror under its own extension manager) without React: its DOM framework,
// the bold and history extensions. The page's value is Remirror's own state.
const manager = createDomManager([new BoldExtension({}), new HistoryExtension({})], { stringHandler: 'html' });
const editor = createDomEditor({
  manager,
  element: document.querySelector('#editor')!,
  initialContent: `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`,
});
editor.addHandler('updated', () => changes++);
let changes = 0;
const text = () => {
  const doc = manager.view.state.doc;
  const blocks: string[] = [];
  doc.forEach((block) => blocks.push(block.textContent));
  return blocks.join('\n');
};
Object.assign(window, { editorText: text, editorChanges: () => changes, remirrorHelpers: editor.helpers });
