import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OffsetMap, countCharacters, countWords, hasVisibleText, isWhiteSpaceCode, trimWhiteSpace } from '@redline/shared';
import { documentWords, splitDocument } from '@redline/bff/operations/documents';

// The split of large documents, with one whitespace rule (\p{White_Space}) everywhere: every
// White_Space and every format character (\p{Cf}) is tried at the edges of parts.

const codePoints = (pattern: RegExp) => {
  const found: string[] = [];
  for (let code = 0; code <= 0x10ffff; code++) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    const character = String.fromCodePoint(code);
    if (pattern.test(character)) found.push(character);
  }
  return found;
};
const WHITE_SPACE = codePoints(/^\p{White_Space}$/u);
const FORMAT = codePoints(/^\p{Cf}$/u);
const LETTERS = ['a', 'b', 'Z', 'é', '😀', '.', '?', '!', 'x'];

/** The properties every split must have. */
function expectValidSplit(text: string, max: number) {
  const document = splitDocument(text, max);
  expect(document.parts.map((part) => part.before + part.text).join('') + document.after).toBe(text);
  expect(document.characters).toBe(countCharacters(text));
  const map = new OffsetMap(text);
  document.parts.forEach((part, index) => {
    expect(countCharacters(part.text)).toBeLessThanOrEqual(max);
    expect(hasVisibleText(part.text)).toBe(true); // the upstream never sees an empty part
    expect(trimWhiteSpace(part.text)).toBe(part.text);
    expect(/^\p{White_Space}*$/u.test(part.before)).toBe(true);
    expect(map.slice(part.startChar, part.startChar + countCharacters(part.text))).toBe(part.text);
    // A cut without White_Space is inside a word: only where one word fills the whole part.
    if (index > 0 && part.before === '') {
      const previous = document.parts[index - 1]!.text;
      expect(countCharacters(previous)).toBe(max);
      expect(countWords(previous)).toBe(1);
    }
  });
  expect(/^\p{White_Space}*$/u.test(document.after)).toBe(true);
  const partWords = document.parts.reduce((sum, part) => sum + countWords(part.text), 0);
  const longestWord = (text.match(/[^\p{White_Space}]+/gu) ?? []).reduce((longest, word) => Math.max(longest, countCharacters(word)), 0);
  if (longestWord <= max) expect(partWords).toBe(countWords(text));
  if (countCharacters(text) > max) expect(documentWords(text, max)).toEqual({ words: partWords, parts: document.parts.length });
  return document;
}

describe('one whitespace rule', () => {
  it('isWhiteSpaceCode agrees with \\p{White_Space} on every code unit', () => {
    for (let unit = 0; unit <= 0xffff; unit++) {
      expect(isWhiteSpaceCode(unit), `U+${unit.toString(16)}`).toBe(/^\p{White_Space}$/u.test(String.fromCharCode(unit)));
    }
  });

  it('format characters are not White_Space: they are part of words', () => {
    expect(FORMAT.length).toBeGreaterThan(100);
    for (const character of FORMAT) expect(countWords(`a${character}b`)).toBe(1);
    expect(trimWhiteSpace('\u0085 x \ufeff')).toBe('x \ufeff');
  });
});

describe('splitDocument at part edges', () => {
  const max = 12;
  it.each(WHITE_SPACE.map((character) => [`U+${character.codePointAt(0)!.toString(16).padStart(4, '0')}`, character]))(
    'White_Space %s around the limit',
    (_name, space) => {
      for (let left = max - 3; left <= max + 2; left++) {
        for (const right of [1, max - 1, max, max + 3]) {
          expectValidSplit(`${'w'.repeat(left)}${space}${'v'.repeat(right)}`, max);
          expectValidSplit(`${'w'.repeat(left)}\n\n${space}\n\n${'v'.repeat(right)}`, max);
          expectValidSplit(`${space}${'w'.repeat(left)}${space}${space}${'v'.repeat(right)}${space}`, max);
          expectValidSplit(space.repeat(left + right), max);
        }
      }
    },
  );

  it.each(FORMAT.map((character) => [`U+${character.codePointAt(0)!.toString(16).padStart(4, '0')}`, character]))(
    'format character %s around the limit',
    (_name, format) => {
      for (let left = max - 3; left <= max + 2; left++) {
        expectValidSplit(`${'w'.repeat(left)}${format} ${'v'.repeat(max)}`, max);
        expectValidSplit(`${'w'.repeat(left)} ${format}${'v'.repeat(4)}`, max);
        expectValidSplit(`${'w'.repeat(left)}\n\n${format}\n\n${'v'.repeat(4)}`, max);
        expectValidSplit(format.repeat(left + max), max);
      }
    },
  );

  it('holds for any text of words, White_Space and format characters (property)', () => {
    const character = fc.constantFrom(...LETTERS, ...FORMAT, ...WHITE_SPACE, '\n', '\r\n', '\n\n', '. ');
    fc.assert(
      fc.property(fc.array(character, { maxLength: 400 }), fc.integer({ min: 1, max: 40 }), (characters, limit) => {
        expectValidSplit(characters.join(''), limit);
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps words whole when no word is longer than the limit (property)', () => {
    const word = fc.array(fc.constantFrom(...LETTERS, ...FORMAT), { minLength: 1, maxLength: 8 }).map((letters) => letters.join(''));
    const space = fc.array(fc.constantFrom(...WHITE_SPACE), { minLength: 1, maxLength: 3 }).map((spaces) => spaces.join(''));
    fc.assert(
      fc.property(fc.array(fc.tuple(word, space), { minLength: 1, maxLength: 120 }), fc.integer({ min: 8, max: 60 }), (pieces, limit) => {
        const text = pieces.map(([w, s]) => w + s).join('');
        const document = expectValidSplit(text, limit);
        const rebuilt = document.parts.flatMap((part) => part.text.match(/[^\p{White_Space}]+/gu) ?? []);
        expect(rebuilt).toEqual(text.match(/[^\p{White_Space}]+/gu) ?? []);
      }),
      { numRuns: 2000 },
    );
  });

  it('prefers a paragraph break, then a sentence end, then whitespace', () => {
    expect(splitDocument('First para here.\n\nSecond one goes on and on', 30).parts.map((part) => part.text)).toEqual([
      'First para here.',
      'Second one goes on and on',
    ]);
    expect(splitDocument('One sentence. Two sentence goes on and on', 30).parts[0]!.text).toBe('One sentence.');
    expect(splitDocument('one two three four five six seven eight', 20).parts[0]!.text).toBe('one two three four');
    expect(splitDocument('\u2029'.repeat(2) + 'a b\u2029c d e f g h i j k l', 10).parts[0]!.text).toBe('a b');
  });
});

describe('the three shapes at 1,000,000 characters', () => {
  it.each([
    ['one paragraph', 'The quick brown fox jumps over the lazy dog. '.repeat(22_223).slice(0, 1_000_000)],
    ['no sentence ends', 'word '.repeat(200_000)],
    ['one word', 'a'.repeat(1_000_000)],
  ])('%s splits into valid parts', (_name, text) => {
    const document = expectValidSplit(text, 160_000);
    expect(document.parts.length).toBeLessThanOrEqual(8);
  });
});
