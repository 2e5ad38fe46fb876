import { FEATURE_BITS, LANGUAGE_BUCKETS, sentenceDotProducts, sentenceGrams, type LanguageTables, type SparseVector } from './features.ts';

/**
 * Weights → score. A logistic regression over the vectors of `features.ts` (whose language
 * features read two word tables shipped beside the weights), followed by a Platt calibration
 * fitted on held-out predictions (see shared/training/). Dependency-free.
 */

/** The weights file's shape (`weights.json`). */
export interface DetectorWeightsFile {
  format: 'redline-detector/2';
  featureBits: number;
  /**
   * Weights as signed bytes in base64, `w = sign(q) * (q / 127)^2 * scale`: the square keeps
   * resolution near zero, where most weights are.
   */
  encoding: 'int8-squared';
  scale: number;
  weights: string;
  /** The word tables of `LanguageTables`, each as bytes in base64, `v = min + q * step`. */
  language: { bits: number; logProbability: EncodedTable; logRatio: EncodedTable };
  /** p = sigmoid(a * z + b), z the raw logit. */
  calibration: { a: number; b: number };
  provenance: Record<string, unknown>;
}

export interface EncodedTable {
  min: number;
  step: number;
  bytes: string;
}

export class DetectorModel {
  readonly #weights: Float32Array;
  readonly #tables: LanguageTables;
  readonly #a: number;
  readonly #b: number;

  constructor(weights: Float32Array, tables: LanguageTables, calibration: { a: number; b: number }) {
    if (weights.length !== 1 << FEATURE_BITS) throw new RangeError(`expected ${1 << FEATURE_BITS} weights, got ${weights.length}`);
    if (tables.logProbability.length !== LANGUAGE_BUCKETS || tables.logRatio.length !== LANGUAGE_BUCKETS) {
      throw new RangeError(`expected language tables of ${LANGUAGE_BUCKETS} cells`);
    }
    this.#weights = weights;
    this.#tables = tables;
    this.#a = calibration.a;
    this.#b = calibration.b;
  }

  static fromFile(file: DetectorWeightsFile): DetectorModel {
    const { weights, tables } = decodeModel(file);
    return new DetectorModel(weights, tables, file.calibration);
  }

  logit(vector: SparseVector): number {
    const { indices, values } = vector;
    const w = this.#weights;
    let z = 0;
    for (let i = 0; i < indices.length; i++) z += w[indices[i]!]! * values[i]!;
    return z;
  }

  /** Calibrated AI-likelihood of every sentence of one text, each read with its neighbours. */
  scoreSentences(sentences: readonly string[]): number[] {
    return Array.from(this.logits(sentences), (z) => this.probability(z));
  }

  /** Raw (uncalibrated) logits of every sentence of one text. */
  logits(sentences: readonly string[]): Float64Array {
    return sentenceDotProducts(
      sentences.map((sentence) => sentenceGrams(sentence, this.#tables)),
      this.#weights,
    );
  }

  probability(logit: number): number {
    return 1 / (1 + Math.exp(-(this.#a * logit + this.#b)));
  }
}

/** Weights and tables of a weights file, checked against the feature layout this code computes. */
export function decodeModel(file: DetectorWeightsFile): { weights: Float32Array; tables: LanguageTables } {
  if (file.format !== 'redline-detector/2' || file.encoding !== 'int8-squared' || file.featureBits !== FEATURE_BITS || file.language?.bits !== Math.log2(LANGUAGE_BUCKETS)) {
    throw new Error(`unsupported detector weights (${file.format}, ${file.encoding}, ${file.featureBits} bits); retrain with npm run train:detector`);
  }
  return {
    weights: decodeWeights(file.weights, file.scale),
    tables: { logProbability: decodeTable(file.language.logProbability), logRatio: decodeTable(file.language.logRatio) },
  };
}

/** A table as 256 evenly spaced levels between its minimum and maximum. */
export function encodeTable(values: Float32Array): EncodedTable {
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    min = Math.min(min, v);
    max = Math.max(max, v);
  }
  const step = max > min ? (max - min) / 255 : 1;
  const bytes = Uint8Array.from(values, (v) => Math.round((v - min) / step));
  return { min, step, bytes: Buffer.from(bytes.buffer).toString('base64') };
}

export function decodeTable(table: EncodedTable): Float32Array {
  return Float32Array.from(base64ToBytes(table.bytes), (q) => table.min + q * table.step);
}

export function encodeWeights(weights: Float32Array): { scale: number; weights: string } {
  let scale = 0;
  for (const w of weights) scale = Math.max(scale, Math.abs(w));
  const bytes = new Int8Array(weights.length);
  if (scale > 0) {
    for (let i = 0; i < weights.length; i++) {
      const w = weights[i]!;
      bytes[i] = Math.sign(w) * Math.round(127 * Math.sqrt(Math.abs(w) / scale));
    }
  }
  return { scale, weights: Buffer.from(bytes.buffer).toString('base64') };
}

export function decodeWeights(base64: string, scale: number): Float32Array {
  const bytes = base64ToBytes(base64);
  const weights = new Float32Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) {
    const q = (bytes[i]! << 24) >> 24; // as a signed byte
    weights[i] = Math.sign(q) * (q / 127) ** 2 * scale;
  }
  return weights;
}

function base64ToBytes(base64: string): Uint8Array {
  if (typeof Buffer !== 'undefined') return new Uint8Array(Buffer.from(base64, 'base64'));
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
