/**
 * Text → numbers for the trained detector, shared by training and inference.
 *
 * A sentence becomes a sparse vector of hashed features in four blocks:
 * - own: lowercased word unigrams and bigrams of the sentence;
 * - context: the same n-grams of the neighbouring sentences (up to ±12: fading with distance
 *   over ±4, a constant low weight beyond), hashed into a separate namespace, so a sentence is
 *   read together with its surroundings;
 * - style: a few dense signals (length, word length, punctuation, contractions, first person,
 *   stock phrases) and how much the sentence's length differs from its neighbours' (±4);
 * - language: two word tables learnt from the training texts (`LanguageTables`): how common
 *   the sentence's words are (mean, minimum, spread, share of rare words) and how much more
 *   often machine than human text uses them (a naive-Bayes log ratio), each for the sentence
 *   itself, for its neighbours, and as the difference between the two. These few numbers
 *   carry over to corpora the model was not trained on better than the n-gram blocks do
 *   (measured leave-one-corpus-out; character 4-grams were dropped for the same reason).
 *
 * Before anything is counted the text is normalised so that typographic conventions of the
 * training corpora (curly quotes, non-breaking spaces, a space before punctuation, line
 * breaks) carry no signal: they say how a data set was prepared, not who wrote the text.
 * Absolute position in the document is deliberately not a feature: in the training corpus
 * the machine part of a mixed text always comes second, which is no rule of real text.
 */

export const FEATURE_BITS = 16;
export const FEATURE_BUCKETS = 1 << FEATURE_BITS;
const MASK = FEATURE_BUCKETS - 1;

const CONTEXT_SALT = 0x5bd1e995;

/** Buckets of the language tables: words are hashed into 2^LANGUAGE_BITS cells. */
export const LANGUAGE_BITS = 16;
export const LANGUAGE_BUCKETS = 1 << LANGUAGE_BITS;
const LANGUAGE_MASK = LANGUAGE_BUCKETS - 1;
/** A word whose log-probability is below this counts as rare (about 6 per million). */
const RARE_LOG_PROBABILITY = -12;

/** Per word bucket: log-probability in the training texts, and log(P machine / P human). */
export interface LanguageTables {
  logProbability: Float32Array;
  logRatio: Float32Array;
}

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
  'common_words',
  'rare_word_share',
  'rarest_word',
  'word_rarity_spread',
  'common_words_vs_neighbours',
  'neighbours_common_words',
  'machine_word_ratio',
  'machine_word_ratio_vs_neighbours',
  'neighbours_machine_word_ratio',
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
  /** Style values indexed like STYLE_FEATURES; the neighbour-dependent ones are filled in later. */
  style: Float32Array;
  wordCount: number;
  /** The words' buckets in the language tables, in order. */
  wordBuckets: Int32Array;
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

/**
 * What a sentence contributes. Without `tables` (while the tables themselves are being
 * learnt) the language features stay zero; `withLanguage` fills them in later.
 */
export function sentenceGrams(sentence: string, tables?: LanguageTables): SentenceGrams {
  const text = normalise(sentence);
  const words = text.match(WORD) ?? [];
  const seen = new Set<number>();
  let previous = hashString('<s>', 1);
  let letters = 0;
  let longWords = 0;
  const wordBuckets = new Int32Array(words.length);
  for (let w = 0; w < words.length; w++) {
    const raw = words[w]!;
    const word = /\d/u.test(raw) ? raw.replace(/\d+/gu, '0') : raw;
    letters += word.length;
    if (word.length >= 9) longWords++;
    const unigram = hashString(word, 1);
    wordBuckets[w] = mix(unigram, 3) & LANGUAGE_MASK;
    seen.add(unigram);
    seen.add(mix(previous, unigram));
    previous = unigram;
  }
  seen.add(mix(previous, hashString('</s>', 1)));

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
  const grams: SentenceGrams = { ownBuckets, contextBuckets, style, wordCount, wordBuckets };
  return tables ? withLanguage(grams, tables) : grams;
}

