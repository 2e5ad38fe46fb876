import { normalise } from '../src/analysis/detector/features.ts';

/**
 * An interpolated Witten-Bell word trigram language model with exact counts, for experiments
 * (eval-ngram-lm.ts) only: its tables are far larger than the shipped weights file allows.
 */

const WORD = /[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu;

/** The detector's words: normalised, lowercased, digits folded to 0. */
export function words(sentence: string): string[] {
  return (normalise(sentence).match(WORD) ?? []).map((w) => (/\d/u.test(w) ? w.replace(/\d+/gu, '0') : w));
}

const ORDER = 3;
const SEPARATOR = '\u0001';

function contexts(s: readonly string[], i: number): [string, string, string] {
  return ['', s[i - 1]!, `${s[i - 2]!} ${s[i - 1]!}`];
}

export class TrigramModel {
  readonly #counts = Array.from({ length: ORDER }, () => new Map<string, number>());
  readonly #contextTotals = Array.from({ length: ORDER }, () => new Map<string, number>());
  readonly #contextTypes = Array.from({ length: ORDER }, () => new Map<string, number>());
  readonly #vocabulary = new Set<string>();

  add(sentence: readonly string[]): void {
    const s = ['<s>', '<s>', ...sentence, '</s>'];
    for (let i = 2; i < s.length; i++) {
      const word = s[i]!;
      this.#vocabulary.add(word);
      contexts(s, i).forEach((context, k) => {
        const key = context + SEPARATOR + word;
        const count = this.#counts[k]!.get(key) ?? 0;
        this.#counts[k]!.set(key, count + 1);
        this.#contextTotals[k]!.set(context, (this.#contextTotals[k]!.get(context) ?? 0) + 1);
        if (count === 0) this.#contextTypes[k]!.set(context, (this.#contextTypes[k]!.get(context) ?? 0) + 1);
      });
    }
  }

  /** Natural-log probabilities of each word and of the sentence end: trigram, and unigram alone. */
  logProbabilities(sentence: readonly string[]): { trigram: number[]; unigram: number[] } {
    const s = ['<s>', '<s>', ...sentence, '</s>'];
    const trigram: number[] = [];
    const unigram: number[] = [];
    for (let i = 2; i < s.length; i++) {
      const word = s[i]!;
      let p = 1 / (this.#vocabulary.size + 1);
      let p1 = p;
      contexts(s, i).forEach((context, k) => {
        const total = this.#contextTotals[k]!.get(context) ?? 0;
        if (total === 0) return;
        const types = this.#contextTypes[k]!.get(context)!;
        p = ((this.#counts[k]!.get(context + SEPARATOR + word) ?? 0) + types * p) / (total + types);
        if (k === 0) p1 = p;
      });
      trigram.push(Math.log(p));
      unigram.push(Math.log(p1));
    }
    return { trigram, unigram };
  }
}
