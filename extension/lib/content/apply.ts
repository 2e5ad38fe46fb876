import type { DomTarget, FieldTarget, Target } from './target.ts';

/**
 * Replaces [start, end) of the target's text the way typing would: select the range, then
 * `insertText`. Editors see an ordinary input, so their own model, state and undo stay
 * consistent (Ctrl/Cmd+Z restores the original); setting `value` or replacing DOM ranges
 * would bypass them.
 */
export async function replaceRange(target: Target, start: number, end: number, replacement: string): Promise<boolean> {
  if (!selectText(target, start, end, { focus: true })) return false;
  // Editors that mirror the DOM selection into their own state read it on selectionchange.
  if (target.kind !== 'field') await new Promise((resolve) => setTimeout(resolve, 0));
  return document.execCommand('insertText', false, replacement);
}

/**
 * Selects [start, end) of the target's text (a field always takes the focus to show it);
 * the element holding the start of the selection, or undefined when the range is gone.
 */
export function selectText(target: Target, start: number, end: number, { focus }: { focus: boolean }): Element | undefined {
  if (target.kind === 'field') {
    const field = (target as FieldTarget).element;
    field.focus({ preventScroll: true });
    field.setSelectionRange(start, end);
    return field;
  }
  const range = (target as DomTarget).model().range(start, end);
  if (!range) return undefined;
  if (focus) target.element.focus({ preventScroll: true });
  const selection = document.getSelection()!;
  selection.removeAllRanges();
  selection.addRange(range);
  return range.startContainer.parentElement ?? target.element;
}
