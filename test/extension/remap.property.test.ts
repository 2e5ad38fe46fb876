import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffText, remapSpans, type Span } from '../../extension/lib/content/remap.ts';

/**
 * The remap as it was first written, kept here as the oracle: it compares the two texts
 * character by character and classifies every span, in any order. The product's remap finds
 * the edit by comparing blocks and only looks at the spans around it.
 */
function remapFromScratch<T extends Span>(before: string, after: string, spans: readonly T[]): T[] {
  if (before === after) return [...spans];
  let prefix = 0;
  const maxPrefix = Math.min(before.length, after.length);
  while (prefix < maxPrefix && before[prefix] === after[prefix]) prefix++;
  let suffix = 0;
  const maxSuffix = maxPrefix - prefix;
  while (suffix < maxSuffix && before[before.length - 1 - suffix] === after[after.length - 1 - suffix]) suffix++;
  const changedEndBefore = before.length - suffix;
  const delta = after.length - before.length;
  const result: (T & { relocated?: true })[] = [];
  for (const span of spans) {
    if (span.end <= prefix) result.push(span);
    else if (span.start >= changedEndBefore) result.push({ ...span, start: span.start + delta, end: span.end + delta });
    else {
      const needle = before.slice(span.start, span.end);
      const windowStart = Math.max(0, prefix - needle.length);
      const region = after.slice(windowStart, Math.min(after.length, changedEndBefore + delta + needle.length));
      const first = region.indexOf(needle);
      if (needle && first >= 0 && region.indexOf(needle, first + 1) < 0) result.push({ ...span, start: windowStart + first, end: windowStart + first + needle.length, relocated: true });
    }
  }
  // A relocated span that would overlap or pass a kept neighbour is dropped.
  const kept: typeof result = [];
  result.forEach((span, i) => {
    const next = result.slice(i + 1).find((other) => !other.relocated);
    if (span.relocated && (span.start < (kept.at(-1)?.end ?? 0) || (next && span.end > next.start))) return;
    kept.push(span);
  });
  return kept.map(({ relocated, ...span }) => span as unknown as T);
}

// A small alphabet makes repeated sentences (and so ambiguous relocations) common.
const piece = fc.constantFrom('a', 'b', 'c', '. ', 'ab. ', '\n', '😀');
const text = (maxLength: number) => fc.array(piece, { maxLength }).map((pieces) => pieces.join(''));
// Long runs of one block exercise the block-wise comparison of the diff.
const longText = fc.tuple(text(20), fc.integer({ min: 0, max: 3000 }), text(20)).map(([head, repeat, tail]) => head + 'abc. '.repeat(repeat) + tail);

const edit = (source: string) =>
  fc.record({ at: fc.integer({ min: 0, max: source.length }), removed: fc.integer({ min: 0, max: 12 }), inserted: text(6) }).map(({ at, removed, inserted }) => {
    const end = Math.min(source.length, at + removed);
    return source.slice(0, at) + inserted + source.slice(end);
  });

/** Sorted, non-overlapping spans of `source`, as a result's sentences are. */
const spansOf = (source: string) =>
  fc.uniqueArray(fc.integer({ min: 0, max: source.length }), { maxLength: 16 }).map((cuts) => {
    const sorted = [...cuts].sort((a, b) => a - b);
    const spans: (Span & { index: number })[] = [];
    for (let i = 0; i + 1 < sorted.length; i += 2) if (sorted[i]! < sorted[i + 1]!) spans.push({ start: sorted[i]!, end: sorted[i + 1]!, index: i / 2 });
    return spans;
  });

const document = fc.oneof(text(60), longText).chain((before) => fc.tuple(fc.constant(before), spansOf(before), edit(before)));