/** The sentence's own language features under `tables` (a copy; the n-gram buckets are shared). */
export function withLanguage(grams: SentenceGrams, tables: LanguageTables): SentenceGrams {
  const style = grams.style.slice();
  const n = grams.wordBuckets.length;
  if (n > 0) {
    let sum = 0;
    let squares = 0;
    let rarest = 0;
    let rare = 0;
    let ratio = 0;
    for (const bucket of grams.wordBuckets) {
      const logP = tables.logProbability[bucket]!;
      sum += logP;
      squares += logP * logP;
      rarest = Math.min(rarest, logP);
      if (logP < RARE_LOG_PROBABILITY) rare++;
      ratio += tables.logRatio[bucket]!;
    }
    const mean = sum / n;
    // Shifted and scaled to about -1..1 on ordinary text.
    style[STYLE.common_words] = (mean + 8) / 2;
    style[STYLE.rare_word_share] = rare / n;
    style[STYLE.rarest_word] = (rarest + 12) / 4;
    style[STYLE.word_rarity_spread] = Math.sqrt(Math.max(squares / n - mean * mean, 0)) / 3;
    style[STYLE.machine_word_ratio] = ratio / n;
  }
  return { ...grams, style };
}

/** A sentence as the model reads it: bucket indices and values (duplicates allowed, summed). */
export interface SparseVector {
  indices: Int32Array;
  values: Float32Array;
}

// Up to four sentences each side, fading with distance (wider windows measured better than ±2):
// the neighbours of the style and language features.
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
/** Sentences 5-12 away on either side, read as context at a constant low weight (see CONTEXT). */
const FAR_CONTEXT_REACH = 12;
const FAR_CONTEXT_WEIGHT = 0.2;
/**
 * The sentences whose n-grams make up the context block: the neighbours and the far ones.
 * Reaching ±12 rather than ±4 raised the leave-one-corpus-out sentence AUROC (0.602 → 0.629)
 * and the leave-one-generator-out figures; wider still (±24) gained nothing more.
 */
const CONTEXT: ReadonlyArray<readonly [offset: number, weight: number]> = [
  ...NEIGHBOURS,
  ...Array.from({ length: FAR_CONTEXT_REACH - 4 }, (_, k) => [
    [-(k + 5), FAR_CONTEXT_WEIGHT] as const,
    [k + 5, FAR_CONTEXT_WEIGHT] as const,
  ]).flat(),
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
  for (const [offset, weight] of CONTEXT) {
    const neighbour = sentences[at + offset];
    if (!neighbour) continue;
    contextCount += neighbour.contextBuckets.length;
    contextNorm += weight * weight * neighbour.contextBuckets.length;
  }
  const neighbourLengths: number[] = [];
  for (const [offset] of NEIGHBOURS) {
    const neighbour = sentences[at + offset];
    if (neighbour) neighbourLengths.push(neighbour.wordCount);
  }
  // Unweighted means of the neighbours' language features (sentences without words skipped).
  let common = 0;
  let machine = 0;
  let withWords = 0;
  for (const [offset] of NEIGHBOURS) {
    const neighbour = sentences[at + offset];
    if (!neighbour || neighbour.wordCount === 0) continue;
    common += neighbour.style[STYLE.common_words]!;
    machine += neighbour.style[STYLE.machine_word_ratio]!;
    withWords++;
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
  if (withWords > 0) {
    style[STYLE.neighbours_common_words] = common / withWords;
    style[STYLE.common_words_vs_neighbours] = own.style[STYLE.common_words]! - common / withWords;
    style[STYLE.neighbours_machine_word_ratio] = machine / withWords;
    style[STYLE.machine_word_ratio_vs_neighbours] = own.style[STYLE.machine_word_ratio]! - machine / withWords;
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
  for (const [offset, weight] of CONTEXT) {
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
 * shared by the up to 24 sentences that read it as context. Equal to the dot product of
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
    for (const [offset, weight] of CONTEXT) {
      if (at + offset >= 0 && at + offset < sentences.length) z += weight * contextScale * contextSums[at + offset]!;
    }
    dots[at] = z;
  }
  return dots;
}
