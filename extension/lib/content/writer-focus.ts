import { deepActiveElement, type DomTarget, type FieldTarget, type Target } from './target.ts';

/**
 * Where the writer's keys go, taken just before an apply moves the focus and the selection into
 * the editor, so it can be put back: their caret in the editor (where the text around it went),
 * or another field, editor or button of the page they were in. Putting it back returns false when
 * there was nothing to put back that still exists.
 */
export type RestoreFocus = () => boolean;

export function writerFocus(target: Target, start: number, end: number): RestoreFocus {
  const doc = target.element.ownerDocument;
  const active = deepActiveElement(doc);
  if (!active || active === doc.body || active === doc.documentElement) {
    // Focus nowhere: keys typed now must not land in the editor the apply focused.
    return () => {
      const now = deepActiveElement(doc);
      if (now instanceof HTMLElement && target.element.contains(now)) now.blur();
      return true;
    };
  }
  if (!target.element.contains(active)) return elsewhere(active);
  // An editor that keeps its own selection (a code editor) puts the writer's keys where its cursor is.
  if (target.select) return () => false;
  return target.kind === 'field' ? inField(target as FieldTarget, start, end) : inEditor(target as DomTarget, active, start, end);
}

/** The focus in an element that is not the target: focus it again, with the selection it had. */
function elsewhere(active: Element): RestoreFocus {
  const field = active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement ? active : undefined;
  let fieldSelection: [number, number, 'forward' | 'backward' | 'none'] | undefined;
  try {
    if (field && field.selectionStart !== null && field.selectionEnd !== null) fieldSelection = [field.selectionStart, field.selectionEnd, field.selectionDirection ?? 'none'];
  } catch {
    // An input type with no selection (a number, a date).
  }
  const selection = active.ownerDocument.getSelection();
  const range = !field && selection?.rangeCount ? selection.getRangeAt(0).cloneRange() : undefined;
  const ownRange = range && active.contains(range.commonAncestorContainer) ? range : undefined;
  return () => {
    if (!active.isConnected || !(active instanceof HTMLElement || active instanceof SVGElement)) return false;
    active.focus({ preventScroll: true });
    if (field && fieldSelection) field.setSelectionRange(...fieldSelection);
    if (ownRange && active.contains(ownRange.commonAncestorContainer)) {
      selection!.removeAllRanges();
      selection!.addRange(ownRange);
    }
    return true;
  };
}

/** Characters each side of the writer's caret that say where it is once the text changed. */
const CONTEXT = 32;

/**
 * Where offset `at` of `was` lies in `now`, after an apply changed [start, end) and the page
 * perhaps changed other places too (a co-author's words): at `expected`, the offset shifted by
 * the whole change in length, if the text around it (outside the sentence) is still there; else
 * nearest `expected` where that text is found, on both sides, or on one side if a change touched
 * the other; `expected` if it is found nowhere.
 */
export function placeAfter(was: string, now: string, at: number, start: number, end: number): number {
  // An editor may write a space beside the sentence as a no-break space.
  [was, now] = [was.replace(/\u00a0/g, ' '), now.replace(/\u00a0/g, ' ')];
  const expected = at >= end ? at + now.length - was.length : at;
  const [from, to] = at >= end ? [end, was.length] : [0, start];
  const [left, right] = [was.slice(Math.max(from, at - CONTEXT), at), was.slice(at, Math.min(to, at + CONTEXT))];
  const nearest = (needle: string, offset: number) => {
    let best: number | undefined;
    for (let i = now.indexOf(needle); needle && i !== -1; i = now.indexOf(needle, i + 1)) {
      if (best === undefined || Math.abs(i + offset - expected) < Math.abs(best - expected)) best = i + offset;
    }
    return best;
  };
  if (now.startsWith(left + right, expected - left.length)) return expected;
  return nearest(left + right, left.length) ?? nearest(right, 0) ?? nearest(left, left.length) ?? expected;
}

/** The writer's selection in the target field: put back, wherever the field's changes moved it, if it lay wholly before or after the sentence. */
function inField(target: FieldTarget, start: number, end: number): RestoreFocus {
  const field = target.element;
  const { selectionStart, selectionEnd, selectionDirection, value } = field;
  if (selectionStart === null || selectionEnd === null) return () => false;
  const offsets = target.fieldText();
  const [from, to] = [offsets.toValue(start), offsets.toValue(end, true)];
  return () => {
    if (selectionStart < to && selectionEnd > from) return false;
    const now = field.value;
    field.focus({ preventScroll: true });
    field.setSelectionRange(placeAfter(value, now, selectionStart, from, to), placeAfter(value, now, selectionEnd, from, to), selectionDirection ?? 'none');
    return true;
  };
}

/**
 * The writer's selection in the target editor. Kept as text offsets where it is in text (an
 * editor may redraw the nodes it was in), as a live range otherwise; put back only when it lay
 * wholly before or after the sentence, wherever the page's changes moved it.
 */
function inEditor(target: DomTarget, active: Element, start: number, end: number): RestoreFocus {
  const doc = target.element.ownerDocument;
  const selection = doc.getSelection();
  if (!selection?.rangeCount || !selection.anchorNode || !selection.focusNode) return () => false;
  const live = selection.getRangeAt(0).cloneRange();
  if (!target.element.contains(live.commonAncestorContainer)) return () => false;
  const model = target.model();
  const was = model.text;
  const anchor = model.offsetOf(selection.anchorNode, selection.anchorOffset);
  const focus = model.offsetOf(selection.focusNode, selection.focusOffset);
  const [low, high] = anchor !== undefined && focus !== undefined ? [Math.min(anchor, focus), Math.max(anchor, focus)] : [undefined, undefined];
  const editingHost = active instanceof HTMLElement ? active : target.element;
  return () => {
    if (!target.element.isConnected) return false;
    if (low !== undefined && high !== undefined) {
      if (low < end && high > start) return false;
      const now = target.model();
      const [from, to] = [now.position(placeAfter(was, now.text, anchor!, start, end)), now.position(placeAfter(was, now.text, focus!, start, end), focus! >= anchor!)];
      if (!from || !to) return false;
      editingHost.focus({ preventScroll: true });
      selection.setBaseAndExtent(from.node, from.offset, to.node, to.offset);
      tellEditor(doc);
      return true;
    }
    if (!target.element.contains(live.commonAncestorContainer)) return false;
    editingHost.focus({ preventScroll: true });
    selection.removeAllRanges();
    selection.addRange(live);
    tellEditor(doc);
    return true;
  };
}

/**
 * Tells an editor that mirrors the DOM selection into its own state of the caret just put back,
 * now rather than at the browser's `selectionchange` a task later: a co-author's transaction in
 * between would write the editor's stale selection (the end of the accepted words) back into the
 * DOM, and the writer's keys would go there (ProseMirror + Yjs in Firefox, about 1 run in 10).
 */
function tellEditor(doc: Document): void {
  doc.dispatchEvent(new Event('selectionchange'));
}
