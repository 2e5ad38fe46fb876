import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { holdsAt, keptBeside, readRange } from '../../extension/lib/content/region-in-text.ts';

/**
 * An apply judges its own range while the rest of the text changes by itself (a co-author's
 * words arriving): built here as head + range + tail, the range replaced, and the head and tail
 * edited away from the range's edges by changes that cannot be mistaken for the range's (their
 * characters are found nowhere else).
 */

const text = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '.', 'é', '\n'), maxLength: 30 });
const nonEmpty = text.filter((value) => value.length > 0);
/** Another alphabet: a range's new text that no neighbour can be mistaken for. */
const apart = fc.string({ unit: fc.constantFrom('x', 'y', 'z'), minLength: 1, maxLength: 12 });
/** A co-author's words: characters no other part holds. */
const coauthor = fc.string({ unit: fc.constantFrom('1', '2', '3'), minLength: 1, maxLength: 6 });

/** `side` with `words` inserted at `at`, kept clear of the edge at its end (`clearOfEnd`) or its start. */
function edited(side: string, words: string, at: number, clearOfEnd: boolean): string {
  if (side.length === 0) return side;
  const place = clearOfEnd ? at % side.length : 1 + (at % side.length);
  return side.slice(0, place) + words + side.slice(place);
}

const scenario = fc
  .record({
    head: text,
    range: nonEmpty,
    tail: text,
    replacement: fc.oneof(nonEmpty, apart),
    headWords: fc.option(coauthor, { nil: undefined }),
    tailWords: fc.option(coauthor, { nil: undefined }),
    headAt: fc.nat(),
    tailAt: fc.nat(),
    took: fc.boolean(),
  })
  .map((s) => {
    const head = s.headWords ? edited(s.head, s.headWords, s.headAt, true) : s.head;
    const tail = s.tailWords ? edited(s.tail, s.tailWords, s.tailAt, false) : s.tail;
    const before = s.head + s.range + s.tail;
    const middle = s.took ? s.replacement : s.range;
    return { ...s, before, start: s.head.length, end: s.head.length + s.range.length, now: head + middle + tail, at: head.length, middle, unchangedRest: head + s.range + tail };
  });

describe('holdsAt', () => {
  it('finds the range wherever the rest moved it, with exactly what it holds', () => {
    fc.assert(
      fc.property(scenario, ({ before, now, start, end, at, middle, took, replacement }) => {
        const found = holdsAt(before, now, start, end, middle);
        // A text of its own alphabet is found; one made of its neighbours' letters may fit in
        // more than one place ("a" between spaces, a space among them): then none is claimed.
        if (took && /^[xyz]+$/.test(replacement)) expect(found).toBe(at);
        else expect([at, undefined]).toContain(found);
      }),
      { numRuns: 3000 },
    );
  });

  it('never says a range holds what it does not', () => {
    fc.assert(
      fc.property(scenario, text, ({ before, now, start, end }, other) => {
        const at = holdsAt(before, now, start, end, other);
        if (at === undefined) return;
        expect(now.slice(at, at + other.length)).toBe(other);
        // The rest is the rest of `before`, changed only clear of the range's edges.
        const head = before.slice(0, start);
        const tail = before.slice(end);
        if (head.length > 0) expect(now[at - 1]).toBe(head.at(-1));
        else expect(at).toBe(0);
        if (tail.length > 0) expect(now[at + other.length]).toBe(tail[0]);
        else expect(at + other.length).toBe(now.length);
      }),
      { numRuns: 3000 },
    );
  });

  it('claims only what is true: the replacement, or the text the range kept', () => {
    // (A defect found by accept-generated.e2e.ts: medium-editor left a sentence as it was, and its
    // text after the part, "r to navigate … technological", was read as the part's "r" with " t"
    // kept and the rest inserted after it, clear of the edge: the panel said Accepted.)
    fc.assert(
      fc.property(scenario, ({ before, now, start, end, range, replacement, took, at }) => {
        fc.pre(replacement !== range);
        const reading = readRange(before, now, start, end, replacement);
        // Some texts read both ways ("\naa1": "\na" kept and "1" added after it, or "\n" with
        // "a1" added after the "a" that follows), or fit in two places ("é é é"): then nothing
        // is claimed. What is claimed is true.
        if (reading.holds === 'either' || reading.holds === 'other') return;
        expect(reading).toEqual({ holds: took ? 'replacement' : 'original', at });
      }),
      { numRuns: 5000 },
    );
    const before = 'in order to navigate the complexities of an ever-evolving technological paradigm.';
    const start = before.indexOf('r to');
    const end = before.indexOf(' technological');
    expect(holdsAt(before, before, start, end, 'r')).toBeUndefined();
    expect(readRange(before, before, start, end, 'r')).toEqual({ holds: 'original', at: start });
    // (Found by this property in CI: "a" kept at 5 also fits at 1, 3, 4 and 6; the replacement " "
    // fits once, at 2, if the co-author's changes deleted "a a" before it. No claim either way.)
    expect(readRange('a aaaa', '1a aaaa1', 4, 5, ' ')).toEqual({ holds: 'either' });
  });

  it('a change that touches the range edge from outside is not taken as the rest changing', () => {
    // The co-author's words right before the range: they could as well be the range's own.
    expect(holdsAt('ab.cd', 'ab.1XYcd', 3, 5, 'XYcd')).toBeUndefined();
    expect(holdsAt('ab.cd', 'ab.1XYcd', 3, 5, '1XYcd')).toBe(3);
    expect(holdsAt('ab.cd.ef', 'ab.XY.e2f', 3, 5, 'XY')).toBe(3);
  });
});

