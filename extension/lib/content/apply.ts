import { askPage } from '../page/bridge.ts';
import { editNatively } from '../page/native-edit.ts';
import type { Strategy } from './editors.ts';
import { isReadOnly, type DomTarget, type Target } from './target.ts';
import { HIDDEN_MARKUP, SPACER, type DomText } from './dom-text.ts';
import { cutAtHiddenMarkup, editRegions, runsRemovedFirst, shortestChange, type EditRegion } from './edit-regions.ts';
import { APPLY_LIMITS, type ApplyLimits } from './apply-limits.ts';
import { selectText } from './select.ts';
import { keptBeside, readRange, type RangeReading } from './region-in-text.ts';
import { writerFocus, type RestoreFocus } from './writer-focus.ts';

/**
 * Verified edits. A suggestion goes in through the editor's own input pipeline (or its API),
 * and is only called applied when the editor's text, read again through the same capture as
 * the check, is exactly the old text with the range replaced. Strategies are tried in the
 * family's order; one that changes nothing is followed by the next; one that changes something
 * else is rolled back before anything more is tried. Every wait is bounded in time, so an
 * editor that never settles (a background tab draws nothing) ends in `timeout`, not a hang.
 *
 * Not in the content script itself: loaded on demand (entrypoints/apply.ts) at the first accept.
 */

export type ApplyResult =
  /** `at`: where the suggestion now starts (the writer may have typed before it meanwhile). */
  | { status: 'applied'; strategy: Strategy; at: number }
  /** Nothing changed: the editor did not take the change. */
  | { status: 'refused' }
  /** Nothing tried: the field or editor is read-only now (see `isReadOnly`). */
  | { status: 'locked' }
  /** The text no longer holds the expected original at the range. */
  | { status: 'stale' }
  /** The editor turned the suggestion into something else; that was rolled back, the text is as before. */
  | { status: 'reverted' }
  /** The editor did not settle in time (its tab draws no frames); the text is as before. */
  | { status: 'timeout' }
  /** The editor changed the text in another way, and it could not be rolled back. */
  | { status: 'unexpected' }
  /** The writer typed (or pasted, dropped, clicked) in the page meanwhile: nothing more was tried, nothing rolled back; the sentence is as it was. */
  | { status: 'interrupted' }
  /** As `interrupted`, but the writer's input (or a co-author's, at the edge of the range) and the suggestion met at the sentence: it is left as it is, to be checked. */
  | { status: 'overlapped' }
  /** Nothing tried: the words to replace hold an image, an embed or a non-editable item (a mention) that the rewrite would remove. */
  | { status: 'embedded' };

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Spaces an editor writes as no-break spaces (contenteditable does at the ends of runs). */
const comparable = (text: string) => text.replace(/\u00a0/g, ' ');

/** The writer's input as an apply sees it. */
interface Writer {
  /** They typed (or pasted, dropped, clicked) in the page since the apply touched the selection. */
  readonly typed: boolean;
  /** When their last input in the page came (`performance.now()`), before or after that. */
  readonly lastInputAt: number;
  /** From now on, input counts as `typed` (and puts their focus back). */
  arm(): void;
  /** Puts back the focus and selection they had when the apply was armed, unless they already took it back. */
  restore(): void;
  stop(): void;
}

const INPUT_EVENTS = ['keydown', 'pointerdown', 'paste', 'drop', 'cut', 'compositionstart'];
const MODIFIER_KEYS = /^(Shift|Control|Alt|Meta|CapsLock)$/;

/**
 * Notices the writer's own input anywhere in the editor's page while an apply runs (trusted
 * events only: the apply's own synthetic events are not trusted): in the editor, or in another
 * field they are typing in while the suggestion goes in. From then on the apply touches nothing
 * more. At their first key or paste, the focus and selection they had are put back before the
 * key acts (writer-focus.ts), so what they type goes where they were typing, not over the
 * sentence the apply selected, nor into the editor the apply focused.
 */
