import { firstIndex, type Span, type TextEdit } from './remap.ts';
import { AI_LEVELS, SOURCE_HIGHLIGHT, aiLevel, installHighlightStyles } from './styles.ts';
import { pageScheme } from './theme.ts';
import type { DomText } from './dom-text.ts';
import type { LiveDomText } from './live-text.ts';
import { measured } from './perf.ts';
import { focusEditor, type DomTarget } from './target.ts';

/** A span drawn in the page: an AI-labelled sentence or a flagged source match. */
export interface HighlightSpan extends Span {
  /** Index of the item in the result (chunk or match), for the side panel. */
  index: number;
  kind: 'ai' | 'source';
  score: number;
}

export interface Highlighter {
  /**
   * Draws the spans. With `edit` (how the text changed since the last draw, the spans already
   * moved with it) only what the edit touched is redrawn.
   */
  draw(spans: readonly HighlightSpan[], edit?: TextEdit): void;
  spanAtPoint(x: number, y: number): HighlightSpan | undefined;
  spanAtCaret(): HighlightSpan | undefined;
  rectOf(span: HighlightSpan): DOMRect | undefined;
  /** The span's line boxes in the viewport (a card is placed beside them, never over them). */
  rectsOf(span: HighlightSpan): DOMRect[];
  /** Scrolls to the span and selects it. */
  select(span: HighlightSpan): void;
  /**
   * True when what is drawn no longer shows the target's text although the captured text is
   * the same: a field's value gained or lost line breaks that capture folds away.
   */
  stale?(): boolean;
  /**
   * The text was edited and the next draw may wait for the writer to pause: true when what is
   * drawn stays right without a draw meanwhile (the browser moves it with the text, or what
   * could move is hidden until then). Without it every edit is drawn in its own frame.
   */
  holdEdit?(): boolean;
  clear(): void;
}

export const contains = (span: Span, offset: number) => offset >= span.start && offset < span.end;

function caretAt(x: number, y: number): { node: Node; offset: number } | undefined {
  const doc = document as Document & { caretPositionFromPoint?: (x: number, y: number) => { offsetNode: Node; offset: number } | null };
  if (doc.caretPositionFromPoint) {
    const position = doc.caretPositionFromPoint(x, y);
    return position ? { node: position.offsetNode, offset: position.offset } : undefined;
  }
  const range = document.caretRangeFromPoint?.(x, y);
  return range ? { node: range.startContainer, offset: range.startOffset } : undefined;
}

/** Below this many spans every one is drawn at once; above, the ones around the viewport first. */
const DRAW_ALL_BELOW = 64;

/**
 * DOM text: the CSS Custom Highlight API paints ranges without touching the editor's DOM.
 * Ranges are live: the browser moves them with typing in their text node. After an edit only
 * ranges whose ends no longer match the text model are set again, so painting is invalidated
 * around the edit rather than for every highlight. Chromium re-adds the markers of every
 * registered range after any change to the document and repaints every text node that holds
 * one, so a keystroke's paint grows with the registered ranges: with many spans only those in
 * the viewport are registered, and the window follows scrolling.
 */
export class DomHighlighter implements Highlighter {
  #spans: readonly HighlightSpan[] = [];
  /** One registered Highlight per style name; ranges are added and removed, never re-registered. */
  readonly #highlights = new Map<string, Highlight>();
  /** What is drawn now, by result item index, with the text each range showed when it was set. */
  #drawn = new Map<number, Drawn>();
  /** The text offsets drawn around the viewport; undefined when every span is drawn. */
  #window: Span | undefined;
  /** The text the drawn spans index into. */
  #text = '';
  #frame = 0;
  /** The view scrolled or resized while the text was being edited: the next update finds the window again. */
  #viewportMoved = false;
  readonly #cleanup: (() => void)[] = [];

