import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sentenceSegments, splitSentences } from '@redline/shared';

// Texts built from what real prose holds at a sentence's edges: abbreviations and initials,
// every kind of line break and space the Unicode standard names, emoji, combining marks and
// right-to-left words. ICU ends a sentence at every line or paragraph separator (UAX #29,
// SB4), so no sentence may hold one, whatever the abbreviation rule merges.
const LINE_BREAKS = ['\n', '\r\n', '\r', '\u2028', '\u2029', '\u0085'];
const SPACES = [' ', ' ', ' ', '\t', '\u00a0', '\u2003', '\u3000', '\u202f', '\u000b', '\u000c'];
const WORDS = ['the', 'Report', 'was', 'filed', 'Dr.', 'Mrs.', 'U.S.', 'H.J.', 'e.g.', 'vs.', 'No.', 'J.', 'Smith', '2.5', '1440', '😀', 'cafe\u0301', 'שלום', '"Quoted', 'end."', 'why?', 'so!', '(see', 'Fig.', 'p.', 'Inc.', '\u200bzero'];
const PUNCTUATION = ['.', '!', '?', '', '', '…'];

const token = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...WORDS) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...PUNCTUATION)).map(([word, mark]) => word + mark) },
);
const gap = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...SPACES) }, { weight: 1, arbitrary: fc.constantFrom(...LINE_BREAKS) });
const prose = fc
  .array(fc.tuple(token, gap), { minLength: 1, maxLength: 60 })
  .chain((parts) => fc.tuple(fc.constant(parts), fc.constantFrom('', ' ', '\n', '\u2028')))
  .map(([parts, edge]) => edge + parts.map(([word, space]) => word + space).join(''));

const LINE_OR_PARAGRAPH_SEPARATOR = /[\n\r\u0085\u2028\u2029]/u;
const WHITE_SPACE_AT_EDGE = /^\p{White_Space}|\p{White_Space}$/u;

describe('splitSentences (property)', () => {
  it('indexes the text exactly, in order, trimmed, and covers every visible character once', () => {
    fc.assert(
      fc.property(prose, (text) => {
        const sentences = splitSentences(text);
        let previousEnd = 0;
        for (const sentence of sentences) {
          expect(sentence.start).toBeGreaterThanOrEqual(previousEnd);
          expect(text.slice(sentence.start, sentence.end)).toBe(sentence.text);
          expect(sentence.text).not.toMatch(WHITE_SPACE_AT_EDGE);
          expect(text.slice(previousEnd, sentence.start)).toMatch(/^\p{White_Space}*$/u);
          previousEnd = sentence.end;
        }
        expect(text.slice(previousEnd)).toMatch(/^\p{White_Space}*$/u);
      }),
      { numRuns: 2_000, seed: 20261128 },
    );
  });

  it('never keeps a line or paragraph break inside a sentence, after an abbreviation too', () => {
    fc.assert(
      fc.property(prose, (text) => {
        for (const sentence of splitSentences(text)) expect(sentence.text).not.toMatch(LINE_OR_PARAGRAPH_SEPARATOR);
      }),
      { numRuns: 2_000, seed: 20261128 },
    );
  });

  it('segments a long text window by window exactly as ICU does over the whole text', () => {
    const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });
    // Runs without a letter, a separator or a terminator (a row of numbers) longer than ICU's
    // lookahead window: after a full stop, ICU looks across them for a lowercase letter (SB8).
    const letterless = fc.tuple(fc.constantFrom('1 ', '2, ', '😀 ', '- ', '\u00a0'), fc.integer({ min: 100, max: 2_500 })).map(([unit, count]) => unit.repeat(count));
    const longProse = fc.array(fc.oneof({ weight: 8, arbitrary: prose }, { weight: 1, arbitrary: letterless }), { minLength: 20, maxLength: 60 }).map((texts) => texts.join(' '));
    fc.assert(
      fc.property(longProse, (text) => {
        const whole = [...segmenter.segment(text)].map(({ segment, index }) => ({ segment, index }));
        expect([...sentenceSegments(text)]).toEqual(whole);
      }),
      { numRuns: 60, seed: 20261128 },
    );
  });
});

describe('sentenceSegments window by window', () => {
  it('keeps no break that a lowercase letter past the window takes back (ICU SB8)', () => {
    // ICU over the whole text: no break after "ended. ", since "and" is the first letter after
    // it, 4,200 characters on. A window that ends in the digits saw no letter and broke there.
    const text = 'It ended. ' + '1 '.repeat(2_100) + 'and then it went on.';
    const whole = [...new Intl.Segmenter('en', { granularity: 'sentence' }).segment(text)].map(({ segment, index }) => ({ segment, index }));
    expect(whole.map(({ index }) => index)).toEqual([0]);
    expect([...sentenceSegments(text)]).toEqual(whole);
  });

  it('takes no letter that ICU attaches to the character before it (Sentence_Break Extend) as deciding the break', () => {
    // U+FF9E (halfwidth katakana voiced sound mark) is a letter (Lm) but Grapheme_Extend, so ICU's
    // SB5 folds it into the digit before it: the lowercase "and" 6,000 characters on still decides.
    const text = 'It ended. 1\uFF9E ' + '1 '.repeat(3_000) + 'and then it went on. Next one.';
    const whole = [...new Intl.Segmenter('en', { granularity: 'sentence' }).segment(text)].map(({ segment, index }) => ({ segment, index }));
    expect(whole.map(({ index }) => index)).toEqual([0, text.indexOf('Next')]);
    expect([...sentenceSegments(text)]).toEqual(whole);
  });
});

describe('splitSentences: a break after an abbreviation', () => {
  it.each(LINE_BREAKS.map((lineBreak) => [[...lineBreak].map((c) => `U+${c.codePointAt(0)!.toString(16).padStart(4, '0')}`).join(' '), lineBreak]))('%s after "Dr." ends the line and the sentence', (_, lineBreak) => {
    expect(splitSentences(`Ask the Dr.${lineBreak}Nobody answered.`).map((sentence) => sentence.text)).toEqual(['Ask the Dr.', 'Nobody answered.']);
  });
});
