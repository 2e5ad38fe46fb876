import { trimmedBounds } from './text.ts';

/** A sentence of a text, with UTF-16 offsets into that text. */
export interface SentenceSpan {
  text: string;
  start: number;
  end: number;
}

// ICU's sentence rules (Intl.Segmenter) break after every abbreviation's period; these are
// the common English ones that almost never end a sentence, so a break after them is undone.
// Initials count alone or in a run ("J. Smith", "H.J. Lu", "U.S. Army").
const NON_TERMINAL_ABBREVIATION =
  /(?:^|[\s(])(?:Mr|Mrs|Ms|Mx|Dr|Prof|Sr|Jr|St|Mt|Gen|Col|Capt|Lt|Sgt|Rev|Hon|vs|e\.g|i\.e|cf|approx|No|Fig|Vol|p|pp|ca|Inc|Ltd|Co|Corp|(?:\p{Lu}\.)*\p{Lu})\.$/u;

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/**
 * The sentences of a text, in order, each trimmed of surrounding White_Space (the word
 * rule of ./text.ts, not JavaScript's `trim`, which disagrees on U+0085 and U+FEFF) so that
 * `text.slice(start, end) === sentence.text`. Whitespace between sentences belongs to none.
 */
export function splitSentences(text: string): SentenceSpan[] {
  const spans: SentenceSpan[] = [];
  let pending: { start: number; end: number } | undefined;
  for (const { segment, index } of sentenceSegments(text)) {
    const { start, end } = trimmedBounds(text, index, index + segment.length);
    if (end <= start) continue;
    if (pending && !separatedByLineBreak(text, pending.end, start) && NON_TERMINAL_ABBREVIATION.test(text.slice(pending.start, pending.end))) {
      pending.end = end;
      continue;
    }
    if (pending) spans.push({ text: text.slice(pending.start, pending.end), ...pending });
    pending = { start, end };
  }
  if (pending) spans.push({ text: text.slice(pending.start, pending.end), ...pending });
  return spans;
}

/** ICU's separators (UAX #29 Sep: LF, CR, NEL, LS, PS), as a character class's body: a sentence always ends at one. */
export const SEPARATORS = '\\n\\r\\u0085\\u2028\\u2029';

const WINDOW = 4_096;
/** A break this far from a window's end is taken: ICU decides a break by the text just after it. */
const LOOKAHEAD = 512;
/**
 * ICU's one rule that looks far ahead (UAX #29 SB8): after a full stop and spaces, no break if
 * a lowercase letter comes before any other letter, separator or terminator, however far
 * ("It ended. " + 600 digits and spaces + "and then"). A break in a window is ICU's over the
 * whole text only if one of these (a subset of OLetter, Upper, Lower, ParaSep and SATerm)
 * follows it inside the window: the first of them there decides it as it would in the text.
 * Not a letter that is Grapheme_Extend (U+FF9E, U+FF9F): ICU's SB5 folds it into the character
 * before it (Sentence_Break Extend), so it decides nothing.
 */
const DECIDES_BREAK = new RegExp(`(?!\\p{Grapheme_Extend})[\\p{L}${SEPARATORS}.!?]`, 'gu');

/**
 * ICU's sentence segments of `text`, found window by window: V8's segmenter slows down with
 * the length of the string it iterates (200 ms for 150,000 characters, 2 ms in windows), so
 * each window is segmented alone and only breaks well inside it are kept; the next window
 * starts at the last kept break.
 */
export function* sentenceSegments(text: string): Generator<{ segment: string; index: number }> {
  let from = 0;
  let size = WINDOW;
  while (from < text.length) {
    const end = Math.min(text.length, from + size);
    const last = end === text.length;
    let next = from;
    for (const { segment, index } of segmenter.segment(text.slice(from, end))) {
      const segmentEnd = from + index + segment.length;
      if (!last && (segmentEnd > end - LOOKAHEAD || !decidedBefore(text, segmentEnd, end))) break;
      yield { segment, index: from + index };
      next = segmentEnd;
    }
    if (last) return;
    if (next === from) size *= 2; // one sentence longer than the window
    else {
      from = next;
      size = WINDOW;
    }
  }
}

/** Whether a character that settles ICU's break at `from` lies in `text[from, end)`. */
function decidedBefore(text: string, from: number, end: number): boolean {
  DECIDES_BREAK.lastIndex = from;
  const match = DECIDES_BREAK.exec(text);
  return match !== null && match.index < end;
}

const LINE_OR_PARAGRAPH_SEPARATOR = new RegExp(`[${SEPARATORS}]`);

function separatedByLineBreak(text: string, from: number, to: number): boolean {
  return LINE_OR_PARAGRAPH_SEPARATOR.test(text.slice(from, to));
}