function watchWriter(target: Target, start: number, end: number): Writer {
  const doc = target.element.ownerDocument;
  let typed = false;
  let restore: RestoreFocus | undefined;
  let restored = false;
  let lastInputAt = -Infinity;
  const putBack = () => {
    if (!restore || restored) return;
    restored = true;
    restore();
  };
  const notice = (event: Event) => {
    if (!event.isTrusted || MODIFIER_KEYS.test((event as KeyboardEvent).key ?? '')) return;
    lastInputAt = performance.now();
    if (!restore) return;
    // A click or a drop puts the focus where the writer wants it by itself.
    if (event.type === 'pointerdown' || event.type === 'drop') restored = true;
    else putBack();
    typed = true;
  };
  for (const type of INPUT_EVENTS) doc.addEventListener(type, notice, true);
  return {
    get typed() {
      return typed;
    },
    get lastInputAt() {
      return lastInputAt;
    },
    // The writer's focus as it is now, just before the apply moves it.
    arm: () => (restore = writerFocus(target, start, end)),
    restore: putBack,
    stop: () => INPUT_EVENTS.forEach((type) => doc.removeEventListener(type, notice, true)),
  };
}

/** The region where `a` and `b` differ, in `a`'s offsets: [start, end). */
function changed(a: string, b: string): [number, number] {
  const { start, end } = shortestChange(a, b);
  return [start, end];
}

/**
 * After the writer's input, what the text says without touching it: the suggestion in place
 * with the writer's edit elsewhere (`applied`), the sentence as it was (`interrupted`), or
 * they met (`overlapped`). Each reading allows one edited region, the writer's, away from the
 * sentence; a text that both readings (or neither) explain is `overlapped`: nothing is claimed.
 */
export function judgeAfterInput(now: string, before: string, expected: string, start: number, end: number, inserted: number, strategy: Strategy): ApplyResult {
  /** How far the writer's edit moved [from, to) of `text`, if `now` is `text` with one edit away from it. */
  const shiftAround = (text: string, from: number, to: number) => {
    const [a, b] = changed(text, now);
    return b <= from && (a < b || text.length !== now.length) ? now.length - text.length : a >= to || text === now ? 0 : undefined;
  };
  const applied = shiftAround(expected, start, start + inserted);
  const untouched = shiftAround(before, start, end) !== undefined;
  if (applied !== undefined && !untouched) return { status: 'applied', strategy, at: start + applied };
  return untouched && applied === undefined ? { status: 'interrupted' } : { status: 'overlapped' };
}

/** Whether the page draws a frame within `ms`: a background tab does not, and editors that render on frames then never settle. */
function drawsFrames(view: Window, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => (view.cancelAnimationFrame(frame), resolve(false)), ms);
    const frame = view.requestAnimationFrame(() => (clearTimeout(timer), resolve(true)));
  });
}

/**
 * Replaces [start, end) (`original`) with `replacement`, changing only the words the
 * replacement rewrites (edit-regions.ts): the words between keep their formatting, as they
 * would under the writer's own edit. Parts that formatting separates go in one by one, last
 * first; if one is not taken, those already in are put back, so the sentence is whole either
 * way. `at` is where the sentence now starts.
 */
