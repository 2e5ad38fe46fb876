import {
  MAX_TEXT_CHARACTERS,
  countCharacters,
  countWords,
  isWhiteSpaceCode,
  splitSentences,
  type DetectResponseLegacy,
  type HumanizeResponse,
  type PlagiarismResponse,
} from '@redline/shared';

/**
 * Large documents: a text over the upstream limit is cut into parts, and the parts' results
 * are merged back into one result for the whole text.
 *
 * Each part is as long as the limit allows and ends, in order of preference, at the last
 * paragraph break, the last sentence end or the last whitespace within the limit. A part
 * never starts or ends with White_Space (the word rule of @redline/shared/text), so the
 * upstream can never refuse one as empty, and a cut never falls inside a word unless one
 * word alone is longer than the limit. The work is linear in the text: each part scans at
 * most one limit's worth of characters, and sentence ends are looked for only in a short
 * window before the limit (Intl.Segmenter is quadratic on long strings).
 */

export interface DocumentPart {
  /** The part's text without surrounding White_Space: what is sent upstream. */
  text: string;
  /** White_Space (or nothing) between the previous part's text and this one. */
  before: string;
  /** Code point offset of `text` in the whole document. */
  startChar: number;
}

export interface SplitDocument {
  parts: DocumentPart[];
  /** White_Space after the last part. */
  after: string;
  characters: number;
}

/** How far back from the limit sentence ends are looked for (UTF-16 units). */
const SENTENCE_WINDOW = 4_000;

const isSpaceAt = (text: string, index: number) => index < text.length && isWhiteSpaceCode(text.charCodeAt(index));

const LINE_BREAK = /[\n\v\f\r\u0085\u2028\u2029]/g;
const SURROGATE = /[\ud800-\udfff]/;

/** Line breaks in a White_Space run, a CR LF pair counting once; a paragraph separator counts as two. */
function isParagraphBreak(text: string, from: number, to: number): boolean {
  let breaks = 0;
  for (let i = from; i < to; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 0x2029) return true;
    if (unit === 0x0d && text.charCodeAt(i + 1) === 0x0a) continue;
    if (unit === 0x0a || unit === 0x0b || unit === 0x0c || unit === 0x0d || unit === 0x85 || unit === 0x2028) breaks++;
    if (breaks >= 2) return true;
  }
  return false;
}

/** The start of the last paragraph break that begins in `(start, limit]`, or -1. */
function lastParagraphBreak(text: string, start: number, limit: number): number {
  let reach = limit;
  while (isSpaceAt(text, reach)) reach++;
  let last = -1;
  LINE_BREAK.lastIndex = start;
  for (let match = LINE_BREAK.exec(text); match && match.index < reach; match = LINE_BREAK.exec(text)) {
    // The whole White_Space run around this line break, examined once.
    let runStart = match.index;
    while (runStart > start && isSpaceAt(text, runStart - 1)) runStart--;
    let runEnd = match.index + 1;
    while (isSpaceAt(text, runEnd)) runEnd++;
    if (runStart > start && runStart <= limit && isParagraphBreak(text, runStart, runEnd)) last = runStart;
    LINE_BREAK.lastIndex = runEnd;
  }
  return last;
}

/** The end of the last whole sentence in `text[from, to)` that White_Space follows, or -1. */
function lastSentenceEnd(text: string, from: number, to: number): number {
  const sentences = splitSentences(text.slice(from, to));
  // The last span runs into the cut at `to`; the ones before it ended where the next began.
  for (let i = sentences.length - 2; i >= 0; i--) {
    const end = from + sentences[i]!.end;
    if (isSpaceAt(text, end)) return end;
  }
  return -1;
}

/** The start of the last White_Space run that begins in `(start, limit]`, or -1. */
function lastSpace(text: string, start: number, limit: number): number {
  let p = limit;
  while (p > start && !(isSpaceAt(text, p) && !isSpaceAt(text, p - 1))) p--;
  return p > start ? p : -1;
}

/**
 * Where the part that starts at `start` (not White_Space) ends, given that its text may reach
 * `limit` (exclusive) and the document goes on after it: the start of a White_Space run, or
 * `limit` itself when the whole window is one word.
 */
function cutBefore(text: string, start: number, limit: number): number {
  const paragraph = lastParagraphBreak(text, start, limit);
  if (paragraph > 0) return paragraph;
  const space = lastSpace(text, start, limit);
  if (space < 0) return limit; // one word longer than the limit
  const sentenceEnd = lastSentenceEnd(text, Math.max(start, limit - SENTENCE_WINDOW), limit);
  return sentenceEnd > start ? sentenceEnd : space;
}

/** Counts code points while moving forward through a text; without surrogates, units are code points. */
class CodePointCursor {
  index = 0;
  codePoints = 0;
  readonly #plain: boolean;

