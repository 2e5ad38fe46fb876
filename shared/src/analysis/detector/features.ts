/**
 * Text → numbers for the trained detector, shared by training and inference.
 *
 * A sentence becomes a sparse vector of hashed features in three blocks:
 * - own: lowercased word unigrams and bigrams and character 4-grams of the sentence;
 * - context: the same n-grams of the neighbouring sentences (up to ±4, fading with distance),
 *   hashed into a separate namespace, so a sentence is read together with its surroundings;
 * - style: a few dense signals (length, word length, punctuation, contractions, first person,
 *   stock phrases) and how much the sentence's length differs from its neighbours'.
 *
 * Before anything is counted the text is normalised so that typographic conventions of the
 * training corpora (curly quotes, non-breaking spaces, a space before punctuation, line
 * breaks) carry no signal: they say how a data set was prepared, not who wrote the text.
 * Absolute position in the document is deliberately not a feature: in the training corpus
 * the machine part of a mixed text always comes second, which is no rule of real text.
 */

export const FEATURE_BITS = 17;
export const FEATURE_BUCKETS = 1 << FEATURE_BITS;
const MASK = FEATURE_BUCKETS - 1;

const CONTEXT_SALT = 0x5bd1e995;
const CHAR_GRAM = 4;

/** Dense features live in the first buckets of the table; hashed features may collide with them like with anything else. */
export const STYLE_FEATURES = [
  'bias',
  'words_1_5',
  'words_6_10',
  'words_11_20',
  'words_21_30',
  'words_31_45',
  'words_46_plus',
  'mean_word_length',
  'long_word_share',
  'commas_per_word',
  'digit',
  'question',
  'exclamation',
  'contractions',
  'first_person',
  'stock_phrases',
  'parenthesis',
  'quotation',
  'colon_or_semicolon',
  'dash',
  'type_token_ratio',
  'length_vs_neighbours',
  'neighbour_length_spread',
  'no_neighbours',
] as const;
const STYLE = Object.fromEntries(STYLE_FEATURES.map((name, index) => [name, index])) as Record<(typeof STYLE_FEATURES)[number], number>;

const STOCK_PHRASES = [
  'delve', 'tapestry', 'testament to', 'in conclusion', 'it is important to', 'it is worth noting', 'plays a crucial role',
  'plays a vital role', 'plays a pivotal role', 'fast-paced', 'ever-evolving', 'navigate the', 'a myriad of', 'embark on',
  'in the realm of', 'foster', 'pivotal', 'intricate', 'underscore', 'holistic', 'multifaceted', 'paramount', 'seamless',
  'leverage', 'harness', 'unlock the potential', 'robust', 'comprehensive', 'landscape', 'furthermore', 'moreover',
  'additionally', 'overall,', 'in summary', 'crucial', 'notably', 'showcase', 'cutting-edge', 'transformative',
  'empower', 'resonate', 'nuanced', 'meticulous',
];

