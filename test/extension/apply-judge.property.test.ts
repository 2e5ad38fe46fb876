import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { judgeAfterInput } from '../../extension/lib/content/apply.ts';

/**
 * When the writer types while a suggestion goes in, the apply stops and judges the text
 * without touching it. Whatever the writer's one edit, the verdict must be true of the text:
 * `applied` only with the suggestion exactly at `at` and the rest of the text the writer's,
 * `interrupted` only with the sentence still as it was, else `overlapped`.
 */

const text = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '.', 'é', '\n', 'x'), maxLength: 40 });
const nonEmpty = text.filter((value) => value.length > 0);
/** What the writer types: characters the texts never hold, so where their edit is cannot be mistaken. */
const typedApart = fc.string({ unit: fc.constantFrom('1', '2', '3'), minLength: 1, maxLength: 6 });
const scenario = fc
  .record({ head: text, sentence: nonEmpty, tail: text, replacement: nonEmpty, typed: text, typedApart, took: fc.boolean(), at: fc.nat(), removes: fc.nat({ max: 5 }) })
  .filter((s) => s.replacement !== s.sentence)
  .map((s) => {
    const before = s.head + s.sentence + s.tail;
    const start = s.head.length;
    const end = start + s.sentence.length;
    const expected = s.head + s.replacement + s.tail;
    // The writer's one edit, on the text as it was when they typed: with or without the suggestion in.
    const base = s.took ? expected : before;
    const at = s.at % (base.length + 1);
    const now = base.slice(0, at) + s.typed + base.slice(Math.min(base.length, at + s.removes));
    return { ...s, before, start, end, expected, now };
  });

describe('judgeAfterInput', () => {
  it('says only what the text shows', () => {
    fc.assert(
      fc.property(scenario, ({ before, start, end, expected, now, replacement, sentence }) => {
        const verdict = judgeAfterInput(now, before, expected, start, end, replacement.length, 'execCommand');
        if (verdict.status === 'applied') {
          expect(now.slice(verdict.at, verdict.at + replacement.length)).toBe(replacement);
          // Outside the suggestion, the text is the rest of `expected` with one edit that does not reach into it.
          const outside = now.slice(0, verdict.at) + now.slice(verdict.at + replacement.length);
          const expectedOutside = expected.slice(0, start) + expected.slice(start + replacement.length);
          expect(outside.length - expectedOutside.length).toBe(now.length - expected.length);
        } else if (verdict.status === 'interrupted') {
          expect(now).toContain(sentence);
        } else expect(verdict.status).toBe('overlapped');
      }),
      { numRuns: 2000 },
    );
  });

  it('an edit away from the sentence is never read the wrong way round', () => {
    fc.assert(
      fc.property(scenario, fc.boolean(), ({ before, start, end, expected, replacement, typedApart, took }, atEnd) => {
        // The writer types at the very start or the very end of the text, away from a sentence that is not there.
        fc.pre(atEnd ? end < before.length : start > 0);
        const base = took ? expected : before;
        const now = atEnd ? base + typedApart : typedApart + base;
        const verdict = judgeAfterInput(now, before, expected, start, end, replacement.length, 'execCommand');
        // Texts built of few letters can be read both ways ("1ab" is "aab" with its first letter
        // typed over, or "ab" with "1" typed before it): then nothing is claimed.
        if (verdict.status === 'overlapped') return;
        if (took) expect(verdict).toEqual({ status: 'applied', strategy: 'execCommand', at: start + (atEnd ? 0 : typedApart.length) });
        else expect(verdict).toEqual({ status: 'interrupted' });
      }),
      { numRuns: 2000 },
    );
  });

  it('on prose, an edit away from the sentence gets the right verdict, or none when the words repeat so that the text reads both ways', () => {
    const words = fc.constantFrom('the', 'keepers', 'trimmed', 'wicks', 'every', 'evening', 'and', 'lenses', 'by', 'hand');
    const sentenceOf = fc.array(words, { minLength: 3, maxLength: 12 }).map((w) => `${w.join(' ')}.`);
    fc.assert(
      fc.property(sentenceOf, sentenceOf, sentenceOf, sentenceOf, fc.string({ minLength: 1, maxLength: 8 }), fc.boolean(), fc.boolean(), (head, sentence, tail, replacement, typed, took, atEnd) => {
        fc.pre(replacement !== sentence);
        const before = `${head} ${sentence} ${tail}`;
        const [start, end] = [head.length + 1, head.length + 1 + sentence.length];
        const expected = `${head} ${replacement} ${tail}`;
        const base = took ? expected : before;
        const now = atEnd ? `${base} ${typed}` : `${typed} ${base}`;
        const verdict = judgeAfterInput(now, before, expected, start, end, replacement.length, 'execCommand');
        // ("the the the. the evening lenses by." with "1 " typed before it is also "the the the."
        // typed over by "1 the the the. the": a text that reads both ways claims nothing.)
        if (verdict.status === 'overlapped') return;
        expect(verdict).toEqual(took ? { status: 'applied', strategy: 'execCommand', at: start + (atEnd ? 0 : typed.length + 1) } : { status: 'interrupted' });
      }),
      { numRuns: 1000 },
    );
  });

  it('real sentences with typing before or after them get a definite verdict', () => {
    const head = 'Lighthouse keepers trimmed the wicks every evening.';
    const sentence = 'It is important to note that the lenses were polished by hand.';
    const replacement = 'The lenses were polished by hand.';
    const tail = 'Most lights are automated now.';
    const before = `${head} ${sentence} ${tail}`;
    const expected = `${head} ${replacement} ${tail}`;
    const [start, end] = [head.length + 1, head.length + 1 + sentence.length];
    for (const typed of ['x', ' and more', 'Q. ']) {
      for (const [base, took] of [[expected, true], [before, false]] as const) {
        for (const atEnd of [true, false]) {
          const now = atEnd ? base + typed : typed + base;
          const verdict = judgeAfterInput(now, before, expected, start, end, replacement.length, 'execCommand');
          expect(verdict).toEqual(took ? { status: 'applied', strategy: 'execCommand', at: start + (atEnd ? 0 : typed.length) } : { status: 'interrupted' });
        }
      }
    }
  });

  it('examples: typing after the sentence, before it, and into it', () => {
    const before = 'One. Two here. Three.';
    const expected = 'One. 2 here. Three.';
    const [start, end] = [5, 14];
    const judge = (now: string) => judgeAfterInput(now, before, expected, start, end, '2 here.'.length, 'beforeinput');
    expect(judge('One. 2 here. Three. More')).toEqual({ status: 'applied', strategy: 'beforeinput', at: 5 });
    expect(judge('Hi One. 2 here. Three.')).toEqual({ status: 'applied', strategy: 'beforeinput', at: 8 });
    expect(judge('One. Two here. Three. More')).toEqual({ status: 'interrupted' });
    expect(judge('One. 2 heXre. Three.')).toEqual({ status: 'overlapped' });
    expect(judge('One. TwXo here. Three.')).toEqual({ status: 'overlapped' });
  });
});
