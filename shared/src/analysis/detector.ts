import type { DetectorVersion } from '../upstream/requests.ts';
import { AI_LABEL_THRESHOLD, type DetectChunk } from '../upstream/responses.ts';
import { OffsetMap, countWords } from '../text.ts';
import { splitSentences } from '../sentences.ts';

/**
 * A deterministic, explainable sentence-level AI-likelihood scorer. It is no language
 * model: it weighs stylistic signals that are over-represented in machine-written prose
 * (stock phrases, formal connectives, uniform mid-length sentences, long words) against
 * signals of human writing (contractions, first person, questions, informal words).
 * The double uses it as "the provider"; the BFF's offline mode uses it as its local scorer.
 */

const STOCK_PHRASES = [
  'delve', 'delves', 'delving', 'tapestry', 'testament to', 'in conclusion', 'it is important to note',
  "it's important to note", 'it is worth noting', 'plays a crucial role', 'plays a vital role',
  'plays a pivotal role', 'in today\'s fast-paced', 'in today\'s digital', 'ever-evolving', 'ever-changing',
  'navigate the complexities', 'navigating the complexities', 'a myriad of', 'myriad', 'embark on',
  'in the realm of', 'realm', 'foster', 'fostering', 'pivotal', 'intricate', 'underscore', 'underscores',
  'holistic', 'multifaceted', 'paramount', 'seamless', 'seamlessly', 'leverage', 'leveraging', 'harness',
  'harnessing', 'unlock the potential', 'unlocking the potential', 'elevate', 'robust', 'comprehensive',
  'landscape', 'furthermore', 'moreover', 'additionally', 'consequently', 'ultimately', 'overall,',
  'in summary', 'crucial', 'vital', 'essential', 'notably', 'showcasing', 'showcase', 'cutting-edge',
  'game-changer', 'transformative', 'paradigm', 'synergy', 'dynamic', 'innovative', 'streamline',
  'empower', 'empowering', 'resonate', 'resonates', 'profound', 'nuanced', 'meticulous', 'meticulously',
];

const HUMAN_MARKERS = [
  'lol', 'yeah', 'gonna', 'wanna', 'kinda', 'sorta', 'honestly', 'basically', 'stuff', 'ok', 'okay',
  'guess', 'dunno', 'btw', 'anyway', 'super', 'totally', 'pretty much', 'a bit', 'awesome', 'ugh', 'wow',
  'hey', 'nope', 'yep', 'mom', 'dad', 'grandma', 'yesterday', 'tonight', 'weekend',
];

const FIRST_PERSON = /\b(i|i'm|i've|i'd|i'll|me|my|mine|we|our|us)\b/giu;
const CONTRACTION = /\b\p{L}+['’](s|t|re|ve|ll|d|m)\b/giu;
const WORD = /\p{L}[\p{L}'’-]*/gu;

interface Weights {
  bias: number;
  stockPhrase: number;
  longWords: number;
  midLength: number;
  contraction: number;
  firstPerson: number;
  humanMarker: number;
  question: number;
  exclamation: number;
  digits: number;
}

// Each detector version is a different calibration of the same signals.
const WEIGHTS: Record<DetectorVersion, Weights> = {
  v1: { bias: -0.6, stockPhrase: 1.1, longWords: 1.2, midLength: 0.3, contraction: -0.8, firstPerson: -0.5, humanMarker: -0.9, question: -0.4, exclamation: -0.4, digits: -0.2 },
  v2: { bias: -0.8, stockPhrase: 1.4, longWords: 1.5, midLength: 0.4, contraction: -1.0, firstPerson: -0.7, humanMarker: -1.1, question: -0.6, exclamation: -0.6, digits: -0.3 },
  v3: { bias: -1.0, stockPhrase: 1.8, longWords: 1.8, midLength: 0.5, contraction: -1.3, firstPerson: -0.9, humanMarker: -1.4, question: -0.8, exclamation: -0.8, digits: -0.4 },
};

function countMatches(text: string, pattern: RegExp): number {
  return text.match(pattern)?.length ?? 0;
}

function containsPhrase(lower: string, phrase: string): boolean {
  let from = 0;
  for (;;) {
    const at = lower.indexOf(phrase, from);
    if (at < 0) return false;
    const before = at === 0 ? '' : lower[at - 1]!;
    const after = lower[at + phrase.length] ?? '';
    if (!/\p{L}/u.test(before) && !/\p{L}/u.test(after)) return true;
    from = at + 1;
  }
}

/** The AI-likelihood of one sentence, 0 to 1, rounded to 4 decimals. */
export function scoreSentence(sentence: string, version: DetectorVersion = 'v3'): number {
  const w = WEIGHTS[version];
  const lower = sentence.toLowerCase().replaceAll('’', "'");
  const words = sentence.match(WORD) ?? [];
  const wordCount = Math.max(words.length, 1);

  const stock = STOCK_PHRASES.filter((phrase) => containsPhrase(lower, phrase)).length;
  const human = HUMAN_MARKERS.filter((marker) => containsPhrase(lower, marker)).length;
  const longWordShare = words.filter((word) => word.length >= 9).length / wordCount;
  const midLength = wordCount >= 14 && wordCount <= 32 ? 1 : 0;

  const z =
    w.bias +
    w.stockPhrase * Math.min(stock, 3) +
    w.longWords * (longWordShare * 5 - 0.6) +
    w.midLength * midLength +
    w.contraction * Math.min(countMatches(sentence, CONTRACTION), 2) +
    w.firstPerson * Math.min(countMatches(sentence, FIRST_PERSON), 2) +
    w.humanMarker * Math.min(human, 2) +
    w.question * (sentence.trimEnd().endsWith('?') ? 1 : 0) +
    w.exclamation * (sentence.trimEnd().endsWith('!') ? 1 : 0) +
    w.digits * (/\d/u.test(sentence) ? 1 : 0);

  const score = 1 / (1 + Math.exp(-z));
  return Math.round(score * 10_000) / 10_000;
}

export interface DetectionResult {
  chunks: DetectChunk[];
  ai_percentage: number;
  words_processed: number;
}

/**
 * Sentence segments with code point offsets, labels and scores, and the share of input
 * characters (code points) inside AI-labelled sentences, as a percentage with 2 decimals.
 */
export function detect(text: string, version: DetectorVersion = 'v3'): DetectionResult {
  const offsets = new OffsetMap(text);
  let aiCharacters = 0;
  const chunks = splitSentences(text).map((sentence): DetectChunk => {
    const score = scoreSentence(sentence.text, version);
    const startChar = offsets.toCodePoint(sentence.start);
    const endChar = offsets.toCodePoint(sentence.end);
    const type = score > AI_LABEL_THRESHOLD ? 'AI' : 'Human';
    if (type === 'AI') aiCharacters += endChar - startChar;
    return { text: sentence.text, startChar, endChar, type, score };
  });
  const ai_percentage = offsets.length === 0 ? 0 : Math.round((aiCharacters / offsets.length) * 10_000) / 100;
  return { chunks, ai_percentage, words_processed: countWords(text) };
}
