/**
 * The text of a DOM subtree (an editor, or the part of the page a selection covers) with a
 * map back to text nodes, so that offsets in the text become DOM Ranges and back.
 *
 * Canonical capture (shared/CONTRACT.md, "Captured text"): the same content gives the same
 * text in every editor. A paragraph break (between block elements) is one blank line,
 * "\n\n"; a line break inside a paragraph (<br>) is "\n"; empty paragraphs add nothing more;
 * no break is put before the first or after the last character. Editors whose blocks are
 * lines of plain text (CodeMirror) are captured as lines: "\n" between lines, like a
 * textarea. Breaks are virtual characters that belong to no node. Editor placeholders and
 * filler characters (Slate's zero-width spans, CKEditor's inline filler, the spacers by an
 * inline element, see SPACER) are not text.
 */

interface Segment {
  node: Text;
  /** Offset of this segment in the text. */
  start: number;
  /** Offset in the node where the segment starts (non-zero when a selection clips it). */
  nodeOffset: number;
  length: number;
}

export interface CaptureOptions {
  /** Blocks are lines (a code editor): "\n" between blocks, and an empty block is an empty line. */
  lines?: boolean;
  /** Only these text nodes are text (a page's main text, without its navigation and asides). */
  include?: (node: Text) => boolean;
}

const BLOCK = /^(P|DIV|LI|UL|OL|H[1-6]|BLOCKQUOTE|PRE|TR|TD|TH|TABLE|SECTION|ARTICLE|HEADER|FOOTER|FIGURE|FIGCAPTION|DT|DD|DL|HR)$/;
/**
 * A spacer a view draws beside an inline element for the caret: a no-break space in a
 * non-editable span of font size 0 (exactly: a chip of font size 0.9em is the writer's), in no
 * model (Plate's on both sides of a link, inside its end;
 * slate-react's examples' `InlineChromiumBugfix`). Read as text, a link's sentence held two no-break
 * spaces its model does not, and every rewrite of it was refused as one over an embedded item.
 */
export const SPACER = '[contenteditable="false"]:is([style*="font-size: 0px"], [style*="font-size:0px"], [style*="font-size: 0;"], [style*="font-size:0;"])';
/**
 * Vditor's instant-rendering mode keeps the markdown source in its DOM and hides its syntax
 * (`**`, `*`, `#`, a link's brackets and URL) in zero-size markers until the caret is in that
 * node: read as text, the check and the rewrite got markup the writer never sees (the panel's
 * "Before" held `**artificial intelligence**` and the link's URL, measured with Vditor 3.11).
 * Not text, expanded or not (so the text does not change as the caret moves); the code of a
 * code block is in a marker too (`--pre`), and stays text.
 */
const VDITOR_MARKER = '.vditor-ir__marker:not(.vditor-ir__marker--pre)';
/** Markup an editor keeps in its DOM and hides from the writer, which an edit must not take half of (apply.ts). */
export const HIDDEN_MARKUP = VDITOR_MARKER;
/** Not text the writer wrote: placeholders, editors' filler nodes and hidden markup. */
const SKIPPED = `[data-slate-zero-width],[data-slate-placeholder],[aria-hidden="true"],${SPACER},${VDITOR_MARKER},script,style,template`;
const FILLER = /^[\u2060\ufeff]+/;
/** TinyMCE's caret character after a link's text, where it put the caret. */
const TRAILING_FILLER = /[\u2060\ufeff]+$/;
/** A node with filler at an edge: its text is not its data. */
const EDGE_FILLER = /^[\u2060\ufeff]|[\u2060\ufeff]$/;

export class DomText {
  #text: string;
  readonly #segments: Segment[];
  #indexOfNode: Map<Text, number> | undefined;
  readonly #bounded: boolean;

