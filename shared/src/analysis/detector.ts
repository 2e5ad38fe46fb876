import type { DetectorVersion } from '../upstream/requests.ts';
import { AI_LABEL_THRESHOLD, type DetectChunk } from '../upstream/responses.ts';
import { OffsetMap, countWords } from '../text.ts';
import { splitSentences } from '../sentences.ts';
import { legacySentenceScore } from './detector/legacy.ts';
import { DetectorModel, type DetectorWeightsFile } from './detector/model.ts';
import weightsFile from './detector/weights.json' with { type: 'json' };

/**
 * The offline AI-likelihood detector. `v3` is a logistic regression trained on labelled
 * human and machine text (shared/training/, weights in detector/weights.json), reading each
 * sentence with its neighbours and calibrated so that a score above 0.5 means "more likely
 * machine-written than not" on text from generators it was not trained on. `v1` and `v2`
 * keep the earlier hand-weighted scorer. Deterministic: the same text gets the same answer.
 * The double uses it as "the provider"; the BFF's offline mode uses it as its local scorer.
 */

let model: DetectorModel | undefined;
function trainedModel(): DetectorModel {
  return (model ??= DetectorModel.fromFile(weightsFile as DetectorWeightsFile));
}

const round4 = (score: number) => Math.round(score * 10_000) / 10_000;

/**
 * Which scorer answers: `trained` (v3 by the trained model, v1/v2 by the hand-weighted one),
 * or `stylistic` (the hand-weighted scorer for every version: the upstream double's choice,
 * so that test texts written with stock phrases and informal words get predictable labels).
 */
export type DetectorScorer = 'trained' | 'stylistic';

/** Scores of consecutive sentences of one text, 0 to 1, rounded to 4 decimals. */
export function scoreSentences(sentences: readonly string[], version: DetectorVersion = 'v3', scorer: DetectorScorer = 'trained'): number[] {
  if (version === 'v3' && scorer === 'trained') return trainedModel().scoreSentences(sentences).map(round4);
  return sentences.map((sentence) => round4(legacySentenceScore(sentence, version)));
}

/** The AI-likelihood of one sentence read on its own (no neighbours), 0 to 1, rounded to 4 decimals. */
export function scoreSentence(sentence: string, version: DetectorVersion = 'v3'): number {
  return scoreSentences([sentence], version)[0]!;
}

export interface DetectionResult {
  chunks: DetectChunk[];
  ai_percentage: number;
  words_processed: number;
}

/**
 * Sentence segments with code point offsets, labels and scores, and the share of input
 * characters (code points) inside AI-labelled sentences, as a percentage with 2 decimals.
 */
export function detect(text: string, version: DetectorVersion = 'v3', scorer: DetectorScorer = 'trained'): DetectionResult {
  const offsets = new OffsetMap(text);
  const sentences = splitSentences(text);
  const scores = scoreSentences(sentences.map((sentence) => sentence.text), version, scorer);
  let aiCharacters = 0;
  const chunks = sentences.map((sentence, i): DetectChunk => {
    const score = scores[i]!;
    const startChar = offsets.toCodePoint(sentence.start);
    const endChar = offsets.toCodePoint(sentence.end);
    const type = score > AI_LABEL_THRESHOLD ? 'AI' : 'Human';
    if (type === 'AI') aiCharacters += endChar - startChar;
    return { text: sentence.text, startChar, endChar, type, score };
  });
  const ai_percentage = offsets.length === 0 ? 0 : Math.round((aiCharacters / offsets.length) * 10_000) / 100;
  return { chunks, ai_percentage, words_processed: countWords(text) };
}
