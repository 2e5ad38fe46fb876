import { SEPARATORS, splitSentences, type SentenceSpan } from '@redline/shared/sentences';
import { hasVisibleText } from '@redline/shared/text';
import { reviewFlags, type Flag } from './review-aids.ts';

/**
 * A rewrite as reviewable suggestions. Each suggestion replaces a run of whole original
 * sentences with the rewrite's sentences that came from them. Runs never overlap, so every
 * original character belongs to at most one suggestion, and accepting any subset in any order
 * neither duplicates nor drops a sentence (see `alignBlocks`).
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

/** One aligned run: original sentences [from, to) paired with rewrite sentences [rewriteFrom, rewriteTo). */
export interface Block {
  from: number;
  to: number;
  rewriteFrom: number;
  rewriteTo: number;
}

const STOP = new Set('the and for are but not you all any can her was one our out has his how its may new now who did get let own say she too use that with have this will your from they been were what when which their there them then than into also just only over such some these those would could should about'.split(' '));

function contentWords(text: string): Map<string, number> {
  const words = new Map<string, number>();
  const all = text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  const kept = all.filter((word) => word.length > 2 && !STOP.has(word));
  for (const word of kept.length ? kept : all) words.set(word, (words.get(word) ?? 0) + 1);
  return words;
}

/** The share of `a`'s words that `b` also has (multiset containment), 0..1. */
function containment(a: Map<string, number>, b: Map<string, number>): number {
  let total = 0;
  let shared = 0;
  for (const [word, count] of a) {
    total += count;
    shared += Math.min(count, b.get(word) ?? 0);
  }
  return total === 0 ? 0 : shared / total;
}

/** Below this, a sentence is said to have no counterpart (an insertion or a deletion). */
const MIN_LINK = 0.25;

/**
 * Which rewrite sentence came from which original sentence: each sentence on either side is
 * linked to its most similar sentence on the other side, when it is similar enough. A split
 * shows up as two rewrite sentences linked to one original, a merge as two originals linked
 * to one rewrite sentence, a reorder as crossing links.
 */
function links(original: string[], rewrite: string[]): [number, number][] {
  const a = original.map(contentWords);
  const b = rewrite.map(contentWords);
  const result: [number, number][] = [];
  const best = (scores: number[]) => scores.reduce((top, score, index) => (score > scores[top]! ? index : top), 0);
  a.forEach((words, i) => {
    const scores = b.map((other) => containment(words, other));
    const j = best(scores);
    if (scores[j]! >= MIN_LINK) result.push([i, j]);
  });
  b.forEach((words, j) => {
    const scores = a.map((other) => containment(words, other));
    const i = best(scores);
    if (scores[i]! >= MIN_LINK) result.push([i, j]);
  });
  return result;
}

/**
 * The finest partition of both sentence lists into consecutive, paired blocks such that no
 * link crosses a block boundary. A sentence with no link (its counterpart was not recognised,
 * or it was inserted or deleted) joins the blocks on both sides of it: it may have come from
 * either, so the safe unit is both. Every original and every rewrite sentence is in exactly
 * one block, in order.
 */
export function alignBlocks(originalCount: number, rewriteCount: number, pairs: readonly [number, number][]): Block[] {
  const reachA = Array.from({ length: originalCount }, () => -1); // last rewrite index linked from original i
  const reachB = Array.from({ length: rewriteCount }, () => -1); // last original index linked from rewrite j
  const linkedA = new Array<boolean>(originalCount).fill(false);
  const linkedB = new Array<boolean>(rewriteCount).fill(false);
  for (const [i, j] of pairs) {
    reachA[i] = Math.max(reachA[i]!, j);
    reachB[j] = Math.max(reachB[j]!, i);
    linkedA[i] = linkedB[j] = true;
  }
  const blocks: Block[] = [];
  let i = 0;
  let j = 0;
  while (i < originalCount || j < rewriteCount) {
    const last = blocks.at(-1);
    if (last && (i === originalCount || j === rewriteCount)) {
      // One side is used up: what remains of the other belongs with the last block.
      last.to = originalCount;
      last.rewriteTo = rewriteCount;
      break;
    }
    const block: Block = { from: i, to: Math.min(i + 1, originalCount), rewriteFrom: j, rewriteTo: Math.min(j + 1, rewriteCount) };
    for (let grown = true; grown; ) {
      grown = false;
      // Every link from inside the block stays inside it.
      for (let k = block.from; k < block.to; k++) {
        if (reachA[k]! + 1 > block.rewriteTo) (block.rewriteTo = reachA[k]! + 1), (grown = true);
      }
      for (let k = block.rewriteFrom; k < block.rewriteTo; k++) {
        if (reachB[k]! + 1 > block.to) (block.to = reachB[k]! + 1), (grown = true);
      }
      // An unlinked sentence glues the blocks on both sides of it: at the block's end it takes
      // the next sentence in, just after the block it is taken in.
      const takeA = block.to < originalCount && (!linkedA[block.to] || (block.to > block.from && !linkedA[block.to - 1]));
      const takeB = block.rewriteTo < rewriteCount && (!linkedB[block.rewriteTo] || (block.rewriteTo > block.rewriteFrom && !linkedB[block.rewriteTo - 1]));
      if (takeA) block.to++;
      if (takeB) block.rewriteTo++;
      grown ||= takeA || takeB;
    }
    blocks.push(block);
    i = block.to;
    j = block.rewriteTo;
  }
  return blocks;
}