  constructor(
    private readonly target: DomTarget,
    kind: HighlightSpan['kind'],
    private readonly live: LiveDomText,
  ) {
    installHighlightStyles(target.element.getRootNode() as Document | ShadowRoot, pageScheme(target.element));
    const names = kind === 'source' ? [SOURCE_HIGHLIGHT.name] : AI_LEVELS.map((level) => level.name);
    for (const name of names) {
      const highlight = new Highlight();
      this.#highlights.set(name, highlight);
      CSS.highlights.set(name, highlight);
    }
    const onViewport = (event: Event) => {
      if (!this.#window || (event.target instanceof Node && event.target !== document && !event.target.contains(this.target.element))) return;
      this.#viewportMoved = true;
      cancelAnimationFrame(this.#frame);
      this.#frame = requestAnimationFrame(() => this.#redrawWindow());
    };
    document.addEventListener('scroll', onViewport, { capture: true, passive: true });
    window.addEventListener('resize', onViewport, { passive: true });
    this.#cleanup.push(
      () => document.removeEventListener('scroll', onViewport, { capture: true }),
      () => window.removeEventListener('resize', onViewport),
      () => cancelAnimationFrame(this.#frame),
    );
  }

  draw(spans: readonly HighlightSpan[], edit?: TextEdit): void {
    this.#spans = spans;
    if (edit && this.#window) {
      const model = this.live.model();
      this.#window = this.#viewportMoved ? this.#viewportWindow(model) : { start: shiftOffset(this.#window.start, edit), end: shiftOffset(this.#window.end, edit) };
      this.#viewportMoved = false;
      this.#sync(model);
    } else if (edit && spans.length < DRAW_ALL_BELOW) {
      this.#sync(this.live.model());
    } else {
      measured('redline:draw', () => {
        const model = this.live.model();
        this.#window = spans.length < DRAW_ALL_BELOW ? undefined : this.#viewportWindow(model);
        this.#sync(model);
      });
    }
  }

  #redrawWindow(): void {
    const model = this.live.model();
    // The text changed since the spans were drawn: the session's next update finds the window.
    if (model.text !== this.#text) return;
    this.#viewportMoved = false;
    this.#window = this.#viewportWindow(model);
    this.#sync(model);
  }

  /**
   * The text offsets of the spans that lie in the viewport. (A margin of a quarter screen
   * above and below registered half as many ranges again, and the paint per keystroke grew with
   * them.) Spans follow the text, so their boxes run down the page in order: two binary
   * searches over their boxes read layout a few dozen times, all in one frame.
   */
  #viewportWindow(model: DomText): Span {
    const spans = this.#spans;
    const box = (span: Span) => model.range(span.start, span.end)?.getBoundingClientRect();
    const first = firstIndex(spans, (span) => (box(span)?.bottom ?? 0) >= 0);
    const last = firstIndex(spans, (span) => (box(span)?.top ?? 0) > window.innerHeight, first);
    if (first >= last) return { start: 0, end: 0 };
    return { start: spans[first]!.start, end: spans[last - 1]!.end };
  }

  /** Makes the drawn ranges match the spans in the window, touching only those that differ. */
  #sync(model: DomText): void {
    this.#text = model.text;
    const window = this.#window;
    const spans = this.#spans;
    const from = window ? firstIndex(spans, (span) => span.end > window.start) : 0;
    const to = window ? firstIndex(spans, (span) => span.start >= window.end, from) : spans.length;
    const previous = this.#drawn;
    const drawn = new Map<number, Drawn>();
    for (let i = from; i < to; i++) {
      const span = spans[i]!;
      const start = model.position(span.start);
      const end = model.position(span.end, true);
      if (!start || !end) continue;
      const name = span.kind === 'source' ? SOURCE_HIGHLIGHT.name : aiLevel(span.score).name;
      const old = previous.get(span.index);
      previous.delete(span.index);
      if (old && old.name === name) {
        const { range } = old;
        if (range.startContainer !== start.node || range.startOffset !== start.offset) range.setStart(start.node, start.offset);
        if (range.endContainer !== end.node || range.endOffset !== end.offset) range.setEnd(end.node, end.offset);
        drawn.set(span.index, { ...old, text: range.toString() });
        continue;
      }
      if (old) this.#highlights.get(old.name)?.delete(old.range);
      const range = document.createRange();
      range.setStart(start.node, start.offset);
      range.setEnd(end.node, end.offset);
      this.#highlights.get(name)?.add(range);
      drawn.set(span.index, { range, name, text: range.toString() });
    }
    for (const { range, name } of previous.values()) this.#highlights.get(name)?.delete(range);
    this.#drawn = drawn;
  }

  /**
   * Ranges are live: the browser keeps each highlight on its text while the characters of its
   * text node are edited in place. Not when nodes came or went (an editor re-rendering a line, a
   * paragraph merged: ranges in them collapse) or text changed away from the caret. Nor when a
   * range holding the caret's node now shows other text than its sentence: text typed at a range's
   * start goes into it (a live range grows at its start, not at its end): its start is moved past
   * that text here, before the frame is painted. Nor when the caret is inside a range, even one that
   * reads as its sentence again: the edit went into it. A sentence being edited is no longer the one
   * labelled, and the update then drops or moves the highlight at once.
   */
  holdEdit(): boolean {
    const selection = document.getSelection();
    const node = selection?.anchorNode;
    if (!selection || !this.live.changedOnly(node)) return false;
    for (const { range, text } of this.#drawn.values()) {
      // A range across several text nodes also holds the ones between its ends (a bold word in the sentence).
      if (range.startContainer !== node && range.endContainer !== node && (!node || range.startContainer === range.endContainer || !range.intersectsNode(node))) continue;
      if (range.toString() !== text && !startPastTyped(range, text, selection)) return false;
      if (caretWithin(range, selection)) return false;
    }
    return true;
  }

