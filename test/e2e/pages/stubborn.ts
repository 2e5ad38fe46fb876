import { PAGE_TEXT } from './text.ts';

/**
 * An editor that ignores every synthetic edit: it keeps its own model, takes no beforeinput
 * or paste, and puts its DOM back whenever anything else changes it (as editors that
 * reconcile the DOM against their model do).
 */
const root = document.querySelector<HTMLElement>('#editor')!;
const model = [PAGE_TEXT, 'A second paragraph, written by me on a Tuesday.'];
const render = () => root.replaceChildren(...model.map((line) => Object.assign(document.createElement('p'), { textContent: line })));
render();
const observer = new MutationObserver(() => {
  observer.disconnect();
  render();
  observer.observe(root, { subtree: true, childList: true, characterData: true });
});
observer.observe(root, { subtree: true, childList: true, characterData: true });
Object.assign(window, { editorText: () => model.join('\n') });
