import type { Span } from './remap.ts';
import { AI_LEVELS, SOURCE_HIGHLIGHT, UI_CSS, aiLevel, installHighlightStyles } from './styles.ts';
import type { DomText } from './dom-text.ts';
import type { DomTarget, FieldTarget } from './target.ts';

/** A span drawn in the page: an AI-labelled sentence or a flagged source match. */
export interface HighlightSpan extends Span {
  /** Index of the item in the result (chunk or match), for the side panel. */
  index: number;
  kind: 'ai' | 'source';
  score: number;
}

export interface Highlighter {
  draw(spans: readonly HighlightSpan[]): void;
  spanAtPoint(x: number, y: number): HighlightSpan | undefined;
  spanAtCaret(): HighlightSpan | undefined;
  rectOf(span: HighlightSpan): DOMRect | undefined;
  /** Scrolls to the span and selects it. */
  select(span: HighlightSpan): void;
  clear(): void;
}

const contains = (span: Span, offset: number) => offset >= span.start && offset < span.end;

function caretAt(x: number, y: number): { node: Node; offset: number } | undefined {
  const doc = document as Document & { caretPositionFromPoint?: (x: number, y: number) => { offsetNode: Node; offset: number } | null };
  if (doc.caretPositionFromPoint) {
    const position = doc.caretPositionFromPoint(x, y);
    return position ? { node: position.offsetNode, offset: position.offset } : undefined;
  }
  const range = document.caretRangeFromPoint?.(x, y);
  return range ? { node: range.startContainer, offset: range.startOffset } : undefined;
}

/** DOM text: the CSS Custom Highlight API paints ranges without touching the editor's DOM. */
export class DomHighlighter implements Highlighter {
  #spans: readonly HighlightSpan[] = [];
  /** The text model as of the last draw; every DOM change of the target leads to a redraw. */
  #model: DomText | undefined;
  /** The highlight names this highlighter owns: AI levels, or the source style. */
  readonly #names: string[];

  constructor(
    private readonly target: DomTarget,
    kind: HighlightSpan['kind'],
  ) {
    installHighlightStyles();
    this.#names = kind === 'source' ? [SOURCE_HIGHLIGHT.name] : AI_LEVELS.map((level) => level.name);
  }

