import { diffArrays } from 'diff';
import type { BffDetectResponse } from '@redline/shared';

/** Before and after a rewrite (or any two checks of one text): the document and its changed sentences. */

export interface ScoredSentence {
  text: string;
  score: number;
  ai: boolean;
}

export interface SentenceChange {
  before: ScoredSentence[];
  after: ScoredSentence[];
}

export interface Comparison {
  before: number;
  after: number;
  changes: SentenceChange[];
  unchanged: number;
}

const sentencesOf = (response: BffDetectResponse): ScoredSentence[] =>
  (response.result.data.details.chunks ?? []).map((chunk) => ({ text: chunk.text.trim(), score: chunk.score, ai: chunk.type === 'AI' }));

/**
 * Sentences are paired by text: the same sentence on both sides is unchanged; a run of
 * sentences only the earlier check has, next to a run only the later one has, is one change.
 */
export function compareDetections(before: BffDetectResponse, after: BffDetectResponse): Comparison {
  const left = sentencesOf(before);
  const right = sentencesOf(after);
  const changes: SentenceChange[] = [];
  let unchanged = 0;
  let i = 0;
  let j = 0;
  let open: SentenceChange | undefined;
  for (const part of diffArrays(left.map((sentence) => sentence.text), right.map((sentence) => sentence.text))) {
    const count = part.count ?? part.value.length;
    if (!part.added && !part.removed) {
      unchanged += count;
      i += count;
      j += count;
      open = undefined;
      continue;
    }
    open ??= changes[changes.push({ before: [], after: [] }) - 1]!;
    if (part.removed) open.before.push(...left.slice(i, (i += count)));
    else open.after.push(...right.slice(j, (j += count)));
  }
  return { before: before.result.data.details.ai_percentage, after: after.result.data.details.ai_percentage, changes, unchanged };
}