export async function applyVerified(
  target: Target,
  start: number,
  end: number,
  original: string,
  replacement: string,
  limits: ApplyLimits = APPLY_LIMITS,
): Promise<ApplyResult> {
  if (original === replacement) return applyRange(target, start, end, original, replacement, limits);
  // The parts are found with the space before the sentence lent to them (and written back as it
  // was): a part at the sentence's start can then begin in that space rather than at the
  // formatting of the sentence's first word. Deleting an italic opener ("*Moreover*, o…" → "O…")
  // otherwise replaced it with the next word's first letter, which took the italic.
  // A rich editor's text model, walked once for what follows; a field or a code editor is plain text.
  const model = target.kind === 'field' || target.select ? undefined : (target as DomTarget).model();
  const lead = spaceBefore(model, start);
  const from = start - lead.length;
  const parts = editRegions(lead + original, lead + replacement, joinableIn(model, from), linkEndsIn(model, from), formattedAlikeIn(model, from));
  const regions = model ? cutAtHiddenMarkup(lead + original, parts, hiddenMarkupIn(target.element, model, from)) : parts;
  // An item with no text of its own (an image) or text the writer cannot edit (a mention chip)
  // inside the words a part replaces would go with them, while the text read back looks right.
  if (model && regions.some((region) => holdsEmbed(target.element, model, from + region.start, from + region.end))) return { status: 'embedded' };
  const result = await applyRegions(target, from, lead + original, regions, limits);
  // Not applied, the text as before: the whole sentence is left selected (not just the part
  // tried), so the writer can paste the suggestion over it.
  if (result.status === 'refused' || result.status === 'reverted') selectText(target, start, end, { focus: true });
  return result.status === 'applied' ? { ...result, at: result.at + lead.length } : result;
}

/**
 * The space just before a rich editor's sentence, if the sentence follows another in its
 * paragraph; else nothing (a field has no formatting to avoid, and a paragraph's start has no
 * space before it to take).
 */
function spaceBefore(model: DomText | undefined, start: number): string {
  const before = start > 0 ? model?.text[start - 1] : undefined;
  return before === ' ' || before === '\u00a0' ? before : '';
}

/** The parts of a rewrite (edit-regions.ts) applied last first; those in are put back if one is not taken. */
async function applyRegions(target: Target, start: number, original: string, regions: readonly EditRegion[], limits: ApplyLimits): Promise<ApplyResult> {
  const until = performance.now() + limits.budgetMs;
  const applied: { region: EditRegion; at: number }[] = [];
  let shift = 0; // the writer's typing before the sentence meanwhile
  let sentence = original; // as it reads with the parts in so far
  let last: ApplyResult | undefined;
  for (const region of [...regions].reverse()) {
    const budgetMs = until - performance.now();
    last =
      budgetMs < MIN_REGION_BUDGET_MS && applied.length > 0
        ? { status: 'timeout' }
        : await applyRange(target, start + shift + region.start, start + shift + region.end, original.slice(region.start, region.end), region.text, { ...limits, budgetMs }, {
            start: start + shift,
            text: sentence,
          });
    if (last.status !== 'applied') {
      if (applied.length === 0) return last;
      // The writer's input came between two parts: nothing more is touched, the sentence is left to be checked.
      if (last.status === 'interrupted' || last.status === 'overlapped') return { status: 'overlapped' };
      return (await putBack(target, original, applied, limits)) ? last : { status: 'unexpected' };
    }
    shift = last.at - start - region.start;
    sentence = sentence.slice(0, region.start) + region.text + sentence.slice(region.end);
    applied.push({ region, at: last.at });
  }
  return { ...(last as Extract<ApplyResult, { status: 'applied' }>), at: start + shift };
}

/** A part is not begun with less time than this left (once one is in: the first has the whole budget). */
const MIN_REGION_BUDGET_MS = 1000;

/**
 * Puts back the parts already applied (in the order applied: rightmost first, so putting one
 * back moves none of the others); true when all are back.
 */
async function putBack(target: Target, original: string, applied: readonly { region: EditRegion; at: number }[], limits: ApplyLimits): Promise<boolean> {
  const growth = ({ region }: { region: EditRegion }) => region.text.length - (region.end - region.start);
  for (const [i, { region, at }] of applied.entries()) {
    // Parts applied after this one lie before it and moved it by their change in length.
    const now = at + applied.slice(i + 1).reduce((sum, later) => sum + growth(later), 0);
    const result = await applyRange(target, now, now + region.text.length, region.text, original.slice(region.start, region.end), { ...limits, budgetMs: ROLLBACK_BUDGET_MS });
    if (result.status !== 'applied') return false;
  }
  return true;
}

const ROLLBACK_BUDGET_MS = 2000;

