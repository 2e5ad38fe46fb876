/**
 * Spans a rewrite must keep exactly as written: URLs, e-mail addresses, numbers and dates,
 * quotations, and capitalised names (capitalised words that do not start a sentence).
 * Offsets are UTF-16 offsets into the text; spans are sorted and do not overlap.
 */

export interface Span {
  start: number;
  end: number;
}

const PROTECTED_PATTERNS: RegExp[] = [
  /\bhttps?:\/\/[^\s<>"')\]]+[^\s<>"')\].,;:!?]/giu, // URLs
  /\bwww\.[^\s<>"')\]]+[^\s<>"')\].,;:!?]/giu,
  /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.\p{L}{2,}/gu, // e-mail addresses
  /"[^"\n]*"|“[^”\n]*”|‘[^’\n]*’/gu, // quotations
  /\p{N}[\p{N},.:/-]*\p{N}|\p{N}/gu, // numbers, times and dates such as 3.5, 1,000, 12:30, 2024-05-01
];

const CAPITALISED_WORD = /\p{Lu}[\p{L}\p{N}'’-]*/gu;

function isSentenceStart(text: string, index: number): boolean {
  const before = text.slice(0, index).trimEnd();
  return before === '' || /[.!?:\n]["'”’)]*$/u.test(before) || /\n\s*$/u.test(text.slice(0, index));
}

export function findProtectedSpans(text: string): Span[] {
  const spans: Span[] = [];
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
