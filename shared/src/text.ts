/**
 * How the project counts text, in one place.
 *
 * "Character" means a Unicode code point everywhere in the upstream contract: the
 * 160,000-character limit, `startChar`/`endChar` offsets, `ai_percentage` and
 * `plagiarism_score`. A character outside the BMP (an emoji, say) is one character, even
 * though a JavaScript string stores it as two UTF-16 code units. Code that indexes a JS
 * string must convert with `toUtf16Offset` / `toCodePointOffset`.
 *
 * "Word" is a maximal run of characters that are not Unicode White_Space (`\p{White_Space}`:
 * ASCII space, tab and line breaks, NBSP, the en/em spaces U+2000–U+200A, U+2028/U+2029,
 * U+202F, U+205F, U+3000, U+0085, U+1680). Zero-width space (U+200B), zero-width joiner and
 * the BOM are not whitespace, so they do not split words.
 */

const WORD = /[^\p{White_Space}]+/gu;
const NON_WHITESPACE = /[^\p{White_Space}]/u;

export function countWords(text: string): number {
  let count = 0;
  WORD.lastIndex = 0;
  while (WORD.exec(text) !== null) count++;
  return count;
}

export function countCharacters(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low surrogate is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

export function hasVisibleText(text: string): boolean {
  return NON_WHITESPACE.test(text);
}

const READABLE = /[^\p{White_Space}\p{Default_Ignorable_Code_Point}]/u;

/**
 * Whether the text holds something to analyse: a character that is neither White_Space nor
 * invisible by definition (zero-width spaces and joiners, byte order marks, soft hyphens,
 * direction marks, variation selectors). The upstream would charge a word for a text of
 * invisible characters alone, and find nothing in it.
 */
export function hasReadableText(text: string): boolean {
  return READABLE.test(text);
}

/**
 * The same rule for one UTF-16 code unit, for code that walks a string by index: the code
 * points of `\p{White_Space}` (all in the BMP). A test checks this list against the regex
 * for every code point, so the two cannot drift apart.
 */
export function isWhiteSpaceCode(unit: number): boolean {
  if (unit <= 0x20) return unit === 0x20 || (unit >= 0x09 && unit <= 0x0d);
  if (unit < 0x85) return false;
  if (unit <= 0xa0) return unit === 0x85 || unit === 0xa0;
  if (unit < 0x1680) return false;
  return (
    unit === 0x1680 ||
    (unit >= 0x2000 && unit <= 0x200a) ||
    unit === 0x2028 ||
    unit === 0x2029 ||
    unit === 0x202f ||
    unit === 0x205f ||
    unit === 0x3000
  );
}

/** `[start, end)` of `text[from, to)` without White_Space at either end (empty: start === end). */
export function trimmedBounds(text: string, from = 0, to = text.length): { start: number; end: number } {
  let start = from;
  let end = to;
  while (start < end && isWhiteSpaceCode(text.charCodeAt(start))) start++;
  while (end > start && isWhiteSpaceCode(text.charCodeAt(end - 1))) end--;
  return { start, end };
}

/** The text without White_Space at either end: `String.prototype.trim` by this project's rule. */
export function trimWhiteSpace(text: string): string {
  const { start, end } = trimmedBounds(text);
  return text.slice(start, end);
}

/** Maps code point offsets of one string to UTF-16 offsets and back. Build once per text. */
export class OffsetMap {
  readonly #utf16ByCodePoint: Uint32Array;
  readonly length: number;

  constructor(readonly text: string) {
    const offsets: number[] = [];
    for (let i = 0; i < text.length; i++) {
      offsets.push(i);
      const unit = text.charCodeAt(i);
      if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
        const next = text.charCodeAt(i + 1);
        if (next >= 0xdc00 && next <= 0xdfff) i++;
      }
    }
    offsets.push(text.length);
    this.#utf16ByCodePoint = Uint32Array.from(offsets);
    this.length = offsets.length - 1;
  }

  /** UTF-16 index of a code point offset (0..length inclusive). */
  toUtf16(codePointOffset: number): number {
    if (!Number.isInteger(codePointOffset) || codePointOffset < 0 || codePointOffset > this.length) {
      throw new RangeError(`code point offset ${codePointOffset} is outside 0..${this.length}`);
    }
    return this.#utf16ByCodePoint[codePointOffset]!;
  }

  /** Code point offset of a UTF-16 index; an index inside a surrogate pair maps to its start. */
  toCodePoint(utf16Offset: number): number {
    if (!Number.isInteger(utf16Offset) || utf16Offset < 0 || utf16Offset > this.text.length) {
      throw new RangeError(`UTF-16 offset ${utf16Offset} is outside 0..${this.text.length}`);
    }
    let low = 0;
    let high = this.length;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if (this.#utf16ByCodePoint[mid]! <= utf16Offset) low = mid;
      else high = mid - 1;
    }
    return low;
  }

  /** The substring between two code point offsets. */
  slice(startChar: number, endChar: number): string {
    return this.text.slice(this.toUtf16(startChar), this.toUtf16(endChar));
  }
}

/**
 * An e-mail address (the humanizer keeps it as written; the review aids flag one a rewrite
 * dropped). Its local part starts where its run does: else a long run without an @, such as an
 * inline image's data, is scanned from each of its characters (minutes for one image).
 */
export const EMAIL_ADDRESS = /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.\p{L}{2,}/gu;