/**
 * Whether [start, end) of the sentence can be replaced as one: in a field or a code editor
 * always (plain text), in a rich editor when it lies in one text node (no formatting begins or
 * ends in it).
 */
function joinableIn(model: DomText | undefined, offset: number): (start: number, end: number) => boolean {
  if (!model) return () => true;
  return (start, end) => {
    const range = model.range(offset + start, offset + end);
    return range !== undefined && range.startContainer === range.endContainer && range.startContainer.nodeType === Node.TEXT_NODE;
  };
}

/**
 * Where hidden markup (HIDDEN_MARKUP) lies strictly inside [start, end) of the sentence: the
 * offset of the first character after it. Not markup whose node the range holds whole (its pair
 * goes with it, as when the words of a whole bold run are replaced).
 */
function hiddenMarkupIn(root: HTMLElement, model: DomText, offset: number): (start: number, end: number) => number[] {
  const markers = [...root.querySelectorAll(HIDDEN_MARKUP)].filter((marker) => /[^\s\u200b\u2060\ufeff]/.test(marker.textContent ?? ''));
  if (markers.length === 0) return () => [];
  return (start, end) => {
    const range = model.range(offset + start, offset + end);
    if (!range) return [];
    const cuts = new Set<number>();
    for (const marker of markers) {
      if (!range.intersectsNode(marker) || (marker.parentElement && holdsWhole(range, marker.parentElement))) continue;
      const around = marker.ownerDocument.createRange();
      around.selectNode(marker);
      const isAfter = (at: number) => {
        const point = model.position(offset + at);
        return point !== undefined && around.comparePoint(point.node, point.offset) === 1;
      };
      let low = start + 1;
      let high = end;
      while (low < high) {
        const mid = (low + high) >>> 1;
        if (isAfter(mid)) high = mid;
        else low = mid + 1;
      }
      if (low < end && isAfter(low)) cuts.add(low);
    }
    return [...cuts].sort((a, b) => a - b);
  };
}

function holdsWhole(range: Range, node: Node): boolean {
  const whole = node.ownerDocument!.createRange();
  whole.selectNodeContents(node);
  return range.compareBoundaryPoints(Range.START_TO_START, whole) <= 0 && range.compareBoundaryPoints(Range.END_TO_END, whole) >= 0;
}

/** Whether the characters at two offsets of the sentence have the same formatting: the same element holds their text. */
function formattedAlikeIn(model: DomText | undefined, offset: number): (a: number, b: number) => boolean {
  if (!model) return () => true;
  const holder = (at: number) => model.range(offset + at, offset + at + 1)?.startContainer.parentElement;
  return (a, b) => holder(a) === holder(b);
}

/** Whether a link's text ends at an offset of the sentence: the character before it is a link's, the one after is not that link's. */
function linkEndsIn(model: DomText | undefined, offset: number): (at: number) => boolean {
  if (!model) return () => false;
  const linkAt = (at: number) => model.range(offset + at, offset + at + 1)?.startContainer.parentElement?.closest('a');
  return (at) => {
    const link = at > 0 ? linkAt(at - 1) : undefined;
    return link != null && linkAt(at) !== link;
  };
}

/** The whole sentence a part of a rewrite lies in, as it must read for the part to go in. */
interface Sentence {
  start: number;
  text: string;
}

/** Elements a text edit over them would delete though the captured text does not show them whole. */
const EMBEDS = 'img, picture, video, audio, iframe, object, embed, canvas, svg, input, select, textarea, button, [contenteditable="false"]';

