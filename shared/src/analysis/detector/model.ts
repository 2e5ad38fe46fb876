import { FEATURE_BITS, sentenceDotProducts, sentenceGrams, type SparseVector } from './features.ts';

/**
 * Weights → score. A logistic regression over the vectors of `features.ts`, followed by a
 * Platt calibration fitted on held-out predictions (see shared/training/). Dependency-free.
 */

/** The weights file's shape (`weights.json`). */
export interface DetectorWeightsFile {
  format: 'redline-detector/1';
  featureBits: number;
  /**
   * Weights as signed bytes in base64, `w = sign(q) * (q / 127)^2 * scale`: the square keeps
   * resolution near zero, where most weights are.
   */
  encoding: 'int8-squared';
  scale: number;
  weights: string;
  /** p = sigmoid(a * z + b), z the raw logit. */
  calibration: { a: number; b: number };
  provenance: Record<string, unknown>;
}

export class DetectorModel {
  readonly #weights: Float32Array;
  readonly #a: number;
  readonly #b: number;

  constructor(weights: Float32Array, calibration: { a: number; b: number }) {
    if (weights.length !== 1 << FEATURE_BITS) throw new RangeError(`expected ${1 << FEATURE_BITS} weights, got ${weights.length}`);
    this.#weights = weights;
    this.#a = calibration.a;
    this.#b = calibration.b;
  }

  static fromFile(file: DetectorWeightsFile): DetectorModel {
    if (file.format !== 'redline-detector/1' || file.encoding !== 'int8-squared' || file.featureBits !== FEATURE_BITS) {
      throw new Error(`unsupported detector weights (${file.format}, ${file.encoding}, ${file.featureBits} bits)`);
    }
    return new DetectorModel(decodeWeights(file.weights, file.scale), file.calibration);
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
    return Array.from(sentenceDotProducts(sentences.map(sentenceGrams), this.#weights), (z) => this.probability(z));
  }

  probability(logit: number): number {
    return 1 / (1 + Math.exp(-(this.#a * logit + this.#b)));
  }
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
