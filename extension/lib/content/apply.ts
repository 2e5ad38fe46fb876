import type { Strategy } from './editors.ts';
import type { DomTarget, FieldTarget, Target } from './target.ts';

/**
 * Verified edits. A suggestion goes in through the editor's own input pipeline, and is only
 * called applied when the editor's text, read again through the same capture as the check,
 * is exactly the old text with the range replaced. Strategies are tried in the family's
 * order; one that changes nothing is followed by the next; one that changes something else
 * is rolled back before anything more is tried.
 */

export type ApplyResult =
  | { status: 'applied'; strategy: Strategy }
  /** Nothing changed: the editor did not take the change. */
  | { status: 'refused' }
  /** The text no longer holds the expected original at the range. */
  | { status: 'stale' }
  /** The editor changed the text in another way, and it could not be rolled back. */
  | { status: 'unexpected' };

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Spaces an editor writes as no-break spaces (contenteditable does at the ends of runs). */
const comparable = (text: string) => text.replace(/\u00a0/g, ' ');

export async function applyVerified(target: Target, start: number, end: number, original: string, replacement: string): Promise<ApplyResult> {
  const before = target.readText();
  if (before.slice(start, end) !== original) return { status: 'stale' };
  const expected = comparable(before.slice(0, start) + replacement + before.slice(end));
  const current = () => comparable(target.readText());
  let claimed = false;
  for (const strategy of target.family.strategies) {
    // An editor that took `beforeinput` owns its DOM: editing that DOM directly would bypass its model.
    if (claimed && strategy === 'execCommand') continue;
    if (!selectText(target, start, end, { focus: true })) return { status: 'stale' };
    // Editors that mirror the DOM selection into their own state read it on selectionchange.
    await settle(target.kind === 'field' ? 0 : 20);
    const taken = run(strategy, target, replacement);
    claimed ||= strategy === 'beforeinput' && taken;
    // Editors re-render from their model, or reconcile the DOM against it, after the event;
    // one that took the event gets longer, so a slow render is never followed by a second edit.
    let now = current();
    // Editors handle a paste asynchronously, and may not cancel it (TinyMCE, measured): wait as long.
    const patience = taken || strategy === 'paste' ? 1000 : 200;
    for (let waited = 0; now === comparable(before) && waited < patience; waited += 25) {
      await settle(25);
      now = current();
    }
    if (now === expected) {
      await settle(250); // an editor that reverts a change it did not make does so by now
      now = current();
      if (now === expected) return { status: 'applied', strategy };
    }
    if (now !== comparable(before) && !(await rollBack(target, before))) return { status: 'unexpected' };
  }
  // Left selected, so the writer can paste the suggestion over it.
  selectText(target, start, end, { focus: true });
  return { status: 'refused' };
}

function run(strategy: Strategy, target: Target, text: string): boolean {
  const element = target.element;
  const doc = element.ownerDocument;
  switch (strategy) {
    case 'execCommand':
      return doc.execCommand('insertText', false, text);
    case 'beforeinput': {
      const selection = doc.getSelection();
      const range = selection?.rangeCount ? selection.getRangeAt(0) : undefined;
      const data = new DataTransfer();
      data.setData('text/plain', text);
      const event = new InputEvent('beforeinput', {
        inputType: 'insertText',
        data: text,
        bubbles: true,
        cancelable: true,
        composed: true,
        targetRanges: range ? [new StaticRange(range)] : [],
      });
      (range?.startContainer.parentElement ?? element).dispatchEvent(event);
      return event.defaultPrevented;
    }
    case 'paste': {
      const data = new DataTransfer();
      data.setData('text/plain', text);
      const event = new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true, composed: true });
      (doc.getSelection()?.anchorNode?.parentElement ?? element).dispatchEvent(event);
      return event.defaultPrevented;
    }
  }
}

/** Undo whatever a failed strategy left, through the editor's own undo; true when the text is back. */
async function rollBack(target: Target, before: string): Promise<boolean> {
  const doc = target.element.ownerDocument;
  target.element.focus({ preventScroll: true });
  const attempts = [
    () => target.element.dispatchEvent(new InputEvent('beforeinput', { inputType: 'historyUndo', bubbles: true, cancelable: true, composed: true })),
    () => doc.execCommand('undo'),
  ];
  for (const attempt of attempts) {
    attempt();
    await settle(60);
    if (comparable(target.readText()) === comparable(before)) return true;
  }
  return false;
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
  const selection = target.element.ownerDocument.getSelection()!;
  selection.removeAllRanges();
  selection.addRange(range);
  return range.startContainer.parentElement ?? target.element;
}