describe('incremental remap (property)', () => {
  it('finds the same edit region as a character-by-character comparison', () => {
    fc.assert(
      fc.property(document, ([before, , after]) => {
        const region = diffText(before, after);
        if (before === after) {
          expect(region).toBeUndefined();
          return;
        }
        let prefix = 0;
        while (before[prefix] === after[prefix] && prefix < Math.min(before.length, after.length)) prefix++;
        expect(region!.start).toBe(prefix);
        expect(before.slice(0, region!.start) + after.slice(region!.start, region!.start + region!.inserted) + before.slice(region!.start + region!.removed)).toBe(after);
      }),
      { numRuns: 500 },
    );
  });

  it('equals a from-scratch remap after any one edit', () => {
    fc.assert(
      fc.property(document, ([before, spans, after]) => {
        expect(remapSpans(before, after, spans)).toEqual(remapFromScratch(before, after, spans));
      }),
      { numRuns: 1000 },
    );
  });

  it('equals a from-scratch remap along a burst of edits, and every kept span still reads the same', () => {
    const burst = text(80).chain((start) =>
      fc.tuple(
        fc.constant(start),
        spansOf(start),
        fc.array(fc.record({ at: fc.nat(), removed: fc.integer({ min: 0, max: 5 }), inserted: text(3) }), { minLength: 1, maxLength: 20 }),
      ),
    );
    fc.assert(
      fc.property(burst, ([start, spans, edits]) => {
        let before = start;
        let incremental = spans;
        let fromScratch = spans;
        for (const { at, removed, inserted } of edits) {
          const position = at % (before.length + 1);
          const after = before.slice(0, position) + inserted + before.slice(position + removed);
          const original = new Map(incremental.map((span) => [span.index, before.slice(span.start, span.end)]));
          incremental = remapSpans(before, after, incremental);
          fromScratch = remapFromScratch(before, after, fromScratch);
          expect(incremental).toEqual(fromScratch);
          for (const span of incremental) expect(after.slice(span.start, span.end)).toBe(original.get(span.index));
          incremental.forEach((span, i) => i > 0 && expect(span.start).toBeGreaterThanOrEqual(incremental[i - 1]!.end));
          before = after;
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('incremental remap of text with odd characters (property)', () => {
  // Spans on code point boundaries (as a result's sentences are) of text holding every line
  // break ICU knows, tabs, NBSP, zero-width characters, emoji with modifiers, combining marks and
  // right-to-left words; one edit of whole code points, as typing or pasting makes.
  const ODD = ['The tools.', 'it', 'Dr.', ' ', '\t', '\r', '\r\n', '\n', '\u0085', '\u2028', '\u2029', '\u00a0', '\u200b', '\u200d', '\ufeff', '😀', '👍🏽', 'e\u0301', 'שלום.', 'مرحبا', '\u200f', '語', '. '];
  const oddText = (maxLength: number) => fc.array(fc.constantFrom(...ODD), { maxLength }).map((pieces) => pieces.join(''));
  const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
  const oddDocument = oddText(30).chain((before) => {
    const bounds = [0];
    for (const character of before) bounds.push(bounds.at(-1)! + character.length);
    return fc.tuple(fc.constant(before), fc.uniqueArray(fc.constantFrom(...bounds), { maxLength: 10 }), fc.constantFrom(...bounds), fc.integer({ min: 0, max: 4 }), oddText(3));
  });

  it('keeps every span it keeps reading the same, in order, on whole code points, as a from-scratch remap does', () => {
    fc.assert(
      fc.property(oddDocument, ([before, cuts, at, removedCodePoints, inserted]) => {
        const sorted = [...cuts].sort((a, b) => a - b);
        const spans: (Span & { index: number })[] = [];
        for (let i = 0; i + 1 < sorted.length; i += 2) if (sorted[i]! < sorted[i + 1]!) spans.push({ start: sorted[i]!, end: sorted[i + 1]!, index: i / 2 });
        let end = at;
        for (let k = 0; k < removedCodePoints && end < before.length; k++) end += before.codePointAt(end)! > 0xffff ? 2 : 1;
        const after = before.slice(0, at) + inserted + before.slice(end);
        const kept = remapSpans(before, after, spans);
        expect(kept).toEqual(remapFromScratch(before, after, spans));
        let previousEnd = 0;
        for (const span of kept) {
          expect(after.slice(span.start, span.end)).toBe(before.slice(spans[span.index]!.start, spans[span.index]!.end));
          expect(span.start).toBeGreaterThanOrEqual(previousEnd);
          expect(isLowSurrogate(after.charCodeAt(span.start)) || isLowSurrogate(after.charCodeAt(span.end))).toBe(false);
          previousEnd = span.end;
        }
      }),
      { numRuns: 1000 },
    );
  });
});