/** Whether [start, end) of a rich editor's text (`model`, of `root`) holds an embed (see EMBEDS) whole, or some of its text. */
function holdsEmbed(root: HTMLElement, model: DomText, start: number, end: number): boolean {
  const range = model.range(start, end);
  if (!range) return false;
  for (const embed of root.querySelectorAll(EMBEDS)) {
    // A spacer by an inline element is no content of the writer's (dom-text.ts).
    if (!range.intersectsNode(embed) || embed.matches(SPACER)) continue;
    const part = embed.ownerDocument.createRange();
    part.selectNode(embed);
    const startsBefore = range.compareBoundaryPoints(Range.START_TO_START, part) <= 0;
    const endsAfter = range.compareBoundaryPoints(Range.END_TO_END, part) >= 0;
    if (startsBefore && endsAfter) return true;
    // Only touching it (a range that ends at the start of a mention's text) takes nothing of it.
    if (!startsBefore) part.setStart(range.startContainer, range.startOffset);
    if (!endsAfter) part.setEnd(range.endContainer, range.endOffset);
    if (part.toString() !== '') return true;
  }
  return false;
}

async function applyRange(
  target: Target,
  start: number,
  end: number,
  original: string,
  replacement: string,
  limits: ApplyLimits,
  sentence: Sentence = { start, text: original },
): Promise<ApplyResult> {
  // Watched from before the text is read: the writer's input at any moment after it is seen.
  const writer = watchWriter(target, start, end);
  try {
    const before = target.readText();
    // The page may have moved the sentence since it was read (a co-author's words before it).
    const moved = placeOf(before, sentence);
    if (moved === undefined) return { status: 'stale' };
    [start, end, sentence] = [start + moved, end + moved, { start: sentence.start + moved, text: sentence.text }];
    const view = target.element.ownerDocument.defaultView ?? window;
    // Nothing is touched in a page that does not draw: a rich editor there could take an edit and
    // render it after the answer. A field's value changes at once, frames or not.
    if (target.kind !== 'field' && !(await drawsFrames(view, limits.frameMs))) return { status: 'timeout' };
    const result = await applyWatched(target, start, end, sentence, before, replacement, limits, writer, moved !== 0);
    // The writer's focus goes back where it was, except where the sentence is left selected for them to paste over.
    if (result.status !== 'refused' && result.status !== 'reverted') writer.restore();
    return result;
  } finally {
    writer.stop();
  }
}

/**
 * How far the sentence moved in `text`: 0 where it was; else, where the page's own changes (a
 * co-author's words) moved it, if it is found once in the text; undefined if not.
 */
function placeOf(text: string, sentence: Sentence): number | undefined {
  // As everywhere here, a no-break space an editor wrote for a space (beside a part just applied) reads as a space.
  const [now, wanted] = [comparable(text), comparable(sentence.text)];
  if (now.startsWith(wanted, sentence.start)) return 0;
  const at = now.indexOf(wanted);
  return at !== -1 && now.indexOf(wanted, at + 1) === -1 ? at - sentence.start : undefined;
}

/**
 * How long the writer's input must have paused before the sentence is selected. An editor that
 * renders after an edit (Slate) sets its own selection a moment after the suggestion goes in; a
 * key typed in that moment would land at the suggestion, not where the writer was typing.
 */
const WRITER_QUIET_MS = 300;

