import { askPage, askPageFor } from '../page/bridge.ts';
import { contains, type HighlightSpan, type Highlighter } from './highlighters.ts';
import { firstIndex } from './remap.ts';
import { AI_LEVELS, SOURCE_HIGHLIGHT, aiLevel, bandDeclarations, sourceDeclarations } from './styles.ts';
import { CODE_EDITOR_ROOT } from './editors.ts';
import type { FieldText } from './field-text.ts';
import type { ValueTarget } from './target.ts';
import { pageScheme } from './theme.ts';

/**
 * Highlights in a code editor that draws its own lines (CodeMirror 5, Ace, Monaco): the editor marks the
 * ranges itself, through its API in the page's world, so the marks move and scroll with its
 * lines; hit tests and boxes are asked of it too. Offsets cross as the editor's (the value's).
 */
export class CodeEditorHighlighter implements Highlighter {
  #drawn: readonly HighlightSpan[] = [];
  /** The offsets of the text drawn (redrawn with every edit): pointer moves and caret checks do not read the document again. */
  #offsets: FieldText | undefined;
  readonly #css: string;
  readonly #editor: HTMLElement;

  constructor(
    private readonly target: ValueTarget,
    private readonly kind: 'ai' | 'source',
  ) {
    this.#editor = target.element.closest<HTMLElement>(CODE_EDITOR_ROOT) ?? target.element;
    const scheme = pageScheme(target.element);
    // Ace draws a mark as a box behind the text, where no text decoration shows: a border does.
    const rule = (name: string, declarations: string, underline: string) =>
      `.${name} { ${declarations} } .ace_marker-layer .${name} { position: absolute; border-bottom: 2px ${underline}; }`;
    this.#css = [
      ...AI_LEVELS.map((level) => rule(level.name, bandDeclarations(level.band, scheme), `${level.band.underline.style} ${level.band.underline[scheme]}`)),
      rule(SOURCE_HIGHLIGHT.name, sourceDeclarations(scheme), `dotted ${SOURCE_HIGHLIGHT[scheme].underline}`),
    ].join('\n');
  }

  draw(spans: readonly HighlightSpan[]): void {
    this.#drawn = spans;
    const offsets = (this.#offsets = this.target.fieldText());
    const marks = spans.map((span) => ({
      start: offsets.toValue(span.start),
      end: offsets.toValue(span.end, true),
      className: span.kind === 'source' ? SOURCE_HIGHLIGHT.name : aiLevel(span.score).name,
    }));
    askPage(this.target.element, { op: 'mark', layer: this.kind, marks, css: this.#css });
  }

  #spanAt(valueOffset: string | undefined): HighlightSpan | undefined {
    if (valueOffset === undefined || !this.#offsets) return undefined;
    const offset = this.#offsets.toText(Number(valueOffset));
    const span = this.#drawn[firstIndex(this.#drawn, (candidate) => candidate.end > offset)];
    return span && contains(span, offset) ? span : undefined;
  }

  spanAtPoint(x: number, y: number): HighlightSpan | undefined {
    if (!this.#drawn.length) return undefined;
    // The editor maps any point to its nearest character: only points over it are asked.
    const bounds = this.#editor.getBoundingClientRect();
    if (x < bounds.left || x > bounds.right || y < bounds.top || y > bounds.bottom) return undefined;
    return this.#spanAt(askPageFor(this.target.element, { op: 'offsetAt', x, y }));
  }

  spanAtCaret(): HighlightSpan | undefined {
    if (!this.#drawn.length || document.activeElement !== this.target.element) return undefined;
    return this.#spanAt(askPageFor(this.target.element, { op: 'caret' }));
  }

  rectOf(span: HighlightSpan): DOMRect | undefined {
    return this.rectsOf(span)[0];
  }

  rectsOf(span: HighlightSpan): DOMRect[] {
    const offsets = this.#offsets;
    if (!offsets) return [];
    const reply = askPageFor(this.target.element, { op: 'boxes', start: offsets.toValue(span.start), end: offsets.toValue(span.end, true) });
    if (!reply) return [];
    const boxes = JSON.parse(reply) as [number, number, number, number][];
    return boxes.map(([left, top, right, bottom]) => new DOMRect(left, top, right - left, bottom - top));
  }

  select(span: HighlightSpan): void {
    const offsets = this.#offsets;
    if (!offsets) return;
    this.target.element.focus({ preventScroll: true });
    askPage(this.target.element, { op: 'select', start: offsets.toValue(span.start), end: offsets.toValue(span.end, true) });
  }

  clear(): void {
    this.#drawn = [];
    this.#offsets = undefined;
    askPage(this.target.element, { op: 'mark', layer: this.kind, marks: [], css: this.#css });
  }
}
