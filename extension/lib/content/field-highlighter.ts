import { diffText, firstIndex, type TextEdit } from './remap.ts';
import { AI_LEVELS, UI_CSS, aiLevel, bandDeclarations, sourceDeclarations } from './styles.ts';
import { pageScheme } from './theme.ts';
import { measured } from './perf.ts';
import type { FieldTarget } from './target.ts';
import { contains, pointInRects, type HighlightSpan, type Highlighter } from './highlighters.ts';

/**
 * The highlighter of textareas and inputs. It is loaded on demand (mirror.js, on-demand.ts)
 * when a field is checked, so the content script carries it only when a page needs it.
 */

const MIRRORED_STYLES = [
  'box-sizing', 'width', 'height', 'padding-top', 'padding-right', 'padding-bottom', 'padding-left',
  'border-top-width', 'border-right-width', 'border-bottom-width', 'border-left-width', 'border-style',
  'font-family', 'font-size', 'font-weight', 'font-style', 'font-variant', 'font-stretch', 'line-height',
  'letter-spacing', 'word-spacing', 'text-indent', 'text-transform', 'text-align', 'direction', 'tab-size',
  'white-space', 'overflow-wrap', 'word-break',
] as const;

/**
 * Textareas and inputs keep their text out of the DOM, so their highlights are drawn in a
 * mirror: an element outside the field (in a shadow root) with the same box, font and
 * wrapping, laid exactly over it, scrolled with it, and transparent to the pointer; only its
 * marks are painted (the text is laid out but hidden, so a repaint records no glyphs). The
 * mirror holds the text in blocks of whole lines: an edit rebuilds the blocks it touched, and
 * only those are laid out again. Its styles are copied from the field when it is drawn or
 * resized, its position read when the page scrolls: once a frame at most.
 */
export class FieldHighlighter implements Highlighter {
  readonly #host = document.createElement('redline-overlay');
  readonly #mirror = document.createElement('div');
  /** The lines, moved as the field scrolls. */
  readonly #content = document.createElement('div');
  readonly #cleanup: (() => void)[] = [];
  #spans: readonly HighlightSpan[] = [];
  /** The spans drawn, in order and not overlapping. */
  #drawn: readonly HighlightSpan[] = [];
  /**
   * Where each of the mirror's blocks starts in the text: a block is a run of whole lines (its
   * own inline layout, so an edit relays out one block, not the whole text).
   */
  #lineStarts: number[] = [];
  /**
   * The blocks built so far, from the first on: a draw builds those down to a screen below the
   * field's view, so a very long text shows its first highlights at the cost of the part above
   * and in view; the rest follow as the field scrolls and when the page is idle.
   */
  #lines: HTMLElement[] = [];
  /**
   * Blocks more than a screen above the view are built as plain text first: they are laid out
   * only so the blocks below sit where the field shows their lines, and plain text lays out at
   * a fraction of the cost of text with marks. They get their marks as they come into view and
   * when the page is idle.
   */
  readonly #plain = new Set<HTMLElement>();
  /** Prepared while a check runs: the blocks are built plain, and marked when the spans come. */
  #awaitingSpans = false;
  #idle = 0;
  /** The marks of each drawn span, by result item index (a span across lines has one per line). */
  readonly #marks = new Map<number, HTMLElement[]>();
  /** The field's value, as the mirror shows it. */
  #text = '';
  /** The last draw moved spans from captured-text offsets to value offsets (they differ: fieldText). */
  #mapped = false;
  readonly #frames = { style: 0, position: 0 };
  /**
   * While edits are held (holdEdit): the marks hidden because the edits can move them, and the
   * field's scroll height when the mirror last showed its text (undefined: not to be held).
   */
  readonly #held = new Set<HTMLElement>();
  #drawnHeight: number | undefined;
  /**
   * The field lays its text out from the left, left to right, a line at a time (read with its
   * styles): with no right-to-left script in it (#release), an edit moves no text before the edited word.
   */
  #startAligned = false;

