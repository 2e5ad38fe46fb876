// @vitest-environment happy-dom
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomText } from '../../extension/lib/content/dom-text.ts';
import { FieldHighlighter } from '../../extension/lib/content/field-highlighter.ts';
import type { HighlightSpan } from '../../extension/lib/content/highlighters.ts';
import { LiveDomText } from '../../extension/lib/content/live-text.ts';
import { diffText, remapSpans } from '../../extension/lib/content/remap.ts';
import { fieldTarget, type DomTarget } from '../../extension/lib/content/target.ts';
import { CONTENTEDITABLE } from '../../extension/lib/content/editors.ts';
import { aiLevel } from '../../extension/lib/content/styles.ts';
import { fieldText } from '../../extension/lib/content/field-text.ts';

/**
 * The incremental paths against a fresh build: the editor's text model patched from its
 * mutations reads as a new walk of the DOM, and the textarea mirror patched edit by edit is
 * the mirror a full draw of the same spans builds.
 */

const word = fc.constantFrom('one', 'Two.', 'three', 'four.', ' ', '\n', 'é', '😀');
const words = (max: number) => fc.array(word, { maxLength: max }).map((parts) => parts.join(''));

function editorTarget(root: HTMLElement): DomTarget {
  return {
    kind: 'editor',
    element: root,
    family: CONTENTEDITABLE,
    model: () => new DomText(root),
    readText: () => new DomText(root).text,
    observe: () => () => {},
  };
}

type DomEdit = { kind: 'type'; node: number; at: number; removed: number; inserted: string } | { kind: 'split'; paragraph: number } | { kind: 'remove'; node: number };

const domEdit: fc.Arbitrary<DomEdit> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('type' as const), node: fc.nat(), at: fc.nat(), removed: fc.integer({ min: 0, max: 4 }), inserted: words(2) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('split' as const), paragraph: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), node: fc.nat() }) },
);

function textNodes(root: Node): Text[] {
  const nodes: Text[] = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) nodes.push(node as Text);
  return nodes;
}

function applyDomEdit(root: HTMLElement, edit: DomEdit): void {
  const nodes = textNodes(root);
  if (edit.kind === 'type') {
    const node = nodes[edit.node % Math.max(1, nodes.length)];
    if (!node) return;
    const at = edit.at % (node.data.length + 1);
    node.replaceData(at, edit.removed, edit.inserted);
  } else if (edit.kind === 'remove') {
    nodes[edit.node % Math.max(1, nodes.length)]?.remove();
  } else {
    const paragraphs = root.querySelectorAll('p');
    const paragraph = paragraphs[edit.paragraph % Math.max(1, paragraphs.length)];
    if (paragraph) paragraph.after(Object.assign(document.createElement('p'), { textContent: 'New paragraph.' }));
  }
}

describe('the editor text model patched from mutations', () => {
  it('reads exactly as a new walk of the DOM after any edits, and maps offsets to the same DOM positions', async () => {
    const paragraphs = fc.array(fc.array(words(4), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 5 });
    await fc.assert(
      fc.asyncProperty(paragraphs, fc.array(fc.array(domEdit, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 5 }), async (content, batches) => {
        const root = document.createElement('div');
        for (const pieces of content) {
          const paragraph = document.createElement('p');
          pieces.forEach((piece, i) => paragraph.append(i === 1 ? Object.assign(document.createElement('b'), { textContent: piece }) : document.createTextNode(piece)));
          root.append(paragraph);
        }
        document.body.replaceChildren(root);
        const live = new LiveDomText(editorTarget(root));
        try {
          for (const batch of batches) {
            for (const edit of batch) applyDomEdit(root, edit);
            // Sometimes the observer has delivered its records, sometimes they are still queued.
            if (batch.length % 2) await Promise.resolve();
            const patched = live.model();
            const fresh = new DomText(root);
            expect(patched.text).toBe(fresh.text);
            for (let offset = 0; offset <= fresh.text.length; offset++) {
              expect(patched.position(offset)).toEqual(fresh.position(offset));
              expect(patched.position(offset, true)).toEqual(fresh.position(offset, true));
            }
          }
        } finally {
          live.dispose();
        }
      }),
      { numRuns: 200 },
    );
  });
});

/**
 * What a mirror shows: its text, each mark (offset, text, style), and whether every block but
 * the last ends a line (so blocks break lines only where the field does). How the lines are
 * grouped into blocks may differ between a patched and a fresh mirror.
 */
/**
 * The marks a mirror of the field's `value` must show for `spans` (offsets in the captured
 * text): each span after the previous one, touching pieces of one style read as one.
 */
function expectedMarks(value: string, captured: HighlightSpan[]): [number, string, string][] {
  const offsets = fieldText(value);
  const text = value;
  const spans = captured.map((span) => ({ ...span, start: offsets.toValue(span.start), end: offsets.toValue(span.end, true) }));
  const marks: [number, string, string][] = [];
  let end = 0;
  for (const span of [...spans].sort((a, b) => a.start - b.start)) {
    // An empty mark has no text to show.
    if (span.start < end || !text.slice(span.start, span.end)) continue;
    end = span.end;
    const name = aiLevel(span.score).name;
    const last = marks.at(-1);
    if (last && last[0] + last[1].length === span.start && last[2] === name) last[1] += text.slice(span.start, span.end);
    else marks.push([span.start, text.slice(span.start, span.end), name]);
  }
  return marks;
}

