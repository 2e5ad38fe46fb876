import { sentenceVector } from '../src/analysis/detector/features.ts';
import { DetectorModel, decodeWeights, encodeWeights } from '../src/analysis/detector/model.ts';
import { foldOf, labelText, readRows, type LabelledText } from './corpus.ts';
import { DEFAULT_TRAIN_OPTIONS, trainLogistic, type TrainOptions } from './logistic.ts';

/** Held-out protocols shared by training (for calibration) and evaluation. */

export const FOLDS = 3;

export function loadTexts(): LabelledText[] {
  return readRows().map(labelText);
}

export function generatorsOf(texts: readonly LabelledText[]): string[] {
  return [...new Set(texts.filter((t) => t.generator !== 'human').map((t) => t.generator))].sort();
}

/** Trains, then quantises like the shipped weights file, so held-out figures are the shipped model's. */
export function trainQuantised(texts: readonly LabelledText[], options: TrainOptions = DEFAULT_TRAIN_OPTIONS): Float32Array {
  const { scale, weights } = encodeWeights(trainLogistic(texts, options));
  return decodeWeights(weights, scale);
}

/** Raw sentence logits of a text under weights (uncalibrated). */
export function sentenceLogits(weights: Float32Array, text: LabelledText): number[] {
  const model = new DetectorModel(weights, { a: 1, b: 0 });
  return text.grams.map((_, at) => model.logit(sentenceVector(text.grams, at)));
}

export interface HeldOutRun {
  /** What was held out, e.g. `generator gpt2, fold 1` or `corpus outfox`. */
  name: string;
  heldOut: { kind: 'generator' | 'corpus' | 'none'; value: string };
  /** Logits of the held-out texts, by text id. */
  logits: Map<string, number[]>;
}

/**
 * Leave one generator out: for each generator and each of FOLDS folds of source groups, train
 * on every text not by that generator and not in that fold; predict that generator's texts and
 * the human texts of that fold. Groups keep texts that share a human source (one prompt, one
 * human start) on one side, so no human sentence is seen in training and then tested.
 */
export function* leaveOneGeneratorOut(texts: readonly LabelledText[], log: (line: string) => void): Generator<HeldOutRun> {
  for (const generator of generatorsOf(texts)) {
    for (let fold = 0; fold < FOLDS; fold++) {
      const inFold = (t: LabelledText) => foldOf(t.group, FOLDS) === fold;
      const train = texts.filter((t) => t.generator !== generator && !inFold(t));
      const test = texts.filter((t) => inFold(t) && (t.generator === generator || t.generator === 'human'));
      const started = Date.now();
      const weights = trainQuantised(train);
      log(`  generator ${generator}, fold ${fold}: trained on ${train.length} texts, testing ${test.length} (${Date.now() - started} ms)`);
      yield {
        name: `generator ${generator}, fold ${fold}`,
        heldOut: { kind: 'generator', value: generator },
        logits: new Map(test.map((t) => [t.id, sentenceLogits(weights, t)])),
      };
    }
  }
}

/** Leave one corpus out: train on the other corpora, predict every text of this one. */
export function* leaveOneCorpusOut(texts: readonly LabelledText[], log: (line: string) => void): Generator<HeldOutRun> {
  for (const corpus of [...new Set(texts.map((t) => t.corpus))].sort()) {
    const train = texts.filter((t) => t.corpus !== corpus);
    const test = texts.filter((t) => t.corpus === corpus);
    const started = Date.now();
    const weights = trainQuantised(train);
    log(`  corpus ${corpus}: trained on ${train.length} texts, testing ${test.length} (${Date.now() - started} ms)`);
    yield { name: `corpus ${corpus}`, heldOut: { kind: 'corpus', value: corpus }, logits: new Map(test.map((t) => [t.id, sentenceLogits(weights, t)])) };
  }
}
