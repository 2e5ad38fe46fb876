import { FEATURE_BUCKETS, sentenceVector, type SentenceGrams, type SparseVector } from '../src/analysis/detector/features.ts';
import type { LabelledText } from './corpus.ts';

/**
 * Logistic regression by AdaGrad SGD with L2, classes weighted to equal total weight, the
 * sentence order shuffled by a seeded generator: the same data gives the same weights.
 */

export interface TrainOptions {
  epochs: number;
  learningRate: number;
  l2: number;
  seed: number;
}

export const DEFAULT_TRAIN_OPTIONS: TrainOptions = { epochs: 4, learningRate: 0.2, l2: 1e-6, seed: 15 };

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `vectorOf`: the features of a sentence among its text's (the shipped model's by default; a baseline's in evaluation). */
export function trainLogistic(
  texts: readonly LabelledText[],
  options: TrainOptions = DEFAULT_TRAIN_OPTIONS,
  vectorOf: (sentences: readonly SentenceGrams[], at: number) => SparseVector = sentenceVector,
): Float32Array {
  const items: Array<readonly [text: number, sentence: number]> = [];
  let positives = 0;
  texts.forEach((text, t) => {
    for (let s = 0; s < text.sentences.length; s++) {
      items.push([t, s]);
      positives += text.sentenceLabels[s]!;
    }
  });
  const negatives = items.length - positives;
  if (positives === 0 || negatives === 0) throw new Error('training needs both human and machine sentences');
  // Every (corpus, class) cell weighs the same in total, so the large essay corpus does not
  // drown the mixed texts that teach sentence boundaries, and 0.5 means equal priors.
  const cellSize = new Map<string, number>();
  const cellOf = (t: number, s: number) => `${texts[t]!.corpus}/${texts[t]!.sentenceLabels[s]}`;
  for (const [t, s] of items) cellSize.set(cellOf(t, s), (cellSize.get(cellOf(t, s)) ?? 0) + 1);
  const cellWeight = new Map([...cellSize].map(([cell, size]) => [cell, items.length / (cellSize.size * size)]));

  const weights = new Float64Array(FEATURE_BUCKETS);
  const squaredGradients = new Float64Array(FEATURE_BUCKETS).fill(1e-8);
  const random = mulberry32(options.seed);
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    for (const [t, s] of items) {
      const text = texts[t]!;
      const { indices, values } = vectorOf(text.grams, s);
      let z = 0;
      for (let k = 0; k < indices.length; k++) z += weights[indices[k]!]! * values[k]!;
      const label = text.sentenceLabels[s]!;
      const p = 1 / (1 + Math.exp(-z));
      const g = (p - label) * cellWeight.get(cellOf(t, s))!;
      for (let k = 0; k < indices.length; k++) {
        const index = indices[k]!;
        const gradient = g * values[k]! + options.l2 * weights[index]!;
        squaredGradients[index]! += gradient * gradient;
        weights[index]! -= (options.learningRate * gradient) / Math.sqrt(squaredGradients[index]!);
      }
    }
  }
  return Float32Array.from(weights);
}

/**
 * Platt scaling: a and b with p = sigmoid(a·z + b), by Newton's method on the class-weighted
 * log loss, so that 0.5 separates the classes at equal priors.
 */
export function fitPlatt(logits: readonly number[], labels: readonly number[]): { a: number; b: number } {
  const positives = labels.filter((label) => label === 1).length;
  const negatives = labels.length - positives;
  const classWeight = [labels.length / (2 * negatives), labels.length / (2 * positives)];
  const loss = (a: number, b: number) => {
    let total = 0;
    for (let i = 0; i < logits.length; i++) {
      const m = (a * logits[i]! + b) * (labels[i] === 1 ? 1 : -1);
      // log(1 + e^-m), stable for either sign of m
      total += classWeight[labels[i]!]! * (m > 0 ? Math.log1p(Math.exp(-m)) : -m + Math.log1p(Math.exp(m)));
    }
    return total;
  };
  let a = 1;
  let b = 0;
  for (let iteration = 0; iteration < 50; iteration++) {
    let ga = 0, gb = 0, haa = 0, hab = 0, hbb = 0;
    for (let i = 0; i < logits.length; i++) {
      const z = logits[i]!;
      const label = labels[i]!;
      const w = classWeight[label]!;
      const p = 1 / (1 + Math.exp(-(a * z + b)));
      const r = w * (p - label);
      const h = w * p * (1 - p);
      ga += r * z;
      gb += r;
      haa += h * z * z;
      hab += h * z;
      hbb += h;
    }
    haa += 1e-9;
    hbb += 1e-9;
    const det = haa * hbb - hab * hab;
    let da = (hbb * ga - hab * gb) / det;
    let db = (haa * gb - hab * ga) / det;
    // Damped: halve the Newton step until the loss does not rise (large logits can overshoot).
    const before = loss(a, b);
    while (loss(a - da, b - db) > before && Math.abs(da) + Math.abs(db) > 1e-12) {
      da /= 2;
      db /= 2;
    }
    a -= da;
    b -= db;
    if (Math.abs(da) < 1e-9 && Math.abs(db) < 1e-9) break;
  }
  return { a, b };
}