  constructor(private readonly text: string) {
    this.#plain = !SURROGATE.test(text);
  }

  moveTo(index: number): void {
    if (this.#plain) {
      this.codePoints += index - this.index;
      this.index = index;
      return;
    }
    while (this.index < index) this.#step();
  }

  /** The index `count` code points ahead of the cursor (or `bound`, if nearer), without moving. */
  ahead(count: number, bound: number): number {
    if (this.#plain) return Math.min(this.index + count, bound);
    let index = this.index;
    for (let n = 0; n < count && index < bound; n++) index = nextCodePoint(this.text, index);
    return index;
  }

  #step(): void {
    this.index = nextCodePoint(this.text, this.index);
    this.codePoints++;
  }
}

function nextCodePoint(text: string, index: number): number {
  const unit = text.charCodeAt(index);
  if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
    const next = text.charCodeAt(index + 1);
    if (next >= 0xdc00 && next <= 0xdfff) return index + 2;
  }
  return index + 1;
}

export function splitDocument(text: string, max: number = MAX_TEXT_CHARACTERS): SplitDocument {
  let contentEnd = text.length;
  while (contentEnd > 0 && isSpaceAt(text, contentEnd - 1)) contentEnd--;
  const cursor = new CodePointCursor(text);
  const parts: DocumentPart[] = [];
  let previousEnd = 0;
  while (true) {
    let start = cursor.index;
    while (start < contentEnd && isSpaceAt(text, start)) start++;
    if (start >= contentEnd) break;
    cursor.moveTo(start);
    const limit = cursor.ahead(max, contentEnd);
    const end = limit >= contentEnd ? contentEnd : cutBefore(text, start, limit);
    parts.push({ text: text.slice(start, end), before: text.slice(previousEnd, start), startChar: cursor.codePoints });
    cursor.moveTo(end);
    previousEnd = end;
  }
  cursor.moveTo(text.length);
  return { parts, after: text.slice(previousEnd), characters: cursor.codePoints };
}

/**
 * The words an operation on this text is charged: the upstream counts each part's words, so
 * a word longer than the limit, cut into parts, is counted once per part.
 */
export function documentWords(text: string, max: number = MAX_TEXT_CHARACTERS): { words: number; parts: number } {
  // Code points never outnumber UTF-16 units: a short text needs no count.
  if (text.length <= max || countCharacters(text) <= max) return { words: countWords(text), parts: 1 };
  const { parts } = splitDocument(text, max);
  return { words: parts.reduce((sum, part) => sum + countWords(part.text), 0), parts: parts.length };
}

const percentage = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 100);

export function mergeDetections(document: SplitDocument, results: DetectResponseLegacy[]): DetectResponseLegacy {
  const withChunks = results.every((result) => result.data.details.chunks !== undefined);
  let aiCharacters = 0;
  const chunks = withChunks
    ? results.flatMap((result, index) =>
        result.data.details.chunks!.map((chunk) => {
          const shift = document.parts[index]!.startChar;
          if (chunk.type === 'AI') aiCharacters += chunk.endChar - chunk.startChar;
          return { ...chunk, startChar: chunk.startChar + shift, endChar: chunk.endChar + shift };
        }),
      )
    : undefined;
  if (!withChunks) {
    // Without sentence detail, weight each part's percentage by its characters.
    results.forEach((result, index) => {
      aiCharacters += (result.data.details.ai_percentage / 100) * countCharacters(document.parts[index]!.text);
    });
  }
  return {
    success: results.every((result) => result.success),
    data: {
      details: { ...(chunks ? { chunks } : {}), ai_percentage: percentage(aiCharacters, document.characters) },
      version: results[0]!.data.version,
      words_processed: results.reduce((sum, result) => sum + result.data.words_processed, 0),
    },
  };
}

export function mergeHumanizations(document: SplitDocument, results: HumanizeResponse[]): HumanizeResponse {
  const text = document.parts.map((part, index) => part.before + results[index]!.humanized_text).join('') + document.after;
  return {
    humanized_text: text,
    words_processed: results.reduce((sum, result) => sum + result.words_processed, 0),
    model_used: results[0]!.model_used,
  };
}

export function mergePlagiarismChecks(document: SplitDocument, results: PlagiarismResponse[]): PlagiarismResponse {
  const matches = results.flatMap((result) => result.result.results);
  const flaggedCharacters = matches
    .filter((match) => match.is_plagiarised)
    .reduce((sum, match) => sum + countCharacters(match.sentence), 0);
  return {
    result: { results: matches, plagiarism_score: percentage(flaggedCharacters, document.characters) },
    words_processed: results.reduce((sum, result) => sum + result.words_processed, 0),
  };
}