function describe_(mirror: Element) {
  const marks: [number, string, string][] = [];
  let offset = 0;
  const walker = document.createTreeWalker(mirror, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement!;
    if (parent.tagName === 'MARK') {
      // Mark pieces that touch read as one: a span across a block boundary has a piece in each.
      const last = marks.at(-1);
      if (last && last[0] + last[1].length === offset && last[2] === parent.className) last[1] += node.textContent!;
      else marks.push([offset, node.textContent!, parent.className]);
    }
    offset += node.textContent!.length;
  }
  const blocks = [...mirror.firstElementChild!.children];
  return { text: mirror.textContent, marks, blocksEndLines: blocks.slice(0, -1).every((block) => block.textContent!.endsWith('\n')) };
}

function mirrorOf(): Element {
  const hosts = document.querySelectorAll('redline-overlay');
  return hosts[hosts.length - 1]!.shadowRoot!.querySelector('.mirror')!;
}

/**
 * happy-dom lays nothing out: here every block of the mirror is 10 px high and the field shows
 * `blocks` of them, scrolled down by `above` blocks, so a draw builds only the blocks down to a
 * screen below the view (those more than a screen above it plain) and the edits that follow
 * fall in plain blocks, in blocks with marks and past the blocks built.
 */
function fakeLayout(blocks: number, above: number): () => void {
  const prototype = HTMLElement.prototype;
  const saved = (['offsetHeight', 'offsetTop', 'clientHeight', 'scrollTop'] as const).map((name) => [name, Object.getOwnPropertyDescriptor(prototype, name)] as const);
  Object.defineProperty(prototype, 'scrollTop', { configurable: true, get: () => above * 10, set: () => {} });
  Object.defineProperty(prototype, 'offsetHeight', { configurable: true, get: () => 10 });
  Object.defineProperty(prototype, 'offsetTop', { configurable: true, get(this: HTMLElement) { return this.parentElement ? [...this.parentElement.children].indexOf(this) * 10 : 0; } });
  Object.defineProperty(prototype, 'clientHeight', { configurable: true, get: () => blocks * 10 });
  return () => {
    for (const [name, descriptor] of saved) {
      if (descriptor) Object.defineProperty(prototype, name, descriptor);
      else delete (prototype as unknown as Record<string, unknown>)[name];
    }
  };
}

describe('the textarea mirror patched edit by edit', () => {
  it('is the mirror a full draw of the remapped spans builds, after any edits, whether the draw built every block or only those in view', () => {
    const sentences = fc.array(fc.tuple(words(5), fc.boolean(), fc.double({ min: 0.5, max: 1, noNaN: true })), { minLength: 1, maxLength: 10 });
    const edits = fc.array(fc.record({ at: fc.nat(), removed: fc.integer({ min: 0, max: 8 }), inserted: words(3) }), { minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(sentences, edits, fc.integer({ min: 1, max: 12 }), fc.constantFrom(0, 1, 3), fc.constantFrom(0, 4), (parts, sequence, blockSize, blocksInView, blocksAbove) => {
        const restoreLayout = blocksInView ? fakeLayout(blocksInView, blocksAbove) : () => {};
        try {
        let text = '';
        let spans: HighlightSpan[] = [];
        parts.forEach(([part, labelled, score], index) => {
          if (labelled && part) spans.push({ start: text.length, end: text.length + part.length, index, kind: 'ai', score });
          text += part;
        });
        document.body.replaceChildren();
        document.documentElement.querySelectorAll('redline-overlay').forEach((host) => host.remove());
        const field = document.createElement('textarea');
        field.value = text;
        document.body.append(field);
        // Small blocks, so that edits regroup lines across blocks.
        const patched = new FieldHighlighter(fieldTarget(field), blockSize);
        patched.draw(spans);
        for (const { at, removed, inserted } of sequence) {
          const position = at % (text.length + 1);
          const next = text.slice(0, position) + inserted + text.slice(position + removed);
          field.value = next;
          const edit = diffText(text, next);
          spans = remapSpans(text, next, spans, edit);
          patched.draw(spans, edit);
          text = next;
        }
        patched.buildAll();
        const patchedMirror = describe_(mirrorOf());
        const fresh = new FieldHighlighter(fieldTarget(field), blockSize);
        fresh.draw(spans);
        fresh.buildAll();
        expect(patchedMirror).toEqual(describe_(mirrorOf()));
        expect(patchedMirror.text).toBe(`${text}\u200b`);
        expect(patchedMirror.marks).toEqual(expectedMarks(text, spans));
        expect(patchedMirror.blocksEndLines).toBe(true);
        patched.dispose();
        fresh.dispose();
        } finally {
          restoreLayout();
        }
      }),
      { numRuns: 300 },
    );
  });
});
