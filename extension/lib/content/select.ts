import { focusEditor, type DomTarget, type FieldTarget, type Target } from './target.ts';

/**
 * Selects [start, end) of the target's text (a field always takes the focus to show it);
 * the element holding the start of the selection, or undefined when the range is gone.
 */
export function selectText(target: Target, start: number, end: number, { focus }: { focus: boolean }): Element | undefined {
  if (target.select) return target.select(start, end) ? target.element : undefined;
  if (target.kind === 'field') {
    const field = (target as FieldTarget).element;
    const offsets = (target as FieldTarget).fieldText();
    field.focus({ preventScroll: true });
    field.setSelectionRange(offsets.toValue(start), offsets.toValue(end, true));
    return field;
  }
  const range = (target as DomTarget).model().range(start, end);
  if (!range) return undefined;
  if (focus) {
    focusEditor(target.element, range.startContainer);
    // Firefox fires no focus events in a document that does not have the focus (the writer is in
    // the sidebar): an editor that follows the DOM selection only once it has seen the focus
    // (Draft.js, through React's onSelect) would keep its old caret and put the text there.
    const doc = target.element.ownerDocument;
    if (!doc.hasFocus()) doc.activeElement?.dispatchEvent(new FocusEvent('focusin', { bubbles: true, composed: true }));
  }
  const selection = target.element.ownerDocument.getSelection()!;
  selection.removeAllRanges();
  selection.addRange(range);
  return range.startContainer.parentElement ?? target.element;
}
