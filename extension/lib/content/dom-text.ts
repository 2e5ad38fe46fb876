/**
 * The text of a DOM subtree (an editor, or the part of the page a selection covers) with a
 * map back to text nodes, so that offsets in the text become DOM Ranges and back. Block
 * elements and <br> add a virtual "\n" that belongs to no node, so paragraphs do not run
 * together ("end.Start") in what is sent for analysis.
 */

interface Segment {
  node: Text;
  /** Offset of this segment in the text. */
  start: number;
  /** Offset in the node where the segment starts (non-zero when a selection clips it). */
  nodeOffset: number;
  length: number;
}

const BLOCK = /^(P|DIV|LI|UL|OL|H[1-6]|BLOCKQUOTE|PRE|TR|TABLE|SECTION|ARTICLE|HEADER|FOOTER|FIGURE|FIGCAPTION|DT|DD)$/;

export class DomText {
  readonly text: string;
  readonly #segments: Segment[];

  constructor(root: Node, bounds?: Range) {
    let text = '';
    const segments: Segment[] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let node: Node | null = walker.currentNode; node; node = walker.nextNode()) {
      if (bounds && !bounds.intersectsNode(node)) continue;
      if (node.nodeType === Node.ELEMENT_NODE) {
        const element = node as Element;
        if (element.tagName === 'BR') text += '\n';
        else if (node !== root && BLOCK.test(element.tagName) && text && !text.endsWith('\n')) text += '\n';
        continue;
      }
      const textNode = node as Text;
      let from = 0;
      let to = textNode.data.length;
      if (bounds?.startContainer === textNode) from = bounds.startOffset;
      if (bounds?.endContainer === textNode) to = bounds.endOffset;
      if (to <= from) continue;
      segments.push({ node: textNode, start: text.length, nodeOffset: from, length: to - from });
      text += textNode.data.slice(from, to);
    }
    this.text = text;
    this.#segments = segments;
  }

  /** The DOM position of a text offset; a virtual character maps to the next segment's start. */
  position(offset: number, preferEnd = false): { node: Text; offset: number } | undefined {
    const segments = this.#segments;
    let low = 0;
    let high = segments.length - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const segment = segments[mid]!;
      if (offset < segment.start) high = mid - 1;
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
