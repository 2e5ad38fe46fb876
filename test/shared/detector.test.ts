import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detect, scoreSentences } from '@redline/shared/analysis';
import { FEATURE_BUCKETS, LANGUAGE_BUCKETS, STYLE_FEATURES, sentenceGrams, sentenceVector, type LanguageTables } from '../../shared/src/analysis/detector/features.ts';
import { DetectorModel, decodeModel, decodeTable, decodeWeights, encodeTable, encodeWeights, type DetectorWeightsFile } from '../../shared/src/analysis/detector/model.ts';
import { labelText } from '../../shared/training/corpus.ts';
import { buildLanguageTables, trainQuantised } from '../../shared/training/experiments.ts';
import { auroc, tprAtFpr } from '../../shared/training/metrics.ts';

const root = path.resolve(import.meta.dirname, '../..');
const WEIGHTS = path.join(root, 'shared/src/analysis/detector/weights.json');
const CORPUS = path.resolve(root, '../shared/data/detector-corpus/train.jsonl');

describe('detector weights file', () => {
  const file = JSON.parse(readFileSync(WEIGHTS, 'utf8')) as DetectorWeightsFile;

  it('is at most 300 KB and decodes to a full table with a calibration', () => {
    expect(statSync(WEIGHTS).size).toBeLessThanOrEqual(300 * 1024);
    const { weights, tables } = decodeModel(file);
    expect(weights).toHaveLength(FEATURE_BUCKETS);
    expect(tables.logProbability).toHaveLength(LANGUAGE_BUCKETS);
    expect(tables.logRatio).toHaveLength(LANGUAGE_BUCKETS);
    expect(file.calibration.a).toBeGreaterThan(0);
    expect(file.provenance).toMatchObject({ corpus: '../shared/data/detector-corpus/train.jsonl' });
  });

  it.skipIf(!existsSync(CORPUS))('was trained on the corpus that is beside the repository now', () => {
    expect(file.provenance.corpusSha256).toBe(createHash('sha256').update(readFileSync(CORPUS)).digest('hex'));
  });

  it('is read by inference code that imports neither the training code nor the corpus', () => {
    const sources = readdirSync(path.join(root, 'shared/src'), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'));
    for (const name of sources) {
      const text = readFileSync(path.join(root, 'shared/src', name), 'utf8');
      expect(text, name).not.toMatch(/from ['"][^'"]*training|detector-corpus|train\.jsonl/u);
    }
  });
});

describe('detector model', () => {
  it('quantises weights with small error near zero and at the extremes', () => {
    const weights = Float32Array.from({ length: FEATURE_BUCKETS }, (_, i) => Math.sin(i) * (i % 7 === 0 ? 3 : 0.05));
    const { scale, weights: encoded } = encodeWeights(weights);
    const decoded = decodeWeights(encoded, scale);
    for (let i = 0; i < weights.length; i += 97) {
      // Rounding the square root to 1/127 of the scale: the error grows with √|w|, not with |w|.
      expect(Math.abs(decoded[i]! - weights[i]!)).toBeLessThanOrEqual(Math.sqrt(Math.abs(weights[i]!) * scale) / 127 + scale / 127 ** 2);
    }
  });

  it('quantises language tables to within half a step', () => {
    const values = Float32Array.from({ length: LANGUAGE_BUCKETS }, (_, i) => -20 + 18 * Math.abs(Math.sin(i)));
    const table = encodeTable(values);
    const decoded = decodeTable(table);
    for (let i = 0; i < values.length; i += 31) expect(Math.abs(decoded[i]! - values[i]!)).toBeLessThanOrEqual(table.step / 2 + 1e-5);
  });

  it('scores each sentence as the logistic of its vector under the weights, calibrated', () => {
    const weights = new Float32Array(FEATURE_BUCKETS).map((_, i) => ((i * 7919) % 13) / 13 - 0.5);
    const tables: LanguageTables = {
      logProbability: Float32Array.from({ length: LANGUAGE_BUCKETS }, (_, i) => -4 - (i % 11)),
      logRatio: Float32Array.from({ length: LANGUAGE_BUCKETS }, (_, i) => ((i % 5) - 2) / 2),
    };
    const model = new DetectorModel(weights, tables, { a: 0.5, b: -0.2 });
    const sentences = Array.from({ length: 12 }, (_, i) => `Sentence number ${i} says ${'something '.repeat(i % 5)}here.`);
    const grams = sentences.map((sentence) => sentenceGrams(sentence, tables));
    // The language features are part of the vector, not zero.
    expect(grams[3]!.style[STYLE_FEATURES.indexOf('common_words')]).not.toBe(0);
    const scores = model.scoreSentences(sentences);
    grams.forEach((_, at) => {
      const { indices, values } = sentenceVector(grams, at);
      let z = 0;
      indices.forEach((index, k) => (z += weights[index]! * values[k]!));
      // The vectors hold float32 values; inference sums in float64.
      expect(scores[at]).toBeCloseTo(1 / (1 + Math.exp(-(0.5 * z - 0.2))), 7);
    });
  });

  it('reads a sentence with its neighbours: the same sentence scores differently in other company', () => {
    const sentence = 'The committee reviewed the proposal on Tuesday.';
    const [alone] = scoreSentences([sentence]);
    const casual = scoreSentences(["lol we went out yesterday and it was kinda fun.", sentence, 'honestly no idea why.'])[1];
    const formal = scoreSentences(['Furthermore, it is important to note that comprehensive frameworks foster innovation.', sentence, 'Ultimately, this underscores the pivotal role of robust governance.'])[1];
    expect(new Set([alone, casual, formal]).size).toBe(3);
    expect(formal!).toBeGreaterThan(casual!);
  });

  it('labels by score > 0.5 and derives ai_percentage from the labelled characters', () => {
    const text = 'Moreover, it is crucial to leverage robust frameworks. i dunno, we just winged it lol. In conclusion, these insights underscore a transformative paradigm.';
    const { chunks, ai_percentage } = detect(text);
    for (const chunk of chunks) expect(chunk.type).toBe(chunk.score > 0.5 ? 'AI' : 'Human');
    const ai = chunks.filter((c) => c.type === 'AI').reduce((sum, c) => sum + c.endChar - c.startChar, 0);
    expect(ai_percentage).toBeCloseTo((100 * ai) / text.length, 2);
  });
});

describe('detector training', () => {
  const rows = [
    { id: 'h-1', corpus: 'toy', generator: 'human', label: 'human' as const, text: 'i dunno, we just went to the lake. it was cold lol. my dad forgot the snacks again.' },
    { id: 'h-2', corpus: 'toy', generator: 'human', label: 'human' as const, text: 'honestly the bus was late. we waited forever! then it rained, of course.' },
    { id: 'a-1', corpus: 'toy', generator: 'm', label: 'ai' as const, text: 'Furthermore, it is essential to foster robust collaboration. This comprehensive approach underscores innovation.' },
    { id: 'x-1', corpus: 'toy', generator: 'm', label: 'mixed' as const, aiFrom: 27, text: 'We lost the keys. Oh well. Moreover, organizations must leverage seamless frameworks to thrive.' },
  ];

  it('labels the sentences of a mixed text by where the machine part starts', () => {
    expect(Array.from(labelText(rows[3]!).sentenceLabels)).toEqual([0, 0, 1]);
  });

  it('learns language tables from the training texts: words only machines wrote lean machine', () => {
    const texts = rows.map(labelText);
    const tables = buildLanguageTables(texts);
    const ratioOf = (sentence: string) => sentenceGrams(sentence, tables).style[STYLE_FEATURES.indexOf('machine_word_ratio')]!;
    expect(ratioOf('Leverage seamless frameworks.')).toBeGreaterThan(0);
    expect(ratioOf('we waited forever lol')).toBeLessThan(0);
  });

  it('is deterministic and learns the toy task', () => {
    const texts = rows.map(labelText);
    const options = { epochs: 3, learningRate: 0.2, l2: 1e-6, seed: 1 };
    const first = trainQuantised(texts, options);
    expect(trainQuantised(texts, options)).toEqual(first);
    const model = new DetectorModel(first.weights, first.tables, { a: 1, b: 0 });
    const scored = texts.flatMap((t) => model.scoreSentences(t.sentences).map((score, i) => ({ score, positive: t.sentenceLabels[i] === 1 })));
    expect(auroc(scored)).toBe(1);
  });

  it('computes AUROC with ties and TPR at a false-positive rate', () => {
    const items = [
      { score: 0.9, positive: true },
      { score: 0.5, positive: true },
      { score: 0.5, positive: false },
      { score: 0.1, positive: false },
    ];
    expect(auroc(items)).toBeCloseTo(0.875, 10);
    expect(tprAtFpr(items, 0)).toBe(0.5);
    expect(tprAtFpr(items, 0.5)).toBe(1);
  });
});
