import { describe, expect, it } from 'vitest';
import {
  AnalysableText,
  McpIdempotencyKey,
  MAX_TEXT_CHARACTERS,
  OffsetMap,
  RestIdempotencyKey,
  countCharacters,
  countWords,
  newIdempotencyKey,
  sentenceSegments,
} from '@redline/shared';

describe('countWords: whitespace-separated words, Unicode White_Space', () => {
  it.each([
    ['', 0],
    ['   \n\t ', 0],
    ['one', 1],
    ['one two  three', 3],
    ['line\nbreak\ttab', 3],
    ['no\u00a0break\u00a0space', 3], // NBSP separates
    ['ideographic\u3000space', 2], // U+3000
    ['em\u2003space thin\u2009space', 4],
    ['line\u2028separator', 2],
    ['zero\u200bwidth', 1], // ZWSP is not whitespace
    ['bom\ufeffinside', 1], // BOM is not whitespace
    ['family 👨‍👩‍👧 emoji 😀', 4],
    ["it's co-operative, isn't it?", 4],
  ])('%j has %i words', (text, expected) => {
    expect(countWords(text)).toBe(expected);
  });
});

describe('countCharacters: Unicode code points', () => {
  it('counts a character outside the BMP once', () => {
    expect(countCharacters('😀')).toBe(1);
    expect(countCharacters('a😀b')).toBe(3);
    expect(countCharacters('é')).toBe(1);
    expect(countCharacters('e\u0301')).toBe(2); // combining mark: two code points
    expect(countCharacters('\ud800')).toBe(1); // lone surrogate
  });

  it('applies to the 160,000 limit', () => {
    expect(AnalysableText.safeParse('😀'.repeat(MAX_TEXT_CHARACTERS)).success).toBe(true);
    const over = AnalysableText.safeParse('😀'.repeat(MAX_TEXT_CHARACTERS) + 'a');
    expect(over.success).toBe(false);
    expect(over.error?.issues[0]?.message).toMatch(/160,000 characters/);
    expect(AnalysableText.safeParse('\u00a0 \n').error?.issues[0]?.message).toMatch(/empty/);
  });
});

describe('OffsetMap', () => {
  const text = 'a😀b\u{1F468}\u200D\u{1F469}c';
  const map = new OffsetMap(text);

  it('maps code point offsets to UTF-16 and back', () => {
    expect(map.length).toBe(countCharacters(text));
    expect(map.toUtf16(0)).toBe(0);
    expect(map.toUtf16(1)).toBe(1);
    expect(map.toUtf16(2)).toBe(3);
    expect(map.toUtf16(map.length)).toBe(text.length);
    for (let cp = 0; cp <= map.length; cp++) expect(map.toCodePoint(map.toUtf16(cp))).toBe(cp);
    expect(map.slice(1, 3)).toBe('😀b');
  });

  it('maps a UTF-16 index inside a surrogate pair to the pair', () => {
    expect(map.toCodePoint(2)).toBe(1);
  });

  it('refuses offsets outside the text', () => {
    expect(() => map.toUtf16(map.length + 1)).toThrow(RangeError);
    expect(() => map.toCodePoint(-1)).toThrow(RangeError);
    expect(() => map.toUtf16(1.5)).toThrow(RangeError);
  });
});

describe('idempotency keys', () => {
  it('REST keys are 8 to 128 URL-safe characters, MCP keys 16 to 128', () => {
    expect(RestIdempotencyKey.safeParse('abcd-_89').success).toBe(true);
    expect(RestIdempotencyKey.safeParse('abcd-_8').success).toBe(false);
    expect(RestIdempotencyKey.safeParse('x'.repeat(129)).success).toBe(false);
    expect(RestIdempotencyKey.safeParse('abc+/=abc').success).toBe(false);
    expect(McpIdempotencyKey.safeParse('abcd-_89').success).toBe(false);
    expect(McpIdempotencyKey.safeParse('abcdefgh-_123456').success).toBe(true);
  });

  it('new keys are valid for REST and MCP and do not repeat', () => {
    const keys = new Set(Array.from({ length: 1000 }, newIdempotencyKey));
    expect(keys.size).toBe(1000);
    for (const key of keys) {
      expect(RestIdempotencyKey.parse(key)).toBe(key);
      expect(McpIdempotencyKey.parse(key)).toBe(key);
    }
  });
});

describe('sentenceSegments', () => {
  it('finds the same segments in windows as the segmenter on the whole text', () => {
    const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });
    const pieces = ['Dr. Smith arrived.', 'It rained!', 'Was it "over?" she asked.', 'See e.g. the notes (p. 4).', 'A😀 b.', '\n\n', 'no end here', '...', '  ', 'U.S. law applies.', `${'x'.repeat(5000)}.`];
    let seed = 15;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (let round = 0; round < 20; round++) {
      let text = '';
      while (text.length < 30_000) text += pieces[Math.floor(random() * pieces.length)]! + (random() < 0.7 ? ' ' : '');
      const whole = [...segmenter.segment(text)].map(({ segment, index }) => ({ segment, index }));
      expect([...sentenceSegments(text)]).toEqual(whole);
    }
  });
});