  constructor(root: Node, bounds?: Range, options: CaptureOptions = {}) {
    let text = '';
    const segments: Segment[] = [];
    /** Line breaks owed before the next character: 0, 1 ("\n") or 2 ("\n\n"). */
    let pending = 0;
    let lastBlock: Node | undefined;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
      acceptNode: (node) =>
        node.nodeType === Node.ELEMENT_NODE && node !== root && (node as Element).matches(SKIPPED) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
    });
    const blockOf = (node: Node): Node => {
      for (let element = node.parentElement; element && element !== root; element = element.parentElement) {
        if (BLOCK.test(element.tagName)) return element;
      }
      return root;
    };
    for (let node: Node | null = walker.nextNode(); node; node = walker.nextNode()) {
      if (bounds && !bounds.intersectsNode(node)) continue;
      if (node.nodeType === Node.ELEMENT_NODE) {
        const tag = (node as Element).tagName;
        // In lines, every line start owes one break (so empty lines count); elsewhere a <br> is a line break.
        if (options.lines) pending += BLOCK.test(tag) ? 1 : 0;
        else if (tag === 'BR') pending = Math.min(2, pending + 1);
        continue;
      }
      const textNode = node as Text;
      if (options.include && !options.include(textNode)) continue;
      let from = FILLER.exec(textNode.data)?.[0].length ?? 0;
      let to = textNode.data.length - (TRAILING_FILLER.exec(textNode.data)?.[0].length ?? 0);
      if (bounds?.startContainer === textNode) from = Math.max(from, bounds.startOffset);
      if (bounds?.endContainer === textNode) to = Math.min(to, bounds.endOffset);
      if (to <= from) continue;
      if (!options.lines) {
        const block = blockOf(textNode);
        if (lastBlock !== undefined && block !== lastBlock) pending = 2;
        lastBlock = block;
      }
      // Breaks are written only between characters: never leading, never trailing.
      if (text && pending) text += '\n'.repeat(options.lines ? pending : pending === 2 ? 2 : 1);
      pending = 0;
      segments.push({ node: textNode, start: text.length, nodeOffset: from, length: to - from });
      text += textNode.data.slice(from, to);
    }
    this.#text = text;
    this.#segments = segments;
    this.#bounded = bounds !== undefined;
  }

  get text(): string {
    return this.#text;
  }

  /**
   * Follows a text node whose data changed in place (typing): its part of the text is
   * replaced and later segments shift. False when that could read differently from a new
   * model (a node outside this text, clipped by bounds, emptied, or gaining or losing the
   * line break that decides a block's virtual one); then build a new model.
   */
  updateNode(node: Text): boolean {
    if (this.#bounded) return false;
    this.#indexOfNode ??= new Map(this.#segments.map((segment, index) => [segment.node, index]));
    const index = this.#indexOfNode.get(node);
    const segment = index === undefined ? undefined : this.#segments[index]!;
    if (!segment || !node.isConnected || !node.data || EDGE_FILLER.test(node.data)) return false;
    if (node.data.endsWith('\n') !== (this.#text[segment.start + segment.length - 1] === '\n')) return false;
    const delta = node.data.length - segment.length;
    this.#text = this.#text.slice(0, segment.start) + node.data + this.#text.slice(segment.start + segment.length);
    segment.length = node.data.length;
    for (let i = index! + 1; i < this.#segments.length; i++) this.#segments[i]!.start += delta;
    return true;
  }

  /** The DOM position of a text offset; a virtual character maps to the next segment's start. */
  position(offset: number, preferEnd = false): { node: Text; offset: number } | undefined {
    const segments = this.#segments;
    let low = 0;
    let high = segments.length - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const segment = segments[mid]!;
      // At the boundary of two nodes, the end of the earlier one is asked for: found by going left.
      const endOfPrevious = preferEnd && offset === segment.start && mid > 0 && segments[mid - 1]!.start + segments[mid - 1]!.length === offset;
      if (offset < segment.start || endOfPrevious) high = mid - 1;
      else if (offset > segment.start + segment.length || (offset === segment.start + segment.length && !preferEnd)) low = mid + 1;
      else return { node: segment.node, offset: segment.nodeOffset + offset - segment.start };
    }
    const next = segments[low];
    if (next && !preferEnd) return { node: next.node, offset: next.nodeOffset };
    const previous = segments[low - 1];
    return previous && { node: previous.node, offset: previous.nodeOffset + previous.length };
  }

  range(start: number, end: number): Range | undefined {
    const from = this.position(start);
    const to = this.position(end, true);
    if (!from || !to) return undefined;
    const range = document.createRange();
    range.setStart(from.node, from.offset);
    range.setEnd(to.node, to.offset);
    return range;
  }

  /** The text offset of a DOM position inside a text node, if that node is part of this text. */
  offsetOf(node: Node, offset: number): number | undefined {
    for (const segment of this.#segments) {
      if (segment.node === node && offset >= segment.nodeOffset && offset <= segment.nodeOffset + segment.length) {
        return segment.start + offset - segment.nodeOffset;
      }
    }
    return undefined;
  }
}
