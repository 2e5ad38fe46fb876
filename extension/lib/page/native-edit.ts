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
export function editNatively(doc: Document, text: string, editor?: Node): boolean {
  const scope = editor?.getRootNode();
  const shadow = scope instanceof ShadowRoot ? scope : undefined;
  const block = editedBlock(doc, shadow);
  const restore = block && collapsesWhiteSpace(block) ? preserveWhiteSpace(block, shadow) : undefined;
  try {
    return text ? doc.execCommand('insertText', false, text) : doc.execCommand('delete');
  } finally {
    restore?.();
  }
}

/**
 * The selection's range, inside `shadow` when the editor is in a shadow root: the document's own
 * selection gives a range in the document's tree there (around the shadow's host in Chromium).
 */
function selectedRange(doc: Document, shadow: ShadowRoot | undefined): AbstractRange | undefined {
  const selection = doc.getSelection();
  if (!shadow) return selection?.rangeCount ? selection.getRangeAt(0) : undefined;
  const composed = (selection as Selection & { getComposedRanges?(options: { shadowRoots: ShadowRoot[] }): StaticRange[] } | null)?.getComposedRanges?.({ shadowRoots: [shadow] })[0];
  if (composed) return composed;
  // Chromium before getComposedRanges: the shadow root's own selection.
  const own = (shadow as ShadowRoot & { getSelection?(): Selection | null }).getSelection?.();
  return own?.rangeCount ? own.getRangeAt(0) : undefined;
}

/** The innermost block of the editing host that holds the whole selection. */
function editedBlock(doc: Document, shadow: ShadowRoot | undefined): HTMLElement | undefined {
  if ((shadow?.activeElement ?? doc.activeElement)?.matches('textarea, input')) return undefined; // a field keeps its own spaces
  const range = selectedRange(doc, shadow);
  if (!range) return undefined;
  const common = range instanceof Range ? range.commonAncestorContainer : commonAncestor(range.startContainer, range.endContainer);
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

function commonAncestor(a: Node, b: Node): Node {
  for (let node: Node | null = a; node; node = node.parentNode) if (node.contains(b)) return node;
  return a;
}

function collapsesWhiteSpace(element: HTMLElement): boolean {
  const style = element.ownerDocument.defaultView?.getComputedStyle(element);
  if (!style) return false;
  const collapse = style.getPropertyValue('white-space-collapse');
  return collapse ? collapse === 'collapse' : !/^(pre|break-spaces)/.test(style.whiteSpace);
}

/**
 * A style sheet preserving `element`'s white space until the returned function removes it. In a
 * shadow root, where the document's style sheets do not reach, an adopted sheet of that root
 * (nothing in its DOM changes either), naming the element by its place under the root.
 */
function preserveWhiteSpace(element: HTMLElement, shadow: ShadowRoot | undefined): (() => void) | undefined {
  const doc = element.ownerDocument;
  const top = shadow ?? doc.documentElement;
  const path: string[] = [];
  for (let node: Element = element; ; ) {
    let index = 1;
    for (let sibling = node.previousElementSibling; sibling; sibling = sibling.previousElementSibling) index++;
    path.unshift(`:nth-child(${index})`);
    const parent = node.parentNode;
    if (parent === top) break;
    if (!(parent instanceof Element)) return undefined; // not in the document's own tree (or the shadow root's)
    node = parent;
  }
  const rule = `${shadow ? ':host' : ':root'} > ${path.join(' > ')} { white-space: pre-wrap !important; }`;
  if (shadow) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(rule);
    try {
      shadow.adoptedStyleSheets = [...shadow.adoptedStyleSheets, sheet];
    } catch {
      return undefined; // a sheet the page's root will not adopt (another world's): the edit goes in as the browser writes it
    }
    return () => {
      shadow.adoptedStyleSheets = shadow.adoptedStyleSheets.filter((adopted) => adopted !== sheet);
    };
  }
  const sheet = doc.createElement('style');
  sheet.textContent = rule;
  (doc.head ?? doc.documentElement).append(sheet);
  return () => sheet.remove();
}
