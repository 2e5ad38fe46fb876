/**
 * A rich editor in happy-dom that takes `beforeinput` and renders from its model, as Slate or
 * Lexical do: the selected content is replaced by the event's data. What it was asked to do is
 * recorded in `attempts` (input types, and `paste`).
 */
export function beforeInputEditor(html: string): { root: HTMLElement; attempts: string[] } {
  document.body.innerHTML = `<div contenteditable="true"><p>${html}</p></div>`;
  const root = document.querySelector<HTMLElement>('[contenteditable]')!;
  const attempts: string[] = [];
  root.addEventListener('beforeinput', (event) => {
    attempts.push(event.inputType);
    const range = document.getSelection()!.getRangeAt(0);
    range.deleteContents();
    range.insertNode(document.createTextNode((event as InputEvent).data ?? ''));
    root.normalize();
    event.preventDefault();
  });
  root.addEventListener('paste', () => attempts.push('paste'));
  return { root, attempts };
}

// happy-dom has no StaticRange constructor (browsers do): the fields the event carries are enough here.
(globalThis as { StaticRange?: unknown }).StaticRange ??= class {
  constructor(range: AbstractRange) {
    Object.assign(this, { startContainer: range.startContainer, startOffset: range.startOffset, endContainer: range.endContainer, endOffset: range.endOffset });
  }
};