const WORD = /[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu;
const CONTRACTION = /[\p{L}]'(?:s|t|re|ve|ll|d|m)\b/gu;
const FIRST_PERSON = /\b(?:i|i'm|i've|i'd|i'll|me|my|mine|we|our|us)\b/gu;

/** Typography and spacing removed; lowercased. */
export function normalise(sentence: string): string {
  return sentence
    .replace(/[’‘`´]/gu, "'")
    .replace(/[“”„«»]/gu, '"')
    .replace(/[‐‑‒–—―]/gu, '-')
    .replace(/…/gu, '...')
    .replace(/\s+/gu, ' ')
    .replace(/ ([.,;:!?)\]%])/gu, '$1')
    .replace(/([(\[]) /gu, '$1')
    .trim()
    .toLowerCase();
}

function hashString(text: string, seed: number): number {
  let h = seed ^ 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function mix(a: number, b: number): number {
  let h = Math.imul(a ^ (b + 0x9e3779b9 + (a << 6) + (a >>> 2)), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** What one sentence contributes, before its neighbours are known. */
export interface SentenceGrams {
  /** Table buckets of the sentence's n-grams (deduplicated before bucketing), read as its own. */
  ownBuckets: Int32Array;
  /** The same n-grams' buckets when read as a neighbour's. */
  contextBuckets: Int32Array;
  /** Style values indexed like STYLE_FEATURES. */
  style: Float32Array;
  wordCount: number;
}

function countOf(text: string, pattern: RegExp): number {
  pattern.lastIndex = 0;
  let count = 0;
  while (pattern.exec(text) !== null) count++;
  return count;
}

function stockPhraseCount(text: string): number {
  let count = 0;
  for (const phrase of STOCK_PHRASES) if (text.includes(phrase)) count++;
  return count;
}

export function sentenceGrams(sentence: string): SentenceGrams {
  const text = normalise(sentence);
  const words = text.match(WORD) ?? [];
  const seen = new Set<number>();
  let previous = hashString('<s>', 1);
  let letters = 0;
  let longWords = 0;
  for (const raw of words) {
    const word = /\d/u.test(raw) ? raw.replace(/\d+/gu, '0') : raw;
    letters += word.length;
    if (word.length >= 9) longWords++;
    const unigram = hashString(word, 1);
    seen.add(unigram);
    seen.add(mix(previous, unigram));
    previous = unigram;
  }
  seen.add(mix(previous, hashString('</s>', 1)));

  const padded = ` ${text} `;
  for (let i = 0; i + CHAR_GRAM <= padded.length; i++) {
    let h = 0x811c9dc5 ^ 7;
    for (let k = 0; k < CHAR_GRAM; k++) h = Math.imul(h ^ padded.charCodeAt(i + k), 0x01000193);
    seen.add(h >>> 0);
  }

  const wordCount = words.length;
  const perWord = Math.max(wordCount, 1);
  const style = new Float32Array(STYLE_FEATURES.length);
  style[STYLE.bias] = 1;
  style[
    wordCount <= 5 ? STYLE.words_1_5 : wordCount <= 10 ? STYLE.words_6_10 : wordCount <= 20 ? STYLE.words_11_20 : wordCount <= 30 ? STYLE.words_21_30 : wordCount <= 45 ? STYLE.words_31_45 : STYLE.words_46_plus
  ] = 1;
  style[STYLE.mean_word_length] = letters / perWord / 6;
  style[STYLE.long_word_share] = longWords / perWord;
  style[STYLE.commas_per_word] = Math.min(countOf(text, /,/gu) / perWord, 0.5) * 4;
  style[STYLE.digit] = /\d/u.test(text) ? 1 : 0;
  style[STYLE.question] = text.endsWith('?') ? 1 : 0;
  style[STYLE.exclamation] = text.endsWith('!') ? 1 : 0;
  style[STYLE.contractions] = Math.min(countOf(text, CONTRACTION), 2) / 2;
  style[STYLE.first_person] = Math.min(countOf(text, FIRST_PERSON), 2) / 2;
  style[STYLE.stock_phrases] = Math.min(stockPhraseCount(text), 3) / 3;
  style[STYLE.parenthesis] = text.includes('(') ? 1 : 0;
  style[STYLE.quotation] = text.includes('"') ? 1 : 0;
  style[STYLE.colon_or_semicolon] = /[:;]/u.test(text) ? 1 : 0;
  style[STYLE.dash] = / - |--/u.test(text) ? 1 : 0;
  style[STYLE.type_token_ratio] = wordCount === 0 ? 0 : new Set(words).size / wordCount;
  const ownBuckets = new Int32Array(seen.size);
  const contextBuckets = new Int32Array(seen.size);
  let i = 0;
  for (const hash of seen) {
    ownBuckets[i] = hash & MASK;
    contextBuckets[i++] = mix(hash, CONTEXT_SALT) & MASK;
  }
  return { ownBuckets, contextBuckets, style, wordCount };
}

/** A sentence as the model reads it: bucket indices and values (duplicates allowed, summed). */
export interface SparseVector {
  indices: Int32Array;
  values: Float32Array;
}

// Up to four sentences each side, fading with distance (wider windows measured better than ±2).
const NEIGHBOURS: ReadonlyArray<readonly [offset: number, weight: number]> = [
  [-1, 1],
  [1, 1],
  [-2, 0.7],
  [2, 0.7],
  [-3, 0.5],
  [3, 0.5],
  [-4, 0.35],
  [4, 0.35],
];

interface Surroundings {
  style: Float32Array;
  /** Scale of the context block: one over its Euclidean length. */
  contextScale: number;
  contextCount: number;
}

function surroundings(sentences: readonly SentenceGrams[], at: number): Surroundings {
  const own = sentences[at]!;
  let contextCount = 0;
  let contextNorm = 0;
  const neighbourLengths: number[] = [];
  for (const [offset, weight] of NEIGHBOURS) {
    const neighbour = sentences[at + offset];
    if (!neighbour) continue;
    contextCount += neighbour.contextBuckets.length;
    contextNorm += weight * weight * neighbour.contextBuckets.length;
    neighbourLengths.push(neighbour.wordCount);
  }
  const style = own.style.slice();
  if (neighbourLengths.length === 0) {
    style[STYLE.no_neighbours] = 1;
  } else {
    const logs = neighbourLengths.map((length) => Math.log1p(length));
    const mean = logs.reduce((sum, value) => sum + value, 0) / logs.length;
    style[STYLE.length_vs_neighbours] = Math.min(Math.abs(Math.log1p(own.wordCount) - mean), 2);
    style[STYLE.neighbour_length_spread] = Math.min(Math.max(...logs) - Math.min(...logs), 2);
  }
  return { style, contextScale: contextNorm === 0 ? 0 : 1 / Math.sqrt(contextNorm), contextCount };
}

const ownValueOf = (grams: SentenceGrams) => (grams.ownBuckets.length === 0 ? 0 : 1 / Math.sqrt(grams.ownBuckets.length));

/**
 * The feature vector of sentence `at` among `sentences` (the grams of every sentence of one
 * text, in order). Own and context blocks are each scaled to unit length, so that long and
 * short sentences weigh alike.
 */
export function sentenceVector(sentences: readonly SentenceGrams[], at: number): SparseVector {
  const own = sentences[at]!;
  const { style, contextScale, contextCount } = surroundings(sentences, at);
  const size = STYLE_FEATURES.length + own.ownBuckets.length + contextCount;
  const indices = new Int32Array(size);
  const values = new Float32Array(size);
  let n = 0;
  for (let i = 0; i < style.length; i++) {
    indices[n] = i;
    values[n++] = style[i]!;
  }
  const ownValue = ownValueOf(own);
  for (const bucket of own.ownBuckets) {
    indices[n] = bucket;
    values[n++] = ownValue;
  }
  for (const [offset, weight] of NEIGHBOURS) {
    const neighbour = sentences[at + offset];
    if (!neighbour) continue;
    for (const bucket of neighbour.contextBuckets) {
      indices[n] = bucket;
      values[n++] = weight * contextScale;
    }
  }
  return { indices, values };
}

/**
 * Every sentence's vector dotted with `weights`, without building the vectors: each
 * sentence's n-grams are summed once as its own and once as a neighbour's, and the sums are
 * shared by the up to eight sentences that read it as context. Equal to the dot product of
 * `sentenceVector` with the weights (up to float rounding); inference uses this, training the vectors.
 */
export function sentenceDotProducts(sentences: readonly SentenceGrams[], weights: Float32Array): Float64Array {
  const ownSums = new Float64Array(sentences.length);
  const contextSums = new Float64Array(sentences.length);
  sentences.forEach((grams, i) => {
    let own = 0;
    for (const bucket of grams.ownBuckets) own += weights[bucket]!;
    let context = 0;
    for (const bucket of grams.contextBuckets) context += weights[bucket]!;
    ownSums[i] = own;
    contextSums[i] = context;
  });
  const dots = new Float64Array(sentences.length);
  for (let at = 0; at < sentences.length; at++) {
    const { style, contextScale } = surroundings(sentences, at);
    let z = 0;
    for (let i = 0; i < style.length; i++) z += weights[i]! * style[i]!;
    z += ownValueOf(sentences[at]!) * ownSums[at]!;
    for (const [offset, weight] of NEIGHBOURS) {
      if (at + offset >= 0 && at + offset < sentences.length) z += weight * contextScale * contextSums[at + offset]!;
    }
    dots[at] = z;
  }
  return dots;
}
