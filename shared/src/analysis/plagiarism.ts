import type { PlagiarismMatch } from '../upstream/responses.ts';
import { OffsetMap, countWords } from '../text.ts';
import type { SourceDocument } from './corpus.ts';
import { splitSentences } from '../sentences.ts';

/** Bumped whenever shingling, the index layout or the reading of source files changes (2: Latin-1 files, lone-CR line ends; 3: no sentence end after a run of initials; 4: every line separator ends a sentence after an abbreviation too; 5: a window of a long text breaks only where ICU over the whole text would), so an index saved by an older version is built again. */
export const SOURCE_INDEX_VERSION = 5;

/** A sentence whose best similarity reaches this is flagged (`is_plagiarised: true`). */
export const MATCH_THRESHOLD = 0.6;
/** A sentence whose best similarity reaches this is reported, flagged or not. */
export const REPORT_THRESHOLD = 0.35;

/**
 * The offline source check. The sources are indexed once: every source sentence's word
 * bigrams of content words (stop words left out, so "of the" does not make two sentences
 * alike) go into inverted lists. A checked sentence looks up its own content bigrams, the
 * source sentences sharing the most of them become candidates, and each candidate gets the
 * exact similarity (the mean of the Dice coefficients of the two sentences' word sets and
 * word-bigram sets); the best one is the match. So the cost grows with the number of shared
 * phrases, not with the size of the corpus.
 *
 * What this finds: sentences copied from a source, also with light edits (a few words changed,
 * added or dropped; case and punctuation ignored). What it cannot find: paraphrase that keeps
 * the meaning in other words, translation, text split across several sentences, and anything
 * not in the indexed sources.
 */

const STOP_WORDS = new Set(
  ('a an the and or but if of to in on at by for with from as is are was were be been being it its this that these those ' +
    'there their they them he she his her we our you your i my me not no so than then too very can could will would shall ' +
    'should may might must do does did has have had into over under about after before between through during up down out ' +
    'off again further once here when where why how all any both each few more most other some such only own same just also').split(' '),
);

/** How many candidates per sentence get the exact similarity. */
const CANDIDATES = 12;
/** A content bigram in more source sentences than this is too common to tell sources apart. */
const MAX_POSTINGS = 2_000;

