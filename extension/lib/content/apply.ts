import { askPage } from '../page/bridge.ts';
import type { Strategy } from './editors.ts';
import type { DomTarget, FieldTarget, Target } from './target.ts';

/**
 * Verified edits. A suggestion goes in through the editor's own input pipeline (or its API),
 * and is only called applied when the editor's text, read again through the same capture as
 * the check, is exactly the old text with the range replaced. Strategies are tried in the
 * family's order; one that changes nothing is followed by the next; one that changes something
 * else is rolled back before anything more is tried. Every wait is bounded in time, so an
 * editor that never settles (a background tab draws nothing) ends in `timeout`, not a hang.
 */

export type ApplyResult =
  | { status: 'applied'; strategy: Strategy }
  /** Nothing changed: the editor did not take the change. */
  | { status: 'refused' }
  /** The text no longer holds the expected original at the range. */
  | { status: 'stale' }
  /** The editor turned the suggestion into something else; that was rolled back, the text is as before. */
  | { status: 'reverted' }
  /** The editor did not settle in time (its tab draws no frames); the text is as before. */
  | { status: 'timeout' }
  /** The editor changed the text in another way, and it could not be rolled back. */
  | { status: 'unexpected' };

export interface ApplyLimits {
  /** The whole ladder, rollbacks included, ends by then. */
  budgetMs: number;
  /** How long the page may take to draw a frame before nothing is tried (a hidden tab never does). */
  frameMs: number;
}

// A background tab in Firefox still draws about once a second; in Chromium it does not draw.
export const APPLY_LIMITS: ApplyLimits = { budgetMs: 6000, frameMs: 2500 };

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Spaces an editor writes as no-break spaces (contenteditable does at the ends of runs). */
const comparable = (text: string) => text.replace(/\u00a0/g, ' ');

/** Whether the page draws a frame within `ms`: a background tab does not, and editors that render on frames then never settle. */
function drawsFrames(view: Window, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => (view.cancelAnimationFrame(frame), resolve(false)), ms);
    const frame = view.requestAnimationFrame(() => (clearTimeout(timer), resolve(true)));
  });
}

export async function applyVerified(
  target: Target,
  start: number,
  end: number,
  original: string,
  replacement: string,
  limits: ApplyLimits = APPLY_LIMITS,
): Promise<ApplyResult> {
  const before = target.readText();
  if (before.slice(start, end) !== original) return { status: 'stale' };
  const view = target.element.ownerDocument.defaultView ?? window;
  // Nothing is touched in a page that does not draw: a rich editor there could take an edit and
  // render it after the answer. A field's value changes at once, frames or not.
  if (target.kind !== 'field' && !(await drawsFrames(view, limits.frameMs))) return { status: 'timeout' };
  const deadline = performance.now() + limits.budgetMs;
  const expected = comparable(before.slice(0, start) + replacement + before.slice(end));
  const current = () => comparable(target.readText());
  /** Polls until `done` holds or `ms` pass (never past the deadline, but a rollback may); the text last read. */
  const waitFor = async (done: (text: string) => boolean, ms: number, bounded = true): Promise<string> => {
    const until = bounded ? Math.min(performance.now() + ms, deadline) : performance.now() + ms;
    let now = current();
    while (!done(now) && performance.now() < until) {
      await settle(25);
      now = current();
    }
    return now;
  };
  let claimed = false;
  let rolledBack = false;
  for (const strategy of target.family.strategies) {
    if (performance.now() >= deadline) return { status: 'timeout' };
    // An editor that took `beforeinput` or its API owns its DOM: editing that DOM directly would bypass its model.
    if (claimed && strategy === 'execCommand') continue;
    if (!selectText(target, start, end, { focus: true })) return { status: 'stale' };
    // Editors that mirror the DOM selection into their own state read it on selectionchange.
    await settle(target.kind === 'field' ? 0 : 20);
    const taken = run(strategy, target, replacement);
    claimed ||= strategy !== 'execCommand' && strategy !== 'paste' && taken;
    // Editors re-render from their model, or reconcile the DOM against it, after the event;
    // one that took the event gets longer, so a slow render is never followed by a second edit.
    // Editors handle a paste asynchronously, and may not cancel it (TinyMCE, measured): wait as long.
    let now = await waitFor((text) => text !== comparable(before), taken || strategy === 'paste' ? 1000 : 200);
    if (now === expected) {
      await settle(250); // an editor that reverts or rewrites a change it did not make does so by now
      now = current();
      if (now === expected) return { status: 'applied', strategy };
    }
    if (now !== comparable(before)) {
      if (!(await rollBack(target, before, strategy, (done, ms) => waitFor(done, ms, false)))) return { status: 'unexpected' };
      rolledBack = true;
    }
    if (performance.now() >= deadline) return { status: 'timeout' };
  }
  // Left selected, so the writer can paste the suggestion over it.
  selectText(target, start, end, { focus: true });
  return { status: rolledBack ? 'reverted' : 'refused' };
}

function run(strategy: Strategy, target: Target, text: string): boolean {
  const element = target.element;
  const doc = element.ownerDocument;
  switch (strategy) {
    case 'editor-api':
      return askPage(element, { op: 'insert', text });
    case 'execCommand':
      return text ? doc.execCommand('insertText', false, text) : doc.execCommand('delete');
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

/**
 * Puts back the text as it was before a strategy that changed it into something else: through
 * the editor's own undo first (its history stays clean), else by writing the changed part back
 * over it the same way. True when the text reads as before.
 */
async function rollBack(target: Target, before: string, strategy: Strategy, waitFor: (done: (text: string) => boolean, ms: number) => Promise<string>): Promise<boolean> {
  const doc = target.element.ownerDocument;
  const wanted = comparable(before);
  const back = (text: string) => text === wanted;
  target.element.focus({ preventScroll: true });
  const attempts = [
    ...(strategy === 'editor-api' ? [() => askPage(target.element, { op: 'undo' })] : []),
    () => target.element.dispatchEvent(new InputEvent('beforeinput', { inputType: 'historyUndo', bubbles: true, cancelable: true, composed: true })),
    () => doc.execCommand('undo'),
  ];
  for (const attempt of attempts) {
    attempt();
    if (back(await waitFor(back, 150))) return true;
  }
  const now = comparable(target.readText());
  let prefix = 0;
  while (prefix < now.length && prefix < wanted.length && now[prefix] === wanted[prefix]) prefix++;
  let suffix = 0;
  while (suffix < now.length - prefix && suffix < wanted.length - prefix && now[now.length - 1 - suffix] === wanted[wanted.length - 1 - suffix]) suffix++;
  if (!selectText(target, prefix, now.length - suffix, { focus: true })) return false;
  await settle(target.kind === 'field' ? 0 : 20);
  run(strategy, target, before.slice(prefix, before.length - suffix));
  return back(await waitFor(back, 1000));
}

/**
 * Selects [start, end) of the target's text (a field always takes the focus to show it);
 * the element holding the start of the selection, or undefined when the range is gone.
 */
export function selectText(target: Target, start: number, end: number, { focus }: { focus: boolean }): Element | undefined {
  if (target.kind === 'field') {
    const field = (target as FieldTarget).element;
    const offsets = (target as FieldTarget).fieldText();
    field.focus({ preventScroll: true });
    field.setSelectionRange(offsets.toValue(start), offsets.toValue(end, true));
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