  constructor(
    readonly target: FieldTarget,
    /** About this many characters of whole lines go into one block of the mirror. */
    private readonly blockCharacters = 1500,
  ) {
    const shadow = this.#host.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    const scheme = pageScheme(target.element);
    style.textContent = `${UI_CSS}
      .mirror { position: fixed; overflow: hidden; color: transparent; pointer-events: none; z-index: 2147483646;
        border-color: transparent; background: transparent; margin: 0; contain: strict; visibility: hidden; }
      .mirror mark { color: transparent; border-radius: 2px; visibility: visible; }
      .mirror mark.held { visibility: hidden; }
      .mirror > div > div + div { text-indent: 0; }
      ${AI_LEVELS.map((level) => `.mirror mark.${level.name} { ${bandDeclarations(level.band, scheme)} }`).join('\n')}
      .mirror mark.source { ${sourceDeclarations(scheme)} }`;
    this.#mirror.className = 'mirror';
    this.#mirror.setAttribute('aria-hidden', 'true');
    this.#mirror.append(this.#content);
    shadow.append(style, this.#mirror);
    this.#host.style.cssText = 'all: initial; position: static;';

    const field = target.element;
    const restyle = () => this.#schedule('style', () => this.#copyStyle());
    const reposition = (event: Event) => {
      // The field's own scrolling is followed directly; the page's moves the mirror.
      if (event.target !== field) this.#schedule('position', () => this.#position());
    };
    const syncScroll = () => {
      this.#scrollTo(field.scrollTop, field.scrollLeft);
      this.#buildInView();
    };
    field.addEventListener('scroll', syncScroll, { passive: true });
    const resize = new ResizeObserver(restyle);
    resize.observe(field);
    document.addEventListener('scroll', reposition, { capture: true, passive: true });
    window.addEventListener('resize', restyle, { passive: true });
    window.visualViewport?.addEventListener('resize', restyle, { passive: true });
    this.#cleanup.push(
      () => field.removeEventListener('scroll', syncScroll),
      () => resize.disconnect(),
      () => document.removeEventListener('scroll', reposition, { capture: true }),
      () => window.removeEventListener('resize', restyle),
      () => window.visualViewport?.removeEventListener('resize', restyle),
      () => cancelAnimationFrame(this.#frames.style),
      () => cancelAnimationFrame(this.#frames.position),
      () => this.#cancelIdle(),
    );
  }

  #schedule(kind: 'style' | 'position', work: () => void): void {
    cancelAnimationFrame(this.#frames[kind]);
    this.#frames[kind] = requestAnimationFrame(work);
  }

  /** The field's font, box, wrapping and place: read before anything is written, so layout is read once. */
  #readField(): FieldGeometry {
    const field = this.target.element;
    const computed = getComputedStyle(field);
    const styles = MIRRORED_STYLES.map((property) => [property, computed.getPropertyValue(property)] as const);
    let whiteSpace: string | undefined;
    if (field instanceof HTMLInputElement) whiteSpace = 'pre';
    else if (computed.whiteSpace === 'normal') whiteSpace = 'pre-wrap';
    // Match the field's scrollbar gutter so lines wrap at the same width.
    const scrollbar = field.offsetWidth - field.clientWidth - parseFloat(computed.borderLeftWidth) - parseFloat(computed.borderRightWidth);
    // `dir=auto` fields lay right-to-left paragraphs out from the right (unicode-bidi: plaintext);
    // balanced or "pretty" wrapping breaks a paragraph's lines together.
    const wrapStyle = computed.getPropertyValue('text-wrap-style') || 'auto';
    this.#startAligned =
      computed.direction === 'ltr' && (computed.textAlign === 'start' || computed.textAlign === 'left') && computed.unicodeBidi !== 'plaintext' && (wrapStyle === 'auto' || wrapStyle === 'stable');
    return { styles, whiteSpace, paddingRight: parseFloat(computed.paddingRight) + Math.max(0, scrollbar), place: this.#readPlace() };
  }

  #readPlace(): FieldPlace {
    const field = this.target.element;
    return { rect: field.getBoundingClientRect(), scrollTop: field.scrollTop, scrollLeft: field.scrollLeft };
  }

  #writeStyle(geometry: FieldGeometry): void {
    const style = this.#mirror.style;
    for (const [property, value] of geometry.styles) style.setProperty(property, value);
    if (geometry.whiteSpace) style.setProperty('white-space', geometry.whiteSpace);
    style.boxSizing = 'border-box';
    style.paddingRight = `${geometry.paddingRight}px`;
    this.#writePlace(geometry.place);
  }