function hashWord(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function hashPair(a: number, b: number): number {
  let h = Math.imul(a ^ Math.imul(b, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) || 1; // 0 marks an empty slot in the table
}

interface SentenceShingles {
  /** Sorted distinct word hashes. */
  words: Uint32Array;
  /** Sorted distinct word-bigram hashes. */
  bigrams: Uint32Array;
  /** Distinct bigram hashes of content words (the lookup keys). */
  keys: Uint32Array;
}

function sortedDistinct(values: number[]): Uint32Array {
  const sorted = Uint32Array.from(values).sort();
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[n++] = sorted[i]!;
  return sorted.slice(0, n);
}

const STOP_HASHES = new Set([...STOP_WORDS].map(hashWord));
const NON_ASCII_WORD_CHARACTER = /[\p{L}\p{N}]/u;

/**
 * FNV-1a hashes of the lowercased words (runs of letters and digits) of a sentence, without
 * cutting the words out: the same values as hashWord(word), at a fraction of the cost.
 */
function wordHashes(sentence: string): number[] {
  const text = sentence.toLowerCase();
  const hashes: number[] = [];
  let h = 0x811c9dc5;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let width = 1;
    let isWordCharacter: boolean;
    if (c < 128) isWordCharacter = (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
    else {
      const codePoint = text.codePointAt(i)!;
      width = codePoint > 0xffff ? 2 : 1;
      isWordCharacter = NON_ASCII_WORD_CHARACTER.test(String.fromCodePoint(codePoint));
    }
    if (isWordCharacter) {
      for (let k = 0; k < width; k++) h = Math.imul(h ^ text.charCodeAt(i + k), 0x01000193);
      inWord = true;
    } else if (inWord) {
      hashes.push(h >>> 0);
      h = 0x811c9dc5;
      inWord = false;
    }
    i += width - 1;
  }
  if (inWord) hashes.push(h >>> 0);
  return hashes;
}

function shinglesOf(sentence: string): SentenceShingles {
  const hashes = wordHashes(sentence);
  const bigrams: number[] = [];
  for (let i = 1; i < hashes.length; i++) bigrams.push(hashPair(hashes[i - 1]!, hashes[i]!));
  const content = hashes.filter((hash) => !STOP_HASHES.has(hash));
  const keys: number[] = [];
  for (let i = 1; i < content.length; i++) keys.push(hashPair(content[i - 1]!, content[i]!));
  if (content.length === 1) keys.push(hashPair(content[0]!, 0));
  return { words: sortedDistinct(hashes), bigrams: sortedDistinct(bigrams), keys: sortedDistinct(keys) };
}

function sharedCount(a: Uint32Array, b: Uint32Array): number {
  let i = 0;
  let j = 0;
  let shared = 0;
  while (i < a.length && j < b.length) {
    if (a[i]! < b[j]!) i++;
    else if (a[i]! > b[j]!) j++;
    else {
      shared++;
      i++;
      j++;
    }
  }
  return shared;
}

function dice(a: Uint32Array, b: Uint32Array): number {
  return a.length + b.length === 0 ? 0 : (2 * sharedCount(a, b)) / (a.length + b.length);
}

/** Similarity 0..1: the mean of the Dice coefficients of word sets and word-bigram sets, 4 decimals. */
function similarity(a: Pick<SentenceShingles, 'words' | 'bigrams'>, b: Pick<SentenceShingles, 'words' | 'bigrams'>): number {
  return Math.round(((dice(a.words, b.words) + dice(a.bigrams, b.bigrams)) / 2) * 10_000) / 10_000;
}

/** Uint32 values appended in runs, one run per sentence, in one growing buffer. */
class PackedRuns {
  #values = new Uint32Array(1 << 16);
  #length = 0;
  readonly #starts: number[] = [0];

  push(run: Uint32Array): void {
    if (this.#length + run.length > this.#values.length) {
      let size = this.#values.length * 2;
      while (size < this.#length + run.length) size *= 2;
      const grown = new Uint32Array(size);
      grown.set(this.#values.subarray(0, this.#length));
      this.#values = grown;
    }
    this.#values.set(run, this.#length);
    this.#length += run.length;
    this.#starts.push(this.#length);
  }

  /** Fixes the runs: values and run boundaries (run i is values[starts[i]..starts[i+1])). */
  seal(allocate: Allocate): Runs {
    const values = allocate(Uint32Array, this.#length);
    values.set(this.#values.subarray(0, this.#length));
    const starts = allocate(Int32Array, this.#starts.length);
    starts.set(this.#starts);
    return { values, starts };
  }
}

/** Runs of values: run i is values[starts[i]..starts[i+1]). */
export interface Runs {
  values: Uint32Array;
  starts: Int32Array;
}

type TypedArrayOf<T> = T extends new (length: number) => infer A ? A : never;
/** Makes the index's arrays: plain ones, or on SharedArrayBuffers so that worker threads share one index. */
export type Allocate = <T extends Uint8ArrayConstructor | Uint32ArrayConstructor | Int32ArrayConstructor>(type: T, length: number) => TypedArrayOf<T>;

export const plainArrays: Allocate = (type, length) => new type(length) as never;
// The typed-array constructors take a SharedArrayBuffer; TypeScript's lib declares only ArrayBuffer.
export const sharedArrays: Allocate = (type, length) => new type(new SharedArrayBuffer(length * type.BYTES_PER_ELEMENT) as unknown as ArrayBuffer) as never;

/** Strings packed as UTF-8 bytes and byte offsets: a few buffers instead of many objects, shareable between threads. */
export interface PackedStrings {
  bytes: Uint8Array;
  starts: Int32Array;
}

function packStrings(strings: readonly string[], allocate: Allocate): PackedStrings {
  const encoder = new TextEncoder();
  const encoded = strings.map((value) => encoder.encode(value));
  const starts = allocate(Int32Array, strings.length + 1);
  for (let i = 0; i < encoded.length; i++) starts[i + 1] = starts[i]! + encoded[i]!.length;
  const bytes = allocate(Uint8Array, starts[strings.length]!);
  for (let i = 0; i < encoded.length; i++) bytes.set(encoded[i]!, starts[i]!);
  return { bytes, starts };
}

const decoder = new TextDecoder();
const stringAt = (packed: PackedStrings, i: number) => decoder.decode(packed.bytes.subarray(packed.starts[i]!, packed.starts[i + 1]!));

/** Inverted lists from content-bigram hash to source sentence numbers, in one open-addressing table. */
export interface InvertedListsData {
  slots: Uint32Array;
  starts: Int32Array;
  ends: Int32Array;
  postings: Int32Array;
}

function slotOf(slots: Uint32Array, key: number, insert: boolean): number {
  const mask = slots.length - 1;
  let slot = (Math.imul(key, 0x9e3779b1) >>> 0) & mask;
  for (;;) {
    const held = slots[slot]!;
    if (held === key) return slot;
    if (held === 0) {
      if (!insert) return -1;
      slots[slot] = key;
      return slot;
    }
    slot = (slot + 1) & mask;
  }
}

/** `keys`: each sentence's distinct keys, as runs. */
function buildInvertedLists(keys: Runs, allocate: Allocate): InvertedListsData {
  const total = keys.values.length;
  let size = 1024;
  while (size < total * 2) size *= 2;
  const slots = allocate(Uint32Array, size);
  const counts = new Int32Array(size);
  for (const key of keys.values) counts[slotOf(slots, key, true)]!++;
  const starts = allocate(Int32Array, size);
  const ends = allocate(Int32Array, size);
  let offset = 0;
  for (let slot = 0; slot < size; slot++) {
    starts[slot] = offset;
    ends[slot] = offset;
    offset += counts[slot]!;
  }
  const postings = allocate(Int32Array, total);
  for (let sentence = 0; sentence + 1 < keys.starts.length; sentence++) {
    for (let k = keys.starts[sentence]!; k < keys.starts[sentence + 1]!; k++) {
      postings[ends[slotOf(slots, keys.values[k]!, false)]!++] = sentence;
    }
  }
  return { slots, starts, ends, postings };
}

/** The sentence numbers holding `key` (a view, not a copy); empty when none. */
function postingsOf(lists: InvertedListsData, key: number): Int32Array {
  const slot = slotOf(lists.slots, key, false);
  return slot < 0 ? lists.postings.subarray(0, 0) : lists.postings.subarray(lists.starts[slot]!, lists.ends[slot]!);
}

/**
 * The CANDIDATES sources sharing the most phrases. Among sources sharing as many, those nearest
 * the checked sentence in length come first: a source sentence that contains it whole shares every
 * phrase too, and a dozen such longer sentences must not push out its copy. Then corpus order, so
 * answers are deterministic.
 */
function topCandidates(touched: readonly number[], shared: Int32Array, lengthGap: (source: number) => number): number[] {
  const top: number[] = [];
  const before = (a: number, b: number) => {
    if (shared[a] !== shared[b]) return shared[a]! > shared[b]!;
    const gapA = lengthGap(a);
    const gapB = lengthGap(b);
    return gapA < gapB || (gapA === gapB && a < b);
  };
  for (const source of touched) {
    if (top.length === CANDIDATES && !before(source, top[CANDIDATES - 1]!)) continue;
    let at = top.length < CANDIDATES ? top.length : CANDIDATES - 1;
    while (at > 0 && before(source, top[at - 1]!)) {
      top[at] = top[at - 1]!;
      at--;
    }
    top[at] = source;
  }
  return top;
}

export interface SourceMatch {
  sentence: string;
  link: string;
  similarity: number;
}

/**
 * An index as plain data: typed arrays only, so it can be written to a file as it is and, on
 * SharedArrayBuffers, read by every worker thread without a copy.
 */
export interface SourceIndexData {
  documents: number;
  /** Each source sentence's text. */
  texts: PackedStrings;
  /** Each document's link. */
  links: PackedStrings;
  /** The document each source sentence comes from. */
  documentOf: Int32Array;
  /** Every source sentence's word and word-bigram hashes. */
  words: Runs;
  bigrams: Runs;
  lists: InvertedListsData;
}

/** Source sentences of a corpus, indexed once for many checks. */
export class SourceIndex {
  readonly data: SourceIndexData;
  readonly #shared: Int32Array;

  constructor(corpus: readonly SourceDocument[] | SourceIndexData, allocate: Allocate = plainArrays) {
    this.data = Array.isArray(corpus) ? SourceIndex.#build(corpus as readonly SourceDocument[], allocate) : (corpus as SourceIndexData);
    this.#shared = new Int32Array(this.sentences);
  }

  static #build(corpus: readonly SourceDocument[], allocate: Allocate): SourceIndexData {
    const texts: string[] = [];
    const documentOf: number[] = [];
    const words = new PackedRuns();
    const bigrams = new PackedRuns();
    const keys = new PackedRuns();
    corpus.forEach((document, number) => {
      for (const sentence of splitSentences(document.text)) {
        const shingles = shinglesOf(sentence.text);
        texts.push(sentence.text);
        documentOf.push(number);
        words.push(shingles.words);
        bigrams.push(shingles.bigrams);
        keys.push(shingles.keys);
      }
    });
    const documentOfArray = allocate(Int32Array, documentOf.length);
    documentOfArray.set(documentOf);
    return {
      documents: corpus.length,
      texts: packStrings(texts, allocate),
      links: packStrings(corpus.map((document) => document.link), allocate),
      documentOf: documentOfArray,
      words: words.seal(allocate),
      bigrams: bigrams.seal(allocate),
      lists: buildInvertedLists(keys.seal(plainArrays), allocate),
    };
  }

  get documents(): number {
    return this.data.documents;
  }

  get sentences(): number {
    return this.data.documentOf.length;
  }

  #shinglesOfSource(source: number): Pick<SentenceShingles, 'words' | 'bigrams'> {
    const run = (packed: Runs) => packed.values.subarray(packed.starts[source]!, packed.starts[source + 1]!);
    return { words: run(this.data.words), bigrams: run(this.data.bigrams) };
  }

  /** The most similar source sentence, or undefined when none shares a content phrase. */
  bestMatch(sentence: string): SourceMatch | undefined {
    const query = shinglesOf(sentence);
    const touched: number[] = [];
    const shared = this.#shared;
    for (const key of query.keys) {
      const postings = postingsOf(this.data.lists, key);
      if (postings.length > MAX_POSTINGS) continue;
      for (const source of postings) {
        if (shared[source]! === 0) touched.push(source);
        shared[source]!++;
      }
    }
    let best: { source: number; similarity: number } | undefined;
    const words = this.data.words.starts;
    const lengthGap = (source: number) => Math.abs(words[source + 1]! - words[source]! - query.words.length);
    for (const source of topCandidates(touched, shared, lengthGap)) {
      const score = similarity(query, this.#shinglesOfSource(source));
      if (!best || score > best.similarity) best = { source, similarity: score };
    }
    for (const source of touched) shared[source] = 0;
    return best && {
      sentence: stringAt(this.data.texts, best.source),
      link: stringAt(this.data.links, this.data.documentOf[best.source]!),
      similarity: best.similarity,
    };
  }
}

export interface PlagiarismResult {
  results: PlagiarismMatch[];
  plagiarism_score: number;
  words_processed: number;
}

/** Builds a checker over a corpus; index once, check many texts. */
export function createPlagiarismChecker(corpus: readonly SourceDocument[] | SourceIndex) {
  const index = corpus instanceof SourceIndex ? corpus : new SourceIndex(corpus);

  return function check(text: string): PlagiarismResult {
    const offsets = new OffsetMap(text);
    const results: PlagiarismMatch[] = [];
    let flaggedCharacters = 0;
    for (const span of splitSentences(text)) {
      const match = index.bestMatch(span.text);
      if (!match || match.similarity < REPORT_THRESHOLD) continue;
      const is_plagiarised = match.similarity >= MATCH_THRESHOLD;
      if (is_plagiarised) flaggedCharacters += offsets.toCodePoint(span.end) - offsets.toCodePoint(span.start);
      results.push({ sentence: span.text, is_plagiarised, web_sentence: match.sentence, similarity: match.similarity, link: match.link });
    }
    const plagiarism_score = offsets.length === 0 ? 0 : Math.round((flaggedCharacters / offsets.length) * 10_000) / 100;
    return { results, plagiarism_score, words_processed: countWords(text) };
  };
}
