import type { PlagiarismMatch } from '../upstream/responses.ts';
import { OffsetMap, countWords } from '../text.ts';
import type { SourceDocument } from './corpus.ts';
import { splitSentences } from '../sentences.ts';

/** A sentence whose best similarity reaches this is flagged (`is_plagiarised: true`). */
export const MATCH_THRESHOLD = 0.6;
/** A sentence whose best similarity reaches this is reported, flagged or not. */
export const REPORT_THRESHOLD = 0.35;

interface IndexedSentence {
  text: string;
  link: string;
  words: Set<string>;
  bigrams: Set<string>;
}

function normalisedWords(sentence: string): string[] {
  return sentence.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function bigramsOf(words: string[]): Set<string> {
  const bigrams = new Set<string>();
  for (let i = 1; i < words.length; i++) bigrams.add(`${words[i - 1]} ${words[i]}`);
  return bigrams;
}

function dice(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  for (const item of a) if (b.has(item)) shared++;
  return (2 * shared) / (a.size + b.size);
}

/** Similarity 0..1: the mean of the Dice coefficients of word sets and word-bigram sets. */
function similarity(a: Pick<IndexedSentence, 'words' | 'bigrams'>, b: Pick<IndexedSentence, 'words' | 'bigrams'>): number {
  return Math.round(((dice(a.words, b.words) + dice(a.bigrams, b.bigrams)) / 2) * 10_000) / 10_000;
}

function indexSentence(text: string, link: string): IndexedSentence {
  const words = normalisedWords(text);
  return { text, link, words: new Set(words), bigrams: bigramsOf(words) };
}

export interface PlagiarismResult {
  results: PlagiarismMatch[];
  plagiarism_score: number;
  words_processed: number;
}

/** Builds a checker over a corpus; index once, check many texts. */
export function createPlagiarismChecker(corpus: readonly SourceDocument[]) {
  const sources = corpus.flatMap((document) =>
    splitSentences(document.text).map((sentence) => indexSentence(sentence.text, document.link)),
  );

  function bestMatchFor(sentence: IndexedSentence): { source: IndexedSentence; similarity: number } | undefined {
    let best: { source: IndexedSentence; similarity: number } | undefined;
    for (const source of sources) {
      const score = similarity(sentence, source);
      // Like the upstream: the first candidate that meets the threshold wins.
      if (score >= MATCH_THRESHOLD) return { source, similarity: score };
      if (!best || score > best.similarity) best = { source, similarity: score };
    }
    return best;
  }

  return function check(text: string): PlagiarismResult {
    const offsets = new OffsetMap(text);
    const results: PlagiarismMatch[] = [];
    let flaggedCharacters = 0;
    for (const span of splitSentences(text)) {
      const match = bestMatchFor(indexSentence(span.text, ''));
      if (!match || match.similarity < REPORT_THRESHOLD) continue;
      const is_plagiarised = match.similarity >= MATCH_THRESHOLD;
      if (is_plagiarised) flaggedCharacters += offsets.toCodePoint(span.end) - offsets.toCodePoint(span.start);
      results.push({
        sentence: span.text,
        is_plagiarised,
        web_sentence: match.source.text,
        similarity: match.similarity,
        link: match.source.link,
      });
    }
    const plagiarism_score = offsets.length === 0 ? 0 : Math.round((flaggedCharacters / offsets.length) * 10_000) / 100;
    return { results, plagiarism_score, words_processed: countWords(text) };
  };
}