async function applyWatched(
  target: Target,
  start: number,
  end: number,
  sentence: Sentence,
  textAsked: string,
  replacement: string,
  limits: ApplyLimits,
  writer: Writer,
  pageMoved: boolean,
): Promise<ApplyResult> {
  const deadline = performance.now() + limits.budgetMs;
  /**
   * The page changes its text by itself (a co-author's words arriving in a shared document),
   * seen before anything was tried: then changes away from the range are the page's, the range
   * is judged alone, and only a change of the range alone is put back. Otherwise the whole text
   * must be as expected, and any other change is the editor's answer to the edit (one that put the
   * words in the wrong place) and is put back.
   */
  let live = pageMoved;
  // While the writer is typing, wait for a pause.
  const waitingSince = performance.now();
  while (performance.now() - Math.max(writer.lastInputAt, waitingSince) < WRITER_QUIET_MS && performance.now() < deadline) await settle(25);
  // The text every later step compares with (and a rollback restores) is the text as it is now,
  // never as it was when the apply was asked for: their typing since then is theirs to keep.
  const before = target.readText();
  if (comparable(before) !== comparable(textAsked)) {
    // If their typing changed the text meanwhile, nothing is tried.
    if (writer.lastInputAt > -Infinity) return { status: 'interrupted' };
    // Changed by the page itself: the sentence is looked for again.
    const moved = placeOf(before, sentence);
    if (moved === undefined) return { status: 'stale' };
    [start, end] = [start + moved, end + moved];
    live = true;
  }
  if (performance.now() >= deadline) return { status: 'timeout' };
  writer.arm();
  const expected = comparable(before.slice(0, start) + replacement + before.slice(end));
  const current = () => comparable(target.readText());
  const base = comparable(before);
  // The text may also change away from the range meanwhile, not by the writer's hand nor the
  // editor's answer (a co-author's words arriving in a shared document): judged as the range alone.
  const read = (text: string): RangeReading =>
    text === expected ? { holds: 'replacement', at: start } : text === base ? { holds: 'original', at: start } : live ? readRange(base, text, start, end, comparable(replacement)) : { holds: 'other' };
  const holdsReplacement = (text: string) => read(text).holds === 'replacement';
  // An editor may still render the suggestion a frame or two after the writer's input: judged after that.
  const judge = async (strategy: Strategy) => (await settle(150), judgeAfterInput(current(), comparable(before), expected, start, end, replacement.length, strategy));
  /** Polls until `done` holds or `ms` pass (never past the deadline, but a rollback may); the text last read. */
  const waitFor = async (done: (text: string) => boolean, ms: number, bounded = true): Promise<string> => {
    const until = bounded ? Math.min(performance.now() + ms, deadline) : performance.now() + ms;
    let now = current();
    while (!done(now) && performance.now() < until && !writer.typed) {
      await settle(25);
      now = current();
    }
    return now;
  };
  let claimed = false;
  let rolledBack = false;
  for (const strategy of target.family.strategies) {
    if (writer.typed) return judge(strategy);
    if (performance.now() >= deadline) return { status: 'timeout' };
    // An editor that took `beforeinput` or its API owns its DOM: editing that DOM directly would bypass its model.
    if (claimed && strategy === 'execCommand') continue;
    // The range is where the text now has it (the page may have changed before it meanwhile).
    const text = current();
    live ||= text !== base;
    const reading = read(text);
    if (reading.holds === 'either') return { status: 'unexpected' };
    if (reading.holds !== 'original') return { status: 'stale' };
    const [from, to] = [reading.at, reading.at + end - start];
    // Read-only now (Lexical's `setEditable(false)` ignores the writer's typing but would read a
    // native edit from its DOM into its model): nothing is tried, and the writer is told why.
    // Asked before any strategy selects anything (an editor's API refuses a read-only editor too,
    // but only after the part was selected).
    if (isReadOnly(target)) return { status: 'locked' };
    if (!selectText(target, from, to, { focus: true })) return { status: 'stale' };
    // Editors that mirror the DOM selection into their own state read it on selectionchange.
    // A field needs no wait, and gets none: the writer's next keystroke cannot fall in between.
    // (Not before the editor's API: it takes the DOM range as set, before an editor can move it.)
    if (target.kind !== 'field' && strategy !== 'editor-api') await settle(20);
    if (writer.typed) return judge(strategy);
    const selected = current();
    live ||= selected !== text;
    // Changed at the range's edge while it was selected (a co-author typing just before it): the
    // editor may have taken their word into the selection (Quill does), and the edit would delete it.
    if (read(selected).holds !== 'original') return { status: 'stale' };
    let taken: boolean;
    const deletion = strategy === 'beforeinput' && target.family.deletesThroughBeforeinput ? onlyDeletes(before.slice(start, end), replacement) : undefined;
    if (deletion) {
      // A letter written back at a link's end goes after the link (Lexical): the part is deleted as Backspace over it would.
      if (!selectText(target, from + deletion.start, from + deletion.end, { focus: true })) return { status: 'stale' };
      await settle(20);
      if (writer.typed) return judge(strategy);
      taken = dispatchBeforeinput(target, 'deleteContentBackward');
    } else if (strategy === 'execCommand' && target.family.marksFromChangeStart) {
      const prepared = await editForChangeStart(target as DomTarget, from, to, before.slice(start, end), replacement, writer);
      if (prepared === 'failed') {
        if (writer.typed) return judge(strategy);
        continue;
      }
      taken = prepared === 'done' || run(strategy, target, replacement);
    } else taken = run(strategy, target, replacement);
    claimed ||= strategy !== 'execCommand' && strategy !== 'paste' && taken;
    // Editors re-render from their model, or reconcile the DOM against it, after the event;
    // one that took the event gets longer, so a slow render is never followed by a second edit.
    // Editors handle a paste asynchronously, and may not cancel it (TinyMCE, measured): wait as long.
    // Until the text is what was asked (an editor may pass through other states on the way there).
    let now = await waitFor(holdsReplacement, taken || strategy === 'paste' ? 1000 : 200);
    if (holdsReplacement(now) && !writer.typed) {
      await settle(250); // an editor that reverts or rewrites a change it did not make does so by now
      const later = current();
      if (now === expected && later !== now) {
        // The whole text read as asked, then changed beside the replacement or clear of it: not
        // the editor's answer to the edit but the page's own change (a co-author's first word).
        const beside = keptBeside(expected, later, start, replacement.length);
        if (beside !== undefined && !writer.typed) return { status: 'applied', strategy, at: beside };
        // Changed beyond the replacement after it read as asked (a co-author's words on both sides of
        // it in one update): the page's change too, whatever readRange makes of it (it reads both
        // ways where the sentence is in the text twice). Never rolled back: a rollback of the whole
        // difference would delete their words with it.
        const change = shortestChange(expected, later);
        live ||= change.start < start || change.end > start + replacement.length || readRange(base, later, start, end, comparable(replacement)).holds === 'replacement';
      }
      now = later;
      const settled = read(now);
      if (settled.holds === 'replacement' && !writer.typed) return { status: 'applied', strategy, at: settled.at };
    }
    // Never a rollback over the writer's own input: say what the text holds instead.
    if (writer.typed) return judge(strategy);
    const after = read(now);
    // A text that reads both ways: nothing more is claimed or tried.
    if (after.holds === 'either') return { status: 'unexpected' };
    if (after.holds !== 'original') {
      // Put back only a change of the range alone: with changes elsewhere too (a co-author's),
      // what is the range's cannot be told for sure, and nothing is touched.
      const change = shortestChange(base, now);
      if (live && (change.start < start || change.end > end)) return { status: 'unexpected' };
      // Text beside the range at an edge, the range as asked or as it was inside (a co-author typing
      // just before the sentence): whose that text is cannot be told, and a rollback would delete it.
      const range = now.slice(start, now.length - base.length + end);
      if (live && (range.includes(comparable(replacement)) || range.includes(base.slice(start, end)))) return { status: 'overlapped' };
      const back = (text: string) => read(text).holds === 'original';
      if (!(await rollBack(target, before, strategy, back, (done, ms) => waitFor(done, ms, false), () => writer.typed))) return writer.typed ? judge(strategy) : { status: 'unexpected' };
      rolledBack = true;
    }
    if (performance.now() >= deadline) return { status: 'timeout' };
  }
  // Left selected, so the writer can paste the suggestion over it.
  selectText(target, start, end, { focus: true });
  return { status: rolledBack ? 'reverted' : 'refused' };
}