describe('holdsAt, where the text is found in many places', () => {
  it('narrows them down by a diff and still finds the one place that fits', () => {
    const paragraph = (n: number) => `Line ${n} has a word or two. `;
    const before = Array.from({ length: 120 }, (_, n) => paragraph(n)).join('');
    const start = before.indexOf('a word', before.indexOf('Line 60 '));
    const end = start + 'a word'.length;
    // The range now says "a" (found in every line), a co-author wrote in lines 10 and 100.
    const now = (before.slice(0, start) + 'a' + before.slice(end)).replace('Line 10 ', 'Line 10 (new) ').replace('Line 100 ', 'Line 100 (new) ');
    expect(holdsAt(before, now, start, end, 'a')).toBe(start + ' (new)'.length);
    expect(holdsAt(before, now, start, end, 'a word')).toBeUndefined();
  });
});

/**
 * The replacement an apply saw go in whole, then one more change beside it or away from it (a
 * co-author's word typed right at the sentence's edge): found where it went; with changes on both
 * sides, or one into it, nothing is claimed.
 */
describe('keptBeside', () => {
  const change = fc.record({ at: fc.nat(), removed: fc.nat({ max: 5 }), words: fc.string({ unit: fc.constantFrom('a', 'b', ' ', '1'), maxLength: 6 }) });
  /** `side` with `c` anywhere in it, at its edge beside the range too. */
  const replaced = (side: string, c: { at: number; removed: number; words: string }) => {
    const from = c.at % (side.length + 1);
    const to = Math.min(side.length, from + c.removed);
    return side.slice(0, from) + c.words + side.slice(to);
  };

  it('finds the range after one change wholly before or after it, touching it or not', () => {
    fc.assert(
      fc.property(text, nonEmpty, text, change, fc.boolean(), (head, range, tail, c, before) => {
        const was = head + range + tail;
        const now = before ? replaced(head, c) + range + tail : head + range + replaced(tail, c);
        const at = keptBeside(was, now, head.length, range.length);
        expect(at).toBeDefined();
        expect(now.slice(at!, at! + range.length)).toBe(range);
      }),
      { numRuns: 3000 },
    );
  });

  it('claims a place only where the rest reads as the text with one change on one side of it', () => {
    fc.assert(
      fc.property(text, nonEmpty, text, change, change, (head, range, tail, first, second) => {
        const was = head + range + tail;
        const now = replaced(head, first) + range + replaced(tail, second);
        const at = keptBeside(was, now, head.length, range.length);
        if (at === undefined) return;
        expect(now.slice(at, at + range.length)).toBe(range);
        const [headNow, tailNow] = [now.slice(0, at), now.slice(at + range.length)];
        expect(headNow === head || tailNow === tail).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('claims nothing when the change reaches into the range', () => {
    expect(keptBeside('one two three', 'one twX three', 4, 3)).toBeUndefined();
    expect(keptBeside('one two three', 'co1 one tw three', 4, 3)).toBeUndefined();
    expect(keptBeside('Today, it is.', 'co1 Today, it is.', 0, 6)).toBe(4);
  });
});