interface Paragraph {
  start: number;
  end: number;
}

/**
 * Paragraphs: runs of text between line breaks, with their offsets. A line break is any the
 * sentence splitter ends a sentence at (LF, CR, NEL, U+2028, U+2029): one that only LF counted
 * left a text broken by the others one paragraph, and a suggestion could span its breaks.
 */
function paragraphs(text: string): Paragraph[] {
  const result: Paragraph[] = [];
  const pattern = new RegExp(`[^${SEPARATORS}]+`, 'g');
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    if (hasVisibleText(match[0])) result.push({ start: match.index, end: match.index + match[0].length });
  }
  return result;
}

function sentencesIn(text: string, paragraph: Paragraph): SentenceSpan[] {
  return splitSentences(text.slice(paragraph.start, paragraph.end)).map((sentence) => ({
    text: sentence.text,
    start: sentence.start + paragraph.start,
    end: sentence.end + paragraph.start,
  }));
}

/**
 * Aligned runs of the original and the rewrite, as offsets into each. When both have the
 * same number of paragraphs they are aligned paragraph by paragraph, so no suggestion spans
 * a paragraph break.
 */
export function alignRewrite(original: string, rewritten: string): { original: Paragraph; rewrite: Paragraph }[] {
  const left = paragraphs(original);
  const right = paragraphs(rewritten);
  const units = left.length === right.length ? left.map((paragraph, k) => [paragraph, right[k]!] as const) : [[{ start: 0, end: original.length }, { start: 0, end: rewritten.length }] as const];
  const runs: { original: Paragraph; rewrite: Paragraph }[] = [];
  for (const [leftUnit, rightUnit] of units) {
    const a = sentencesIn(original, leftUnit);
    const b = sentencesIn(rewritten, rightUnit);
    const blocks = alignBlocks(
      a.length,
      b.length,
      links(
        a.map((sentence) => sentence.text),
        b.map((sentence) => sentence.text),
      ),
    );
    for (const block of blocks) {
      const from = block.from < block.to ? { start: a[block.from]!.start, end: a[block.to - 1]!.end } : undefined;
      if (!from) continue; // only the rewrite has these sentences; blocks always take them in when anything else is there
      const rewrite = block.rewriteFrom < block.rewriteTo ? { start: b[block.rewriteFrom]!.start, end: b[block.rewriteTo - 1]!.end } : { start: 0, end: 0 };
      runs.push({ original: from, rewrite });
    }
  }
  return runs;
}

/** The suggestions that change something; unchanged runs are not offered. */
export function buildSuggestions(original: string, rewritten: string, keepTerms: readonly string[] = []): Suggestion[] {
  const suggestions: Suggestion[] = [];
  for (const run of alignRewrite(original, rewritten)) {
    const before = original.slice(run.original.start, run.original.end);
    const after = rewritten.slice(run.rewrite.start, run.rewrite.end);
    if (before === after) continue;
    suggestions.push({
      index: suggestions.length,
      start: run.original.start,
      end: run.original.end,
      original: before,
      suggestion: after,
      flags: reviewFlags(before, after, keepTerms),
    });
  }
  return suggestions;
}