  draw(spans: readonly HighlightSpan[]): void {
    this.#spans = spans;
    const model = (this.#model = this.target.model());
    const groups = new Map<string, Range[]>();
    for (const span of spans) {
      const range = model.range(span.start, span.end);
      if (!range) continue;
      const name = span.kind === 'source' ? SOURCE_HIGHLIGHT.name : aiLevel(span.score).name;
      groups.set(name, [...(groups.get(name) ?? []), range]);
    }
    for (const name of this.#names) {
      const ranges = groups.get(name);
      if (ranges) CSS.highlights.set(name, new Highlight(...ranges));
      else CSS.highlights.delete(name);
    }
  }

  spanAtPoint(x: number, y: number): HighlightSpan | undefined {
    const caret = caretAt(x, y);
    if (!caret || !this.target.element.contains(caret.node)) return undefined;
    const offset = this.#current().offsetOf(caret.node, caret.offset);
    if (offset === undefined) return undefined;
    const span = this.#spans.find((candidate) => contains(candidate, offset));
    // caret-from-point snaps to the nearest character: only count it if the point is on the span.
    return span && pointInRects(this.#rects(span), x, y) ? span : undefined;
  }

  spanAtCaret(): HighlightSpan | undefined {
    const selection = document.getSelection();
    if (!selection?.rangeCount || !this.target.element.contains(selection.anchorNode)) return undefined;
    const offset = this.#current().offsetOf(selection.anchorNode!, selection.anchorOffset);
    return offset === undefined ? undefined : this.#spans.find((candidate) => contains(candidate, offset));
  }

  #current(): DomText {
    return (this.#model ??= this.target.model());
  }

  #rects(span: HighlightSpan): DOMRect[] {
    return [...(this.#current().range(span.start, span.end)?.getClientRects() ?? [])];
  }

  rectOf(span: HighlightSpan): DOMRect | undefined {
    return this.#current().range(span.start, span.end)?.getBoundingClientRect();
  }

  select(span: HighlightSpan): void {
    const range = this.#current().range(span.start, span.end);
    if (!range) return;
    if (this.target.kind === 'editor') this.target.element.focus({ preventScroll: true });
    const selection = document.getSelection()!;
    selection.removeAllRanges();
    selection.addRange(range);
    (range.startContainer.parentElement ?? this.target.element).scrollIntoView({ block: 'center', behavior: 'instant' });
  }

  clear(): void {
    this.#spans = [];
    this.#model = undefined;
    for (const name of this.#names) CSS.highlights.delete(name);
  }
}

function pointInRects(rects: DOMRect[], x: number, y: number): boolean {
  return rects.some((rect) => x >= rect.left && x <= rect.right && y >= rect.top && y <= rect.bottom);
}

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
 * wrapping, laid exactly over it, scrolled with it, and transparent to the pointer.
 */
export class FieldHighlighter implements Highlighter {
  readonly #host = document.createElement('redline-overlay');
  readonly #mirror = document.createElement('div');
  readonly #cleanup: (() => void)[] = [];
  #spans: readonly HighlightSpan[] = [];
  #marks = new Map<HighlightSpan, HTMLElement>();
  #frame = 0;

  constructor(private readonly target: FieldTarget) {
    const shadow = this.#host.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    style.textContent = `${UI_CSS}
      .mirror { position: fixed; overflow: hidden; color: transparent; pointer-events: none; z-index: 2147483646;
        border-color: transparent; background: transparent; margin: 0; }
      .mirror mark { color: transparent; border-radius: 2px; }
      ${AI_LEVELS.map((level) => `.mirror mark.${level.name} { background: ${level.color}; }`).join('\n')}
      .mirror mark.source { background: rgba(60, 120, 255, 0.28); text-decoration: underline dotted rgb(40, 90, 220); }`;
    this.#mirror.className = 'mirror';
    this.#mirror.setAttribute('aria-hidden', 'true');
    shadow.append(style, this.#mirror);
    this.#host.style.cssText = 'all: initial; position: static;';

    const schedule = () => {
      cancelAnimationFrame(this.#frame);
      this.#frame = requestAnimationFrame(() => this.#layout());
    };
    const field = target.element;
    const syncScroll = () => {
      this.#mirror.scrollTop = field.scrollTop;
      this.#mirror.scrollLeft = field.scrollLeft;
    };
    field.addEventListener('scroll', syncScroll, { passive: true });
    const resize = new ResizeObserver(schedule);
    resize.observe(field);
    document.addEventListener('scroll', schedule, { capture: true, passive: true });
    window.addEventListener('resize', schedule, { passive: true });
    window.visualViewport?.addEventListener('resize', schedule, { passive: true });
    this.#cleanup.push(
      () => field.removeEventListener('scroll', syncScroll),
      () => resize.disconnect(),
      () => document.removeEventListener('scroll', schedule, { capture: true }),
      () => window.removeEventListener('resize', schedule),
      () => window.visualViewport?.removeEventListener('resize', schedule),
    );
  }

  #layout(): void {
    const field = this.target.element;
    const rect = field.getBoundingClientRect();
    const computed = getComputedStyle(field);
    const style = this.#mirror.style;
    for (const property of MIRRORED_STYLES) style.setProperty(property, computed.getPropertyValue(property));
    if (field instanceof HTMLInputElement) style.setProperty('white-space', 'pre');
    else if (computed.whiteSpace === 'normal') style.setProperty('white-space', 'pre-wrap');
    style.left = `${rect.left}px`;
    style.top = `${rect.top}px`;
    style.width = `${rect.width}px`;
    style.height = `${rect.height}px`;
    style.boxSizing = 'border-box';
    style.display = rect.width === 0 ? 'none' : 'block';
    // Match the field's scrollbar gutter so lines wrap at the same width.
    const scrollbar = field.offsetWidth - field.clientWidth - parseFloat(computed.borderLeftWidth) - parseFloat(computed.borderRightWidth);
    style.paddingRight = `${parseFloat(computed.paddingRight) + Math.max(0, scrollbar)}px`;
    this.#mirror.scrollTop = field.scrollTop;
    this.#mirror.scrollLeft = field.scrollLeft;
  }

  draw(spans: readonly HighlightSpan[]): void {
    this.#spans = spans;
    if (!this.#host.isConnected) document.documentElement.append(this.#host);
    const text = this.target.readText();
    const fragment = document.createDocumentFragment();
    this.#marks = new Map();
    let cursor = 0;
    for (const span of [...spans].sort((a, b) => a.start - b.start)) {
      if (span.start < cursor) continue;
      fragment.append(text.slice(cursor, span.start));
      const mark = document.createElement('mark');
      mark.className = span.kind === 'source' ? 'source' : aiLevel(span.score).name;
      mark.textContent = text.slice(span.start, span.end);
      this.#marks.set(span, mark);
      fragment.append(mark);
      cursor = span.end;
    }
    // A trailing newline needs a character after it to take up a line, as in the field.
    fragment.append(`${text.slice(cursor)}\u200b`);
    this.#mirror.replaceChildren(fragment);
    this.#layout();
  }

  spanAtPoint(x: number, y: number): HighlightSpan | undefined {
    const fieldRect = this.target.element.getBoundingClientRect();
    if (x < fieldRect.left || x > fieldRect.right || y < fieldRect.top || y > fieldRect.bottom) return undefined;
    for (const [span, mark] of this.#marks) if (pointInRects([...mark.getClientRects()], x, y)) return span;
    return undefined;
  }

  spanAtCaret(): HighlightSpan | undefined {
    const field = this.target.element;
    if (document.activeElement !== field || field.selectionStart === null) return undefined;
    const caret = field.selectionStart;
    return this.#spans.find((span) => contains(span, caret));
  }

  rectOf(span: HighlightSpan): DOMRect | undefined {
    return this.#marks.get(span)?.getBoundingClientRect();
  }

  select(span: HighlightSpan): void {
    const field = this.target.element;
    field.scrollIntoView({ block: 'center', behavior: 'instant' });
    field.focus({ preventScroll: true });
    field.setSelectionRange(span.start, span.end);
    const mark = this.#marks.get(span);
    if (mark && field instanceof HTMLTextAreaElement) {
      field.scrollTop = Math.max(0, mark.offsetTop - field.clientHeight / 3);
    }
    this.#layout();
  }

  clear(): void {
    this.#spans = [];
    this.#marks.clear();
    this.#mirror.replaceChildren();
    this.#host.remove();
  }

  dispose(): void {
    this.clear();
    for (const cleanup of this.#cleanup) cleanup();
  }
}
