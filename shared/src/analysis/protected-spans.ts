/**
 * Spans a rewrite must keep exactly as written: URLs, e-mail addresses, numbers and dates,
 * quotations, `code`, and capitalised names (capitalised words that do not start a sentence).
 * Offsets are UTF-16 offsets into the text; spans are sorted and do not overlap.
 */
import { EMAIL_ADDRESS } from '../text.ts';

export interface Span {
  start: number;
  end: number;
}

const PROTECTED_PATTERNS: RegExp[] = [
  /\bhttps?:\/\/[^\s<>"')\]]+[^\s<>"')\].,;:!?]/giu, // URLs
  /\bwww\.[^\s<>"')\]]+[^\s<>"')\].,;:!?]/giu,
  EMAIL_ADDRESS,
  /“[^”\n]*”|‘[^’\n]*’/gu, // quotations with their own opening and closing marks
  /```[\s\S]*?```|`[^`\n]+`/gu, // code
  /\p{N}[\p{N},.:/-]*\p{N}|\p{N}/gu, // numbers, times and dates such as 3.5, 1,000, 12:30, 2024-05-01
];

const CAPITALISED_WORD = /\p{Lu}[\p{L}\p{N}'’-]*/gu;

/**
 * Whether `index` starts a sentence: only the start of the text, a line break or an end mark
 * (with closing quotes and brackets) before it, across spaces. Read backwards from `index`, so
 * that asking for every capitalised word of a long text is not quadratic.
 */
function isSentenceStart(text: string, index: number): boolean {
  let end = index;
  while (end > 0 && /\s/u.test(text[end - 1]!)) {
    end--;
    if (text[end] === '\n') return true;
  }
  if (end === 0) return true;
  while (end > 0 && /["'”’)]/u.test(text[end - 1]!)) end--;
  return end > 0 && /[.!?:\n]/u.test(text[end - 1]!);
}

/** Where the sentences of a line start and end (an end is after its . ! or ? and closing marks). */
function sentenceBounds(line: string): { starts: number[]; ends: number[] } {
  const starts = [0, ...[...line.matchAll(/[.!?]+["'”’)\]]*\s+/gu)].map((match) => match.index + match[0].length)];
  const ends = [...[...line.matchAll(/[.!?]+["'”’)\]]*(?=\s|$)/gu)].map((match) => match.index + match[0].length), line.length];
  return { starts, ends };
}

/** The index of the first of the sorted `values` above `at` (values.length when none is). */
function firstAbove(values: number[], at: number): number {
  let [low, high] = [0, values.length];
  while (low < high) {
    const middle = (low + high) >> 1;
    if (values[middle]! > at) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** A straight mark that can open a quotation: at the start or after a space or bracket, before text. */
function opensQuotation(line: string, at: number): boolean {
  return (at === 0 || /[\s([{—–-]/u.test(line[at - 1]!)) && at + 1 < line.length && !/\s/u.test(line[at + 1]!);
}

/** A straight mark that can close a quotation: after text, before a space, punctuation or the end. */
function closesQuotation(line: string, at: number): boolean {
  return at > 0 && !/\s/u.test(line[at - 1]!) && (at + 1 === line.length || /[\s.,;:!?)\]}'"—–-]/u.test(line[at + 1]!));
}

/**
 * Straight-quoted quotations, paired line by line by which way each mark faces, so that one
 * stray mark does not pair every later quotation the wrong way round ('job." "You can't …"').
 * Around a stray mark the sentence is kept whole (up to the mark when it closes); a quotation
 * left open runs on to the end of its paragraph.
 */
function straightQuotations(text: string): Span[] {
  const spans: Span[] = [];
  let offset = 0;
  for (const line of text.split('\n')) {
    const span = (start: number, end: number) => spans.push({ start: offset + start, end: offset + end });
    const bounds = sentenceBounds(line);
    const sentenceAround = (at: number) => span(bounds.starts[firstAbove(bounds.starts, at) - 1]!, closesQuotation(line, at) ? at + 1 : bounds.ends[firstAbove(bounds.ends, at)]!);
    let open: number | undefined;
    for (const { index } of line.matchAll(/"/gu)) {
      if (open !== undefined && closesQuotation(line, index)) {
        span(open, index + 1);
        open = undefined;
      } else if (open === undefined && opensQuotation(line, index)) {
        open = index;
      } else {
        sentenceAround(index);
      }
    }
    if (open !== undefined) span(open, line.length);
    offset += line.length + 1;
  }
  return spans;
}

export function findProtectedSpans(text: string): Span[] {
  const spans: Span[] = straightQuotations(text);
  for (const pattern of PROTECTED_PATTERNS) {
    for (const match of text.matchAll(pattern)) spans.push({ start: match.index, end: match.index + match[0].length });
  }
  for (const match of text.matchAll(CAPITALISED_WORD)) {
    const word = match[0];
    // "I" and its contractions are pronouns, not names.
    if (/^I(['’].*)?$/u.test(word)) continue;
    if (!isSentenceStart(text, match.index)) spans.push({ start: match.index, end: match.index + word.length });
  }
  return mergeSpans(spans);
}

/** Where the spans of `original` are in `rewrite`, in order; undefined when one is not there as written. */
export function locateSpans(original: string, spans: Span[], rewrite: string): Span[] | undefined {
  const located: Span[] = [];
  let from = 0;
  for (const span of spans) {
    const start = rewrite.indexOf(original.slice(span.start, span.end), from);
    if (start < 0) return undefined;
    from = start + span.end - span.start;
    located.push({ start, end: from });
  }
  return located;
}

export function mergeSpans(spans: Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Span[] = [];
  for (const span of sorted) {
    const last = merged.at(-1);
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}

/** Applies `rewrite` to every stretch of text outside the protected spans. */
export function rewriteOutside(text: string, spans: Span[], rewrite: (piece: string, atSentenceStart: boolean) => string): string {
  let out = '';
  let cursor = 0;
  for (const span of [...spans, { start: text.length, end: text.length }]) {
    if (span.start > cursor) out += rewrite(text.slice(cursor, span.start), isSentenceStart(text, cursor));
    out += text.slice(span.start, span.end);
    cursor = span.end;
  }
  return out;
}
