/**
 * The content script's line to the page's own world (entrypoints/editor-api.content.ts), where
 * editor instances and their undo managers live (TinyMCE `tinymce.get()`, CodeMirror 5's
 * `wrapper.CodeMirror`, Ace's `container.env.editor`). A request is a cancelable event on the
 * editor root with a JSON string as detail (only primitives cross between worlds); the
 * page-world script cancels it when an editor API did the work, and answers a question (the
 * text, the caret, an offset, boxes) with a reply event carrying a string. The page sees the request, as it sees any edit to its own
 * document; no reply is trusted without the read-back in apply.ts.
 */
export const PAGE_API_EVENT = 'redline:editor-api';
export const PAGE_REPLY_EVENT = 'redline:editor-api-reply';

export type PageRequest =
  /** Whether an editor API is reachable for this root; with `editor`, that editor's (one with no mark of its own in its DOM: RoosterJS). */
  | { op: 'probe'; editor?: 'RoosterJS' }
  /** Put text over the editor's selection (the document selection, or the code editor's own), as one undo step of the editor. */
  | { op: 'insert'; text: string }
  /** The document as the editor's model holds it (code editors, whose DOM shows only some lines). */
  | { op: 'read' }
  /** Select [start, end) of that document, in UTF-16 offsets, and scroll it into view. */
  | { op: 'select'; start: number; end: number }
  /** Mark these ranges with these classes (styled by `css`), in place of the layer's marks before; none clears them. */
  | { op: 'mark'; layer: string; marks: { start: number; end: number; className: string }[]; css: string }
  /** Where the document's caret is, or which offset is at a viewport point; the reply is the offset. */
  | { op: 'caret' }
  | { op: 'offsetAt'; x: number; y: number }
  /** The viewport boxes of [start, end)'s first and last characters; the reply is JSON `[left, top, right, bottom][]`. */
  | { op: 'boxes'; start: number; end: number }
  /** Handled when the editor around this root is read-only by its own state: its API's read-only mode, or Lexical's model (see editor-api.content.ts). */
  | { op: 'locked' };

/** True when the page-world script handled the request through an editor API. */
export function askPage(root: HTMLElement, request: PageRequest): boolean {
  if (dispatch(root, request)) return true;
  // A frame whose document the editor wrote itself (TinyMCE's iframe) lost the page-world
  // listener with it (document.open erases listeners): ask at the frame's element, in the parent.
  // (Not `instanceof Element`: the frame's element belongs to the parent's window.)
  const frame = root.ownerDocument.defaultView?.frameElement;
  return frame?.nodeType === Node.ELEMENT_NODE ? dispatch(frame, request) : false;
}

/** The editor's document through its API, or undefined when no editor API answers for this root. */
export function readThroughPage(root: HTMLElement): string | undefined {
  return askPageFor(root, { op: 'read' });
}

/** The page-world script's reply to a request, or undefined when no editor API answered. */
export function askPageFor(root: HTMLElement, request: PageRequest): string | undefined {
  let reply: string | undefined;
  const take = (event: Event) => {
    const detail = (event as CustomEvent<unknown>).detail;
    if (typeof detail === 'string') reply = detail;
  };
  root.addEventListener(PAGE_REPLY_EVENT, take);
  try {
    return dispatch(root, request) ? reply : undefined;
  } finally {
    root.removeEventListener(PAGE_REPLY_EVENT, take);
  }
}

function dispatch(target: Element, request: PageRequest): boolean {
  const event = new CustomEvent(PAGE_API_EVENT, { detail: JSON.stringify(request), bubbles: true, cancelable: true, composed: true });
  target.dispatchEvent(event);
  return event.defaultPrevented;
}