  #writePlace({ rect, scrollTop, scrollLeft }: FieldPlace): void {
    const style = this.#mirror.style;
    style.left = `${rect.left}px`;
    style.top = `${rect.top}px`;
    style.width = `${rect.width}px`;
    style.height = `${rect.height}px`;
    style.display = rect.width === 0 ? 'none' : 'block';
    this.#scrollTo(scrollTop, scrollLeft);
  }

  /** Follows the field's scrolling with a transform: it needs no layout of the mirror's text. */
  #scrollTo(top: number, left: number): void {
    this.#content.style.transform = `translate(${-left}px, ${-top}px)`;
  }

  #copyStyle(): void {
    // The lines may wrap anew: held edits are drawn at once from here until the next draw.
    if (this.#held.size > 0) this.#drawnHeight = undefined;
    this.#writeStyle(this.#readField());
    // Lines wrap anew at another width: the blocks built may no longer reach below the view.
    this.#buildInView();
  }

  #position(): void {
    this.#writePlace(this.#readPlace());
  }

  draw(spans: readonly HighlightSpan[], edit?: TextEdit): void {
    // Edits held and then undone (a character typed, then Backspace): the mirror already shows the text.
    if (!edit && this.#held.size > 0 && spans === this.#spans && !this.#mapped && this.#text === this.target.element.value) return this.#release();
    // The mirror shows the value; where the captured text differs from it, spans move to value
    // offsets and the mirror is drawn anew (an edit's offsets are the captured text's).
    const offsets = this.target.fieldText();
    const mapped = !offsets.same;
    if (mapped) spans = spans.map((span) => ({ ...span, start: offsets.toValue(span.start), end: offsets.toValue(span.end, true) }));
    if (mapped || this.#mapped) edit = undefined;
    this.#mapped = mapped;
    this.#spans = spans;
    if (!(edit && this.#host.isConnected && this.#lines.length > 0 && this.#patch(edit))) {
      if (!edit && this.#awaitingSpans) this.#drawPrepared(spans);
      else this.#drawAnew(spans);
    }
    this.#release();
  }

  /**
   * An edit can wait for the next draw when it lies inside one paragraph of a textarea whose
   * text overflows it and is laid out from the left: text before the edited word keeps its
   * place, the marks from that word to the paragraph's end are hidden, and the paragraphs
   * below keep theirs as long as the field's scroll height says no line came or went (reading
   * it lays the field out, which the frame would do anyway). So typing costs no change to the
   * mirror until the writer pauses.
   */
  holdEdit(): boolean {
    const field = this.target.element;
    // Blocks still to be built or marked when the page is idle would be built from the text before the edits.
    if (!(field instanceof HTMLTextAreaElement) || this.#drawnHeight === undefined || this.#mapped || !this.#host.isConnected || !this.#complete()) return false;
    const value = field.value;
    const edit = diffText(this.#text, value);
    if (!edit) return true;
    const old = this.#text;
    const inserted = value.slice(edit.start, edit.start + edit.inserted);
    if (old.slice(edit.start, edit.start + edit.removed).includes('\n') || inserted.includes('\n') || RIGHT_TO_LEFT.test(inserted)) return false;
    if (field.scrollHeight !== this.#drawnHeight) return false;
    // Back to where a line can break before the edited word (not a no-break space).
    let from = edit.start;
    while (from > 0 && !LINE_BREAK_BEFORE.test(old[from - 1]!)) from--;
    const paragraphEnd = old.indexOf('\n', edit.start + edit.removed);
    const to = paragraphEnd < 0 ? old.length : paragraphEnd;
    const drawn = this.#drawn;
    for (let i = firstIndex(drawn, (span) => span.end > from); i < drawn.length && drawn[i]!.start < to; i++) {
      for (const mark of this.#marks.get(drawn[i]!.index) ?? []) {
        if (this.#held.has(mark)) continue;
        mark.classList.add('held');
        this.#held.add(mark);
      }
    }
    return true;
  }

  /** The mirror shows the field's text again: held marks come back, and edits may be held from here. */
  #release(): void {
    for (const mark of this.#held) mark.classList.remove('held');
    this.#held.clear();
    const field = this.target.element;
    const holdable = field instanceof HTMLTextAreaElement && this.#startAligned && !this.#mapped && this.#host.isConnected && this.#text === field.value && !RIGHT_TO_LEFT.test(this.#text);
    // Only a field whose text overflows it shows a new or lost line in its scroll height.
    this.#drawnHeight = holdable && field.scrollHeight > field.clientHeight ? field.scrollHeight : undefined;
  }

  /** Spans in value offsets. */
  #drawAnew(spans: readonly HighlightSpan[]): void {
    measured('redline:draw', () => {
      this.#reset(drawable(spans));
      this.#buildInView();
    });
  }

  /** Empties the mirror for the field's value as it is now, to be built with the `drawn` spans. */
  #reset(drawn: readonly HighlightSpan[]): void {
    const geometry = this.#readField();
    if (!this.#host.isConnected) document.documentElement.append(this.#host);
    this.#text = this.target.element.value;
    this.#drawn = drawn;
    this.#marks.clear();
    this.#plain.clear();
    this.#lineStarts = blockStarts(this.#text, 0, this.#text.length, this.blockCharacters);
    this.#lines = [];
    this.#content.replaceChildren();
    this.#writeStyle(geometry);
  }

  /**
   * Lays out the field's text in the mirror, as plain blocks when the page is idle, while a
   * check runs: when its spans come, only the blocks around the view are given marks before
   * the first paint, however long the text.
   */
  prepare(): void {
    this.#reset([]);
    this.#awaitingSpans = true;
    this.#scheduleIdle();
  }

  /** The first draw over a prepared mirror: kept if it shows the field's text, else drawn anew. */
  #drawPrepared(spans: readonly HighlightSpan[]): void {
    this.#awaitingSpans = false;
    if (this.#text !== this.target.element.value || !this.#host.isConnected) return this.#drawAnew(spans);
    measured('redline:draw', () => {
      this.#drawn = drawable(spans);
      this.#marks.clear();
      this.#writeStyle(this.#readField());
      this.#buildInView();
    });
  }

  /**
   * Builds blocks until they reach a screen below the field's view, plain while they end more
   * than a screen above it, and gives the blocks from a screen above to a screen below their
   * marks. Each round lays out what it added (one read of layout) and adds as many blocks as
   * the average height so far says are missing.
   */
  #buildInView(): void {
    if (!this.#host.isConnected || this.#awaitingSpans) return;
    const field = this.target.element;
    const top = field.scrollTop - field.clientHeight;
    const bottom = field.scrollTop + 2 * field.clientHeight;
    let reached = this.#builtHeight();
    while (this.#lines.length < this.#lineStarts.length && reached <= bottom) {
      const average = this.#lines.length && reached > 0 ? reached / this.#lines.length : 0;
      const plain = reached < top;
      this.#buildBlocks(average ? Math.ceil(((plain ? top : bottom) - reached) / average) + 1 : 1, plain);
      reached = this.#builtHeight();
    }
    this.#markBetween(top, bottom);
    this.#scheduleIdle();
  }

  /** Gives the plain blocks that reach into [top, bottom] their marks (reads layout first, then writes). */
  #markBetween(top: number, bottom: number): void {
    if (this.#plain.size === 0) return;
    const lines = this.#lines;
    const first = firstIndex(lines, (line) => line.offsetTop + line.offsetHeight > top);
    const last = firstIndex(lines, (line) => line.offsetTop > bottom, first);
    for (let line = first; line < last; line++) if (this.#plain.has(lines[line]!)) this.#mark(line);
  }

  /** Rebuilds the plain block `line` with its marks. */
  #mark(line: number): void {
    const old = this.#lines[line]!;
    const block = this.#buildLine(this.#lineStarts[line]!, this.#lineStarts[line + 1] ?? this.#text.length);
    old.replaceWith(block);
    this.#plain.delete(old);
    this.#lines[line] = block;
  }

  /** How far down the blocks built so far reach (a read of layout). */
  #builtHeight(): number {
    const last = this.#lines.at(-1);
    return last ? last.offsetTop + last.offsetHeight : 0;
  }

  /** Builds the next `count` blocks (at most as many as are left), `plain` or with their marks. */
  #buildBlocks(count: number, plain = false): void {
    const starts = this.#lineStarts;
    const built: HTMLElement[] = [];
    for (let line = this.#lines.length; line < starts.length && built.length < count; line++) {
      const block = this.#buildLine(starts[line]!, starts[line + 1] ?? this.#text.length, plain);
      if (plain) this.#plain.add(block);
      built.push(block);
      this.#lines.push(block);
    }
    this.#content.append(...built);
  }

  /** Builds the blocks down to the one that holds `offset`, that one and those before it up to `from` with their marks. */
  #buildThrough(from: number, offset: number): void {
    const lineOf = (at: number) => Math.max(0, firstIndex(this.#lineStarts, (start) => start > at) - 1);
    const line = lineOf(offset);
    if (line >= this.#lines.length) this.#buildBlocks(line + 1 - this.#lines.length);
    for (let at = lineOf(from); at <= line; at++) if (this.#plain.has(this.#lines[at]!)) this.#mark(at);
  }

  /** The blocks not built yet are built when the page is idle, a few at a time, each laid out then. */
  #scheduleIdle(): void {
    if (this.#idle || this.#complete()) return;
    const build = (deadline?: IdleDeadline) => {
      this.#idle = 0;
      do {
        const plain = this.#plain.values().next().value;
        if (plain && !this.#awaitingSpans) this.#mark(this.#lines.indexOf(plain));
        else this.#buildBlocks(1, this.#awaitingSpans);
        void this.#content.offsetHeight;
      } while (!this.#complete() && (deadline?.timeRemaining() ?? 0) > 2);
      this.#scheduleIdle();
    };
    this.#idle = typeof requestIdleCallback === 'function' ? requestIdleCallback(build) : window.setTimeout(build, 20);
  }

  #cancelIdle(): void {
    if (typeof cancelIdleCallback === 'function') cancelIdleCallback(this.#idle);
    else clearTimeout(this.#idle);
    this.#idle = 0;
  }

  stale(): boolean {
    return this.#host.isConnected && !this.#awaitingSpans && (this.#text !== this.target.element.value || this.#held.size > 0);
  }

  /** Every block is built, with its marks. */
  #complete(): boolean {
    return this.#lines.length === this.#lineStarts.length && (this.#plain.size === 0 || this.#awaitingSpans);
  }

  /** Builds every block of the mirror now (a test's way to compare it with another whole one). */
  buildAll(): void {
    this.#cancelIdle();
    this.#buildBlocks(Infinity);
    for (let line = 0; this.#plain.size > 0 && line < this.#lines.length; line++) if (this.#plain.has(this.#lines[line]!)) this.#mark(line);
  }

  /**
   * The block for the line [start, end) of the text, its line break included. The last line
   * gets a zero-width space so that, after a trailing newline, it takes up a line as in the field.
   */
  #buildLine(start: number, end: number, plain = false): HTMLElement {
    const text = this.#text;
    const block = document.createElement('div');
    const drawn = this.#drawn;
    let cursor = start;
    for (let i = plain ? drawn.length : firstIndex(drawn, (span) => span.end > start); i < drawn.length && drawn[i]!.start < end; i++) {
      const span = drawn[i]!;
      const from = Math.max(span.start, start);
      const to = Math.min(span.end, end);
      if (from > cursor) block.append(text.slice(cursor, from));
      const mark = document.createElement('mark');
      mark.className = span.kind === 'source' ? 'source' : aiLevel(span.score).name;
      mark.textContent = text.slice(from, to);
      block.append(mark);
      const marks = this.#marks.get(span.index);
      if (marks) marks.push(mark);
      else this.#marks.set(span.index, [mark]);
      cursor = to;
    }
    const last = end === text.length && (start === end || text[end - 1] !== '\n');
    if (cursor < end || last) block.append(text.slice(cursor, end) + (last ? '\u200b' : ''));
    return block;
  }

  /**
   * Rebuilds the lines the edit touched, and the lines of any span it dropped or moved; the
   * other lines keep their blocks, and their starts shift.
   */
  #patch(edit: TextEdit): boolean {
    const delta = edit.inserted - edit.removed;
    const text = this.target.element.value;
    // The mirror shows another text than the edit starts from: draw it anew.
    if (text.length !== this.#text.length + delta) return false;
    const before = this.#drawn;
    const after = drawable(this.#spans);
    let head = 0;
    while (head < before.length && head < after.length && before[head]!.end <= edit.start && sameSpan(before[head]!, after[head]!, 0)) head++;
    let tail = 0;
    while (
      tail < before.length - head &&
      tail < after.length - head &&
      before[before.length - 1 - tail]!.start >= edit.start + edit.removed &&
      sameSpan(before[before.length - 1 - tail]!, after[after.length - 1 - tail]!, delta)
    ) tail++;
    if (head + tail === before.length && head + tail === after.length && this.#patchText(edit, text, after)) return true;
    // The changed region in the old text: the edit and every span that changed around it.
    let from = edit.start;
    let to = edit.start + edit.removed;
    for (let i = head; i < before.length - tail; i++) {
      from = Math.min(from, before[i]!.start);
      to = Math.max(to, before[i]!.end);
    }
    for (let i = head; i < after.length - tail; i++) {
      from = Math.min(from, after[i]!.start);
      // New offsets past the edit map back by -delta; before it they are the same.
      to = Math.max(to, after[i]!.end >= edit.start + edit.inserted ? after[i]!.end - delta : after[i]!.end);
    }
    const starts = this.#lineStarts;
    const firstLine = firstIndex(starts, (start) => start > from) - 1;
    const lastLine = Math.max(firstLine, firstIndex(starts, (start) => start > to) - 1);
    // The edit reaches blocks not built yet: the mirror is drawn anew, down to the view.
    if (lastLine >= this.#lines.length) return false;
    const blockStart = starts[firstLine]!;
    // The lines' end in the new text: the edit lies before it, so it moved by the edit's length.
    const blockEnd = (starts[lastLine + 1] ?? this.#text.length) + delta;

    for (let i = head; i < before.length - tail; i++) this.#marks.delete(before[i]!.index);
    this.#text = text;
    this.#drawn = after;
    const newStarts = blockStarts(text, blockStart, blockEnd, this.blockCharacters, lastLine === starts.length - 1);
    const newLines = newStarts.map((start, i) => this.#buildLine(start, newStarts[i + 1] ?? blockEnd));
    this.#lines[firstLine]!.before(...newLines);
    for (let line = firstLine; line <= lastLine; line++) {
      this.#lines[line]!.remove();
      this.#plain.delete(this.#lines[line]!);
    }
    this.#lines.splice(firstLine, lastLine - firstLine + 1, ...newLines);
    for (let line = lastLine + 1; line < starts.length; line++) starts[line]! += delta;
    starts.splice(firstLine, lastLine - firstLine + 1, ...newStarts);
    return true;
  }

  /**
   * An edit of plain text within one line that moves no mark: the text node it falls in is
   * patched in place, so the browser lays out that block again but creates and styles no
   * element. False when the edit crosses a line break or a mark; then the block is rebuilt.
   */
  #patchText(edit: TextEdit, text: string, drawn: readonly HighlightSpan[]): boolean {
    const removed = this.#text.slice(edit.start, edit.start + edit.removed);
    const inserted = text.slice(edit.start, edit.start + edit.inserted);
    if (removed.includes('\n') || inserted.includes('\n')) return false;
    const starts = this.#lineStarts;
    const line = firstIndex(starts, (start) => start > edit.start) - 1;
    if (line < 0 || line >= this.#lines.length) return false;
    const found = this.#textNodeAt(line, edit);
    if (!found) return false;
    found.node.replaceData(edit.start - found.at, edit.removed, inserted);
    const delta = edit.inserted - edit.removed;
    for (let next = line + 1; next < starts.length; next++) starts[next]! += delta;
    this.#text = text;
    this.#drawn = drawn;
    return true;
  }

  /**
   * The text node of block `line` that holds the edit's old region, and where it starts. It
   * follows the last mark before the edit (the drawn spans say which), or opens the block; a
   * walk over the block's children is the fallback.
   */
  #textNodeAt(line: number, edit: TextEdit): { node: Text; at: number } | undefined {
    const block = this.#lines[line]!;
    const blockStart = this.#lineStarts[line]!;
    const holds = (node: ChildNode | null | undefined, at: number): node is Text =>
      node instanceof Text && at <= edit.start && edit.start + edit.removed <= at + node.length;
    const drawn = this.#drawn;
    const previous = this.#plain.has(block) ? undefined : drawn[firstIndex(drawn, (span) => span.end > edit.start) - 1];
    if (previous && previous.end > blockStart) {
      const mark = this.#marksOf(previous).at(-1);
      if (mark?.parentNode === block && holds(mark.nextSibling, previous.end)) return { node: mark.nextSibling as Text, at: previous.end };
    } else if (holds(block.firstChild, blockStart)) return { node: block.firstChild as Text, at: blockStart };
    let at = blockStart;
    for (const child of block.childNodes) {
      if (holds(child, at)) return { node: child as Text, at };
      at += child.textContent!.length;
      if (at > edit.start) break;
    }
    return undefined;
  }

  spanAtPoint(x: number, y: number): HighlightSpan | undefined {
    const fieldRect = this.target.element.getBoundingClientRect();
    if (x < fieldRect.left || x > fieldRect.right || y < fieldRect.top || y > fieldRect.bottom) return undefined;
    // On every pointer move: the marks as kept, those left behind by a rebuilt block skipped, no copies.
    for (const span of this.#drawn) {
      if (this.#marks.get(span.index)?.some((mark) => mark.isConnected && pointInRects([...mark.getClientRects()], x, y))) return span;
    }
    return undefined;
  }

  /**
   * The marks of a span in the mirror now, in order: a span across blocks has one per block,
   * and a block that was rebuilt or given its marks left its old ones behind.
   */
  #marksOf(span: HighlightSpan): HTMLElement[] {
    const marks = this.#marks.get(span.index);
    if (!marks) return [];
    const live = marks.filter((mark) => mark.isConnected);
    if (live.length > 1) live.sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
    this.#marks.set(span.index, live);
    return live;
  }

  spanAtCaret(): HighlightSpan | undefined {
    const field = this.target.element;
    if (document.activeElement !== field || field.selectionStart === null) return undefined;
    const caret = field.selectionStart;
    const span = this.#drawn[firstIndex(this.#drawn, (candidate) => candidate.end > caret)];
    return span && contains(span, caret) ? span : undefined;
  }

  rectOf(span: HighlightSpan): DOMRect | undefined {
    return this.#marksOf(span)[0]?.getBoundingClientRect();
  }

  rectsOf(span: HighlightSpan): DOMRect[] {
    // Only what shows inside the field: the mirror clips the rest.
    const field = this.target.element.getBoundingClientRect();
    return this.#marksOf(span)
      .flatMap((mark) => [...mark.getClientRects()])
      .filter((rect) => rect.bottom > field.top && rect.top < field.bottom);
  }

  select(captured: HighlightSpan): void {
    const span = this.#spans.find((drawn) => drawn.index === captured.index) ?? captured;
    const field = this.target.element;
    field.scrollIntoView({ block: 'center', behavior: 'instant' });
    field.focus({ preventScroll: true });
    field.setSelectionRange(span.start, span.end);
    this.#buildThrough(span.start, span.end);
    const mark = this.#marksOf(span)[0];
    if (mark && field instanceof HTMLTextAreaElement) {
      field.scrollTop = Math.max(0, mark.offsetTop - field.clientHeight / 3);
    }
    this.#position();
  }

  clear(): void {
    this.#cancelIdle();
    this.#awaitingSpans = false;
    this.#spans = [];
    this.#drawn = [];
    this.#lines = [];
    this.#lineStarts = [];
    this.#marks.clear();
    this.#plain.clear();
    this.#held.clear();
    this.#drawnHeight = undefined;
    this.#content.replaceChildren();
    this.#host.remove();
  }

  dispose(): void {
    this.clear();
    for (const cleanup of this.#cleanup) cleanup();
  }
}

interface FieldPlace {
  rect: DOMRect;
  scrollTop: number;
  scrollLeft: number;
}

interface FieldGeometry {
  styles: (readonly [string, string])[];
  whiteSpace: string | undefined;
  paddingRight: number;
  place: FieldPlace;
}

/** Characters of right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko and their presentation forms). */
const RIGHT_TO_LEFT = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]/;
/** Where a line can break before a word: spaces, tabs, line breaks, the ideographic space (not U+00A0 or U+202F). */
const LINE_BREAK_BEFORE = /[ \t\n\u3000]/;

/** The spans that can be drawn as marks: in order, each after the previous one (the spans themselves when they are). */
function drawable(spans: readonly HighlightSpan[]): readonly HighlightSpan[] {
  if (spans.every((span, i) => i === 0 || span.start >= spans[i - 1]!.end)) return spans;
  const sorted = spans.every((span, i) => i === 0 || span.start >= spans[i - 1]!.start) ? spans : [...spans].sort((a, b) => a.start - b.start);
  const drawn: HighlightSpan[] = [];
  for (const span of sorted) if (span.start >= (drawn.at(-1)?.end ?? 0)) drawn.push(span);
  return drawn;
}

/**
 * Where each block of text[from, to) starts: at `from`, then after the first line break past
 * `size` characters; when the blocks run to the end of the text, a break at the very end
 * starts a last, empty block (the field shows a line there).
 */
function blockStarts(text: string, from: number, to: number, size: number, toTheEnd = to === text.length): number[] {
  const starts = [from];
  for (let at = text.indexOf('\n', from); at >= 0 && at + 1 <= to; at = text.indexOf('\n', at + 1)) {
    if (at + 1 === to ? toTheEnd : at + 1 - starts.at(-1)! >= size) starts.push(at + 1);
  }
  return starts;
}

/** Whether `after` is `before` moved by `delta`, drawn the same way. */
function sameSpan(before: HighlightSpan, after: HighlightSpan, delta: number): boolean {
  return (
    before.index === after.index &&
    after.start === before.start + delta &&
    after.end === before.end + delta &&
    before.kind === after.kind &&
    (before.score === after.score || aiLevel(before.score) === aiLevel(after.score))
  );
}
