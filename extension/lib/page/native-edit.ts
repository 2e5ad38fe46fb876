/**
 * Replaces the document's selection with `text` (or deletes it) through the browser's own
 * editing, as the writer's typing would, so the page's undo and its editor's listeners see it.
 *
 * Where white space collapses, Chromium writes a space that collapsing could hide (beside a run
 * of formatting, at a text node's edge) as a no-break space, and editors then save `&nbsp;`
 * where the writer had a plain space: the text reads the same but no longer breaks there. Both
 * browsers write spaces as given where white space is preserved, so the editing host preserves
 * it for the moment of the edit, and gets its own style attribute back, byte for byte, after.
 */
export function editNatively(doc: Document, text: string): boolean {
  const host = editingHost(doc);
  const restore = host && collapsesWhiteSpace(host) ? preserveWhiteSpace(host) : undefined;
  try {
    return text ? doc.execCommand('insertText', false, text) : doc.execCommand('delete');
  } finally {
    restore?.();
  }
}

function editingHost(doc: Document): HTMLElement | undefined {
  if (doc.activeElement?.matches('textarea, input')) return undefined; // a field keeps its own spaces
  const node = doc.getSelection()?.anchorNode;
  let element = node ? (node instanceof Element ? node : node.parentElement) : null;
  if (!element) return undefined;
  if (doc.designMode === 'on') return doc.body ?? undefined;
  if (!(element instanceof HTMLElement) || !element.isContentEditable) element = element.closest<HTMLElement>('[contenteditable]');
  let host = element instanceof HTMLElement && element.isContentEditable ? element : undefined;
  while (host?.parentElement?.isContentEditable) host = host.parentElement;
  return host;
}

function collapsesWhiteSpace(element: HTMLElement): boolean {
  const style = element.ownerDocument.defaultView?.getComputedStyle(element);
  if (!style) return false;
  const collapse = style.getPropertyValue('white-space-collapse');
  return collapse ? collapse === 'collapse' : !/^(pre|break-spaces)/.test(style.whiteSpace);
}

function preserveWhiteSpace(host: HTMLElement): () => void {
  const attribute = host.getAttribute('style');
  host.style.setProperty('white-space', 'pre-wrap', 'important');
  return () => {
    if (attribute === null) host.removeAttribute('style');
    else host.setAttribute('style', attribute);
  };
}
