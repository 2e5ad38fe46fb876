/**
 * Replaces the document's selection with `text` (or deletes it) through the browser's own
 * editing, as the writer's typing would, so the page's undo and its editor's listeners see it.
 *
 * Where white space collapses, Chromium writes a space that collapsing could hide (beside a run
 * of formatting, at a text node's edge) as a no-break space, and editors then save `&nbsp;`
 * where the writer had a plain space: the text reads the same but no longer breaks there. Both
 * browsers write spaces as given where white space is preserved, so the block being edited
 * preserves it for the moment of the edit, by a style sheet that names it by its place in the
 * document: nothing in the editor's DOM changes but the edit (a style attribute on its
 * paragraph, even put back, was recorded by Jodit's history as a step of its own), and only
 * that block is laid out again (the whole editor took 40 ms a part in a 10,000-word document).
 */
export function editNatively(doc: Document, text: string): boolean {
  const block = editedBlock(doc);
  const restore = block && collapsesWhiteSpace(block) ? preserveWhiteSpace(block) : undefined;
  try {
    return text ? doc.execCommand('insertText', false, text) : doc.execCommand('delete');
  } finally {
    restore?.();
  }
}

/** The innermost block of the editing host that holds the whole selection. */
function editedBlock(doc: Document): HTMLElement | undefined {
  if (doc.activeElement?.matches('textarea, input')) return undefined; // a field keeps its own spaces
  const selection = doc.getSelection();
  if (!selection?.rangeCount) return undefined;
  const common = selection.getRangeAt(0).commonAncestorContainer;
  let element = (common.nodeType === Node.ELEMENT_NODE ? common : common.parentElement) as HTMLElement | null;
  const view = doc.defaultView;
  while (element && view) {
    if (!element.isContentEditable) return undefined; // also not an HTML element
    const display = view.getComputedStyle(element).display;
    const isHost = doc.designMode === 'on' ? element === doc.body : !element.parentElement?.isContentEditable;
    if (isHost || (display !== 'inline' && display !== 'contents')) return element;
    element = element.parentElement as HTMLElement | null;
  }
  return undefined;
}

function collapsesWhiteSpace(element: HTMLElement): boolean {
  const style = element.ownerDocument.defaultView?.getComputedStyle(element);
  if (!style) return false;
  const collapse = style.getPropertyValue('white-space-collapse');
  return collapse ? collapse === 'collapse' : !/^(pre|break-spaces)/.test(style.whiteSpace);
}

/** A style sheet preserving `element`'s white space until the returned function removes it; none in a shadow root. */
function preserveWhiteSpace(element: HTMLElement): (() => void) | undefined {
  const doc = element.ownerDocument;
  const path: string[] = [];
  for (let node: Element | null = element; node !== doc.documentElement; node = node.parentElement) {
    if (!node) return undefined; // not in the document's own tree
    let index = 1;
    for (let sibling = node.previousElementSibling; sibling; sibling = sibling.previousElementSibling) index++;
    path.unshift(`:nth-child(${index})`);
  }
  const sheet = doc.createElement('style');
  sheet.textContent = `:root > ${path.join(' > ')} { white-space: pre-wrap !important; }`;
  (doc.head ?? doc.documentElement).append(sheet);
  return () => sheet.remove();
}
