import { splitSentences } from '@redline/shared/sentences';
import { reviewFlags, type Flag } from './review-aids.ts';

/**
 * A rewrite as reviewable suggestions: the original's sentences aligned with the rewrite's
 * (one to one, or one to two when the rewrite split a sentence, two to one when it merged).
 */
export interface Suggestion {
  index: number;
  /** UTF-16 offsets of the original sentence(s) in the checked text. */
  start: number;
  end: number;
  original: string;
  suggestion: string;
  flags: Flag[];
}

interface Piece {
  text: string;
  start: number;
  end: number;
}

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []);
}

/** Dice similarity of word sets, 0..1. */
function similarity(a: string, b: string): number {
  const left = words(a);
  const right = words(b);
  if (left.size + right.size === 0) return 1;
  let shared = 0;
  for (const word of left) if (right.has(word)) shared++;
  return (2 * shared) / (left.size + right.size);
}

const join = (text: string, pieces: Piece[]): Piece => ({
  text: text.slice(pieces[0]!.start, pieces.at(-1)!.end),
  start: pieces[0]!.start,
  end: pieces.at(-1)!.end,
});

/** Monotone alignment by dynamic programming over moves 1:1, 1:2, 2:1, 1:0 and 0:1. */
function align(original: string, rewritten: string): { from: Piece | undefined; to: Piece | undefined }[] {
  const a = splitSentences(original);
  const b = splitSentences(rewritten);
  const n = a.length;
  const m = b.length;
  const cost: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(Infinity));
  const move: [number, number][][] = Array.from({ length: n + 1 }, () => new Array<[number, number]>(m + 1));
  cost[0]![0] = 0;
  const SKIP = 0.9;
  for (let i = 0; i <= n; i++) {
    for (let j = 0; j <= m; j++) {
      const here = cost[i]![j]!;
      if (here === Infinity) continue;
      const steps: [number, number, number][] = [
        [1, 0, SKIP],
        [0, 1, SKIP],
      ];
      if (i < n && j < m) steps.push([1, 1, 1 - similarity(a[i]!.text, b[j]!.text)]);
      if (i < n && j + 1 < m) steps.push([1, 2, 1.05 - similarity(a[i]!.text, `${b[j]!.text} ${b[j + 1]!.text}`)]);
      if (i + 1 < n && j < m) steps.push([2, 1, 1.05 - similarity(`${a[i]!.text} ${a[i + 1]!.text}`, b[j]!.text)]);
      for (const [di, dj, stepCost] of steps) {
        const ni = i + di;
        const nj = j + dj;
        if (ni > n || nj > m) continue;
        if (here + stepCost < cost[ni]![nj]!) {
          cost[ni]![nj] = here + stepCost;
          move[ni]![nj] = [di, dj];
        }
      }
    }
  }
  const pairs: { from: Piece | undefined; to: Piece | undefined }[] = [];
  for (let i = n, j = m; i > 0 || j > 0; ) {
    const [di, dj] = move[i]![j]!;
    pairs.unshift({
      from: di ? join(original, a.slice(i - di, i)) : undefined,
      to: dj ? join(rewritten, b.slice(j - dj, j)) : undefined,
    });
    i -= di;
    j -= dj;
  }
  return pairs;
}

/** The suggestions that change something; unchanged sentences are not offered. */
export function buildSuggestions(original: string, rewritten: string, keepTerms: readonly string[] = []): Suggestion[] {
  const suggestions: Suggestion[] = [];
  for (const { from, to } of align(original, rewritten)) {
    // A sentence only the rewrite has is attached to nothing in the page; it cannot be applied in place.
    if (!from) continue;
    const suggestion = to?.text ?? '';
    if (suggestion === from.text) continue;
    suggestions.push({
      index: suggestions.length,
      start: from.start,
      end: from.end,
      original: from.text,
      suggestion,
      flags: reviewFlags(from.text, suggestion, keepTerms),
    });
  }
  return suggestions;
}
