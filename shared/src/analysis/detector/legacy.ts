/**
 * The hand-weighted scorer that detector versions v1 and v2 keep for compatibility (v3 is the
 * trained model), and that the upstream double uses for every version, v3 with its own
 * calibration, so scripted test texts get predictable labels. It weighs stylistic signals (stock phrases, long words, mid-length
 * sentences) against signals of human writing (contractions, first person, questions,
 * informal words). On public labelled data it was found near chance outside ChatGPT-style
 * essays and worse than chance per sentence (issue #15).
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

const WEIGHTS: Record<LegacyVersion, Weights> = {
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

export type LegacyVersion = 'v1' | 'v2' | 'v3';

/** The AI-likelihood of one sentence, 0 to 1. */
export function legacySentenceScore(sentence: string, version: LegacyVersion): number {
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

  return 1 / (1 + Math.exp(-z));
}