  spanAtPoint(x: number, y: number): HighlightSpan | undefined {
    const caret = caretAt(x, y);
    if (!caret || !this.target.element.contains(caret.node)) return undefined;
    const offset = this.live.model().offsetOf(caret.node, caret.offset);
    if (offset === undefined) return undefined;
    const span = this.#spans.find((candidate) => contains(candidate, offset));
    // caret-from-point snaps to the nearest character: only count it if the point is on the span.
    return span && pointInRects(this.#rects(span), x, y) ? span : undefined;
  }

  spanAtCaret(): HighlightSpan | undefined {
    const selection = document.getSelection();
    if (!selection?.rangeCount || !this.target.element.contains(selection.anchorNode)) return undefined;
    const offset = this.live.model().offsetOf(selection.anchorNode!, selection.anchorOffset);
    return offset === undefined ? undefined : this.#spans.find((candidate) => contains(candidate, offset));
  }

  #rects(span: HighlightSpan): DOMRect[] {
    return [...(this.live.model().range(span.start, span.end)?.getClientRects() ?? [])];
  }

  rectOf(span: HighlightSpan): DOMRect | undefined {
    return this.live.model().range(span.start, span.end)?.getBoundingClientRect();
  }

  rectsOf(span: HighlightSpan): DOMRect[] {
    return this.#rects(span);
  }

  select(span: HighlightSpan): void {
    const range = this.live.model().range(span.start, span.end);
    if (!range) return;
    if (this.target.kind === 'editor') focusEditor(this.target.element, range.startContainer);
    const selection = document.getSelection()!;
    selection.removeAllRanges();
    selection.addRange(range);
    (range.startContainer.parentElement ?? this.target.element).scrollIntoView({ block: 'center', behavior: 'instant' });
  }

  clear(): void {
    this.#spans = [];
    this.#drawn.clear();
    for (const [name, highlight] of this.#highlights) {
      highlight.clear();
      if (CSS.highlights.get(name) === highlight) CSS.highlights.delete(name);
    }
  }

  dispose(): void {
    this.clear();
    for (const cleanup of this.#cleanup) cleanup();
  }
}

/**
 * A range that shows its sentence with text typed in front of it (what a live range takes in at
 * its start) is moved to start after that text; whether it shows exactly its sentence then. The
 * caret tells where the text went in: right after it, so at the sentence's new start. The text
 * alone does not: "a" typed after the first "a" of "aa b." reads "aaa b.", as if typed before it.
 */
function startPastTyped(range: Range, sentence: string, caret: Selection): boolean {
  const shown = range.toString();
  const typed = shown.length - sentence.length;
  const { startContainer: node, startOffset } = range;
  if (typed <= 0 || !shown.endsWith(sentence) || node.nodeType !== Node.TEXT_NODE || startOffset + typed > (node as Text).length) return false;
  if (!caret.isCollapsed || caret.anchorNode !== node || caret.anchorOffset !== startOffset + typed) return false;
  range.setStart(node, startOffset + typed);
  return range.toString() === sentence;
}

/**
 * The caret between two characters of a range: the edit went in there, even when the range still
 * reads as its sentence ("aba" typed over with "a" in front of "a." leaves the range on "a.").
 */
function caretWithin(range: Range, caret: Selection): boolean {
  const { anchorNode: node, anchorOffset: offset } = caret;
  if (!node || !range.isPointInRange(node, offset)) return false;
  const before = range.cloneRange();
  before.setEnd(node, offset);
  const shown = before.toString().length;
  return shown > 0 && shown < range.toString().length;
}

interface Drawn {
  range: Range;
  name: string;
  /** The range's text when it was set: the live range shows other text once an edit went into it. */
  text: string;
}

/** Where an offset of the old text is in the new one; an offset inside the edit moves to its end. */
function shiftOffset(offset: number, edit: TextEdit): number {
  if (offset <= edit.start) return offset;
  if (offset >= edit.start + edit.removed) return offset + edit.inserted - edit.removed;
  return edit.start + edit.inserted;
}

export function pointInRects(rects: DOMRect[], x: number, y: number): boolean {
  return rects.some((rect) => x >= rect.left && x <= rect.right && y >= rect.top && y <= rect.bottom);
}