/**
 * The native edit of [start, end) in an editor that reads it back from its DOM as the shortest
 * change and gives inserted text the formatting at that change's start (editors.ts,
 * `marksFromChangeStart`), made so that the change read back is the one meant. A part that only
 * deletes, once the characters it writes back are left out, is deleted with nothing written back
 * (a letter written back at a link's end goes after the link); otherwise the formatting runs it
 * removes whole are deleted first (edit-regions.ts, `runsRemovedFirst`) and what is left of the
 * range is selected for the replacement. `done`: the edit is made; `ready`: the replacement is
 * to go in; `failed`: neither could be done.
 */
async function editForChangeStart(target: DomTarget, start: number, end: number, original: string, replacement: string, writer: Writer): Promise<'done' | 'ready' | 'failed'> {
  const doc = target.element.ownerDocument;
  const deletion = onlyDeletes(original, replacement);
  if (deletion) {
    if (!selectText(target, start + deletion.start, start + deletion.end, { focus: true })) return 'failed';
    await settle(20);
    return !writer.typed && editNatively(doc, '', target.element) ? 'done' : 'failed';
  }
  const runs = runsRemovedFirst(original, replacement, joinableIn(target.model(), start));
  if (!runs) return 'ready';
  const [from, to] = runs;
  if (!selectText(target, start + from, start + to, { focus: true })) return 'failed';
  await settle(20);
  if (writer.typed || !editNatively(doc, '', target.element)) return 'failed';
  // The editor reads the deletion back (ProseMirror: when its DOM observer flushes) before the rest goes in.
  await settle(20);
  if (writer.typed || !selectText(target, start, end - (to - from), { focus: true })) return 'failed';
  // As before any edit: an editor that keeps a selection of its own (and marks stored with it) reads the new one.
  await settle(20);
  return writer.typed ? 'failed' : 'ready';
}

