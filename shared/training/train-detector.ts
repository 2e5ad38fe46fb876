import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FEATURE_BITS } from '../src/analysis/detector/features.ts';
import { LANGUAGE_BITS } from '../src/analysis/detector/features.ts';
import { decodeTable, encodeTable, encodeWeights, type DetectorWeightsFile } from '../src/analysis/detector/model.ts';
import { DEFAULT_CORPUS } from './corpus.ts';
import { buildLanguageTables, FOLDS, LANGUAGE_SMOOTHING, leaveOneGeneratorOut, loadTexts, readWith } from './experiments.ts';
import { DEFAULT_TRAIN_OPTIONS, fitPlatt, trainLogistic } from './logistic.ts';

/**
 * `npm run train:detector`: trains the offline detector and writes its weights file.
 * 1. Leave-one-generator-out runs give held-out logits; a Platt fit on them calibrates the
 *    score, so 0.5 is placed for generators the model has not seen rather than for its own
 *    training data.
 * 2. The final model learns its language tables and weights from every text.
 * Deterministic: same corpus, same weights file, byte for byte.
 */

export const WEIGHTS_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/analysis/detector/weights.json');

const log = (line: string) => console.error(line);
const started = Date.now();
const texts = loadTexts();
log(`read ${texts.length} texts, ${texts.reduce((sum, t) => sum + t.sentences.length, 0)} sentences`);

log('held-out runs for calibration:');
const byId = new Map(texts.map((t) => [t.id, t]));
const logits: number[] = [];
const labels: number[] = [];
for (const run of leaveOneGeneratorOut(texts, log)) {
  for (const [id, values] of run.logits) {
    const text = byId.get(id)!;
    values.forEach((z, i) => {
      logits.push(z);
      labels.push(text.sentenceLabels[i]!);
    });
  }
}
const calibration = fitPlatt(logits, labels);
log(`calibration: a=${calibration.a.toFixed(4)} b=${calibration.b.toFixed(4)} from ${logits.length} held-out sentence predictions`);

log('final model on every text:');
const tables = buildLanguageTables(texts);
const logProbability = encodeTable(tables.logProbability);
const logRatio = encodeTable(tables.logRatio);
// The weights learn from the tables as shipped (quantised), as inference will read them.
const shippedTables = { logProbability: decodeTable(logProbability), logRatio: decodeTable(logRatio) };
const encoded = encodeWeights(trainLogistic(readWith(texts, shippedTables)));
const file: DetectorWeightsFile = {
  format: 'redline-detector/2',
  featureBits: FEATURE_BITS,
  encoding: 'int8-squared',
  scale: encoded.scale,
  weights: encoded.weights,
  language: { bits: LANGUAGE_BITS, logProbability, logRatio },
  calibration: { a: Number(calibration.a.toFixed(6)), b: Number(calibration.b.toFixed(6)) },
  provenance: {
    trainedBy: 'npm run train:detector (shared/training/train-detector.ts)',
    corpus: '../shared/data/detector-corpus/train.jsonl',
    corpusSha256: createHash('sha256').update(readFileSync(process.env.DETECTOR_CORPUS ?? DEFAULT_CORPUS)).digest('hex'),
    texts: texts.length,
    sources: 'OUTFOX valid split (Koike et al., AAAI 2024, Apache-2.0); SeqXGPT document and boundary files (Wang et al., EMNLP 2023, Apache-2.0). See NOTICE.',
    options: { ...DEFAULT_TRAIN_OPTIONS, languageSmoothing: LANGUAGE_SMOOTHING, calibrationFolds: FOLDS },
  },
};
writeFileSync(WEIGHTS_FILE, `${JSON.stringify(file, null, 1)}\n`);
log(`wrote ${WEIGHTS_FILE} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
