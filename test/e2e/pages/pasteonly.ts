import { PAGE_TEXT } from './text.ts';

/**
 * An editor that takes text only from paste events (as editors that route every insertion
 * through their clipboard pipeline do): it keeps its own model, ignores beforeinput, puts its
 * DOM back when anything else changes it, and on paste puts the pasted text/plain over the
 * selection in its model.
 */
const root = document.querySelector<HTMLElement>('#editor')!;
const model = [PAGE_TEXT, 'A second paragraph, written by me on a Tuesday.'];
const observer = new MutationObserver(() => render());
function render(): void {
  observer.disconnect();
  root.replaceChildren(...model.map((line) => Object.assign(document.createElement('p'), { textContent: line })));
  observer.observe(root, { subtree: true, childList: true, characterData: true });
}
render();
const place = (node: Node, offset: number) => {
  const paragraph = (node instanceof Element ? node : node.parentElement)!.closest('p')!;
  return { line: [...root.children].indexOf(paragraph), offset };
};
root.addEventListener('paste', (event) => {
  const range = getSelection()?.rangeCount ? getSelection()!.getRangeAt(0) : undefined;
  const text = event.clipboardData?.getData('text/plain');
  if (!range || text === undefined) return;
  const from = place(range.startContainer, range.startOffset);
  const to = place(range.endContainer, range.endOffset);
  if (from.line < 0 || from.line !== to.line) return;
  event.preventDefault();
  const line = model[from.line]!;
  model[from.line] = line.slice(0, from.offset) + text + line.slice(to.offset);
  render();
});
Object.assign(window, { editorText: () => model.join('\n') });
