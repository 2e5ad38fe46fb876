import type { DetectorVersion } from '../upstream/requests.ts';
import { AI_LABEL_THRESHOLD, type DetectChunk } from '../upstream/responses.ts';
import { OffsetMap, countWords } from '../text.ts';
import { splitSentences } from '../sentences.ts';
import { legacySentenceScore } from './detector/legacy.ts';
import { DetectorModel, type DetectorWeightsFile } from './detector/model.ts';
import weightsFile from './detector/weights.json' with { type: 'json' };

/**
 * The offline AI-likelihood detector. `v3` asks two scorers, and a sentence is labelled AI
 * only when both say so (see `agreedScore`): a logistic regression trained on labelled human
 * and machine text (shared/training/, weights in detector/weights.json), reading each
 * sentence with its neighbours, and the hand-weighted stylistic scorer. The trained model
 * alone labels most human prose of genres it was not trained on AI (manuals, speeches,
 * e-mail, fiction: 60-94% of sentences); requiring agreement brings that to a few per cent
 * (README, "Detector: how good it is"). `v1` and `v2` keep the hand-weighted scorer alone.
 * Deterministic: the same text gets the same answer. The BFF's offline mode uses it as its
 * local scorer; the double uses the hand-weighted scorer for every version.
 */

let model: DetectorModel | undefined;
function trainedModel(): DetectorModel {
  return (model ??= DetectorModel.fromFile(weightsFile as DetectorWeightsFile));
}

const round4 = (score: number) => Math.round(score * 10_000) / 10_000;

/**
 * Which scorer answers: `trained`, the product's (v3: the trained model and the hand-weighted
 * scorer must agree; v1/v2: the hand-weighted one); `stylistic` (the hand-weighted scorer for
 * every version: the upstream double's choice, so that test texts written with stock phrases
 * and informal words get predictable labels); or `model`, the trained model alone for v3
 * (for evaluation).
 */
export type DetectorScorer = 'trained' | 'stylistic' | 'model';

/**
 * v3's score from the trained model's and the hand-weighted scorer's: the trained score, halved
 * unless the hand-weighted scorer also says AI. So a sentence is above 0.5 (AI) only when both
 * are, and the trained model still ranks the sentences (which halving keeps within each side).
 */
export function agreedScore(trained: number, stylistic: number): number {
  return stylistic > AI_LABEL_THRESHOLD ? trained : trained / 2;
}

/** Scores of consecutive sentences of one text, 0 to 1, rounded to 4 decimals. */
export function scoreSentences(sentences: readonly string[], version: DetectorVersion = 'v3', scorer: DetectorScorer = 'trained'): number[] {
  if (version === 'v3' && scorer === 'model') return trainedModel().scoreSentences(sentences).map(round4);
  if (version === 'v3' && scorer === 'trained') {
    return trainedModel()
      .scoreSentences(sentences)
      .map((trained, i) => round4(agreedScore(trained, legacySentenceScore(sentences[i]!, 'v3'))));
  }
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