/**
 * The characters a part removes when it only deletes, once the characters it writes back are left
 * out (a part always writes at least one back: some editors mishandle an empty edit).
 */
function onlyDeletes(original: string, replacement: string): { start: number; end: number } | undefined {
  const change = shortestChange(original, replacement);
  return change.inserted === 0 && change.end > change.start ? change : undefined;
}

/** A `beforeinput` over the selection, as the browser sends for typing; true when the editor took it (prevented its default). */
function dispatchBeforeinput(target: Target, inputType: 'insertText' | 'deleteContentBackward', text?: string): boolean {
  const selection = target.element.ownerDocument.getSelection();
  const range = selection?.rangeCount ? selection.getRangeAt(0) : undefined;
  // No dataTransfer, as for typing: an editor reads one as a paste (Slate).
  const event = new InputEvent('beforeinput', {
    inputType,
    data: text ?? null,
    bubbles: true,
    cancelable: true,
    composed: true,
    targetRanges: range ? [new StaticRange(range)] : [],
  });
  (range?.startContainer.parentElement ?? target.element).dispatchEvent(event);
  return event.defaultPrevented;
}

function run(strategy: Strategy, target: Target, text: string): boolean {
  const element = target.element;
  const doc = element.ownerDocument;
  switch (strategy) {
    case 'editor-api':
      return askPage(element, { op: 'insert', text });
    case 'execCommand':
      return editNatively(doc, text, element);
    case 'beforeinput':
      return dispatchBeforeinput(target, 'insertText', text);
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
 * Puts back the text as it was before a strategy that changed it into something else, by
 * writing the changed part back over it the same way. Never through the editor's undo: an
 * editor that has not yet recorded the change (ProseMirror reads the DOM a moment later), or
 * that groups it with the writer's typing just before, would undo the writer's work instead.
 * True when the text reads as before.
 */
async function rollBack(
  target: Target,
  before: string,
  strategy: Strategy,
  back: (text: string) => boolean,
  waitFor: (done: (text: string) => boolean, ms: number) => Promise<string>,
  writerTyped: () => boolean,
): Promise<boolean> {
  const wanted = comparable(before);
  const now = comparable(target.readText());
  const [from, to] = changed(now, wanted);
  if (!selectText(target, from, to, { focus: true })) return false;
  if (target.kind !== 'field') await settle(20);
  if (writerTyped()) return false;
  run(strategy, target, before.slice(from, before.length - (now.length - to)));
  return back(await waitFor(back, 1000));
}
