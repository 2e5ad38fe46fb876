import type { HumanizerModel } from '../upstream/requests.ts';
import { countWords } from '../text.ts';
import { splitSentences } from '../sentences.ts';
import { findProtectedSpans, locateSpans, mergeSpans, type Span } from './protected-spans.ts';
import { introducedProblems, needsFullForm, protectedTextProblems, type GrammarProblem } from './rewrite/grammar-guard.ts';
import {
  CLARITY_PHRASES,
  ADDITIVE_OPENERS,
  CASUAL_SWAPS,
  CONNECTIVES,
  headNounAfter,
  isPluralNoun,
  NEGATIVE_CONTRACTIONS,
  NO_PASSIVE,
  ONLY_BEFORE_INFINITIVE,
  PLAIN_CONNECTIVES,
  PLAIN_PHRASES,
  SUBJECT_CONTRACTIONS,
  SWAPS,
  type PhraseRule,
  type Swap,
  type VerbForms,
} from './rewrite/rules.ts';
import { tag, type Token } from './rewrite/tagger.ts';

/**
 * A deterministic rule-based rewriter with four models of distinct character:
 * - cognia: light clarity edits: wordy phrases shortened ("in order to" → "to", "has the
 *   potential to" → "could"), filler dropped: empty openers ("It is important to note that …"),
 *   additive sentence openers ("Moreover,", "Furthermore,") and "very" before a plain
 *   adjective; the writer's words otherwise stay.
 * - lexi: plainer vocabulary: cognia's phrase edits, stiff phrases reworded, formal words
 *   swapped for plain ones ("utilize" → "use"), checked against the part of speech and keeping
 *   the verb form, and formal connectives given plain ones ("Moreover," → "Also,",
 *   "Consequently," → "As a result,"; never twice in three sentences).
 * - cognia_v2: sentence restructuring: cognia's edits, with the opening connective moved into
 *   the clause ("Moreover, students need" → "Students also need", "However, the plan failed" →
 *   "The plan, however, failed"), a comment on the whole clause made a sentence ("…, which
 *   means that" → "…. This means that", "…, leading to" → "…. This leads to"), and long
 *   sentences split where two full clauses meet.
 * - huma_v2: strongest voice change: lexi's words and cognia_v2's restructuring plus
 *   contractions (only where English allows them: not in "how hard it is to", "who you are",
 *   "than it is today"; and one choice per text: no "don't" beside "do not") and
 *   conversational connectives ("Thus," → "So,", "However," → "But"); hedges stay (dropping
 *   "it could be argued that" would make the writer assert what they may go on to rebut).
 *   Legal and academic text gets no contractions and no casual words or openers.
 * Every model keeps numbers, dates, links, e-mail addresses, quotations, `code` and
 * capitalised names exactly as written, and only the words it rewrites change (the writer's
 * spacing stays). Every rewritten sentence passes a tagger-based grammar check: a sentence
 * whose rewrite has a problem its original did not have is tried with fewer edits, and
 * otherwise stays as written.
 */

interface ModelSteps {
  phrases: PhraseRule[];
  swaps: boolean;
  openers: OpenerSteps;
  contractions: boolean;
  splits: boolean;
  /** Contractions left out in this text ("do not"), so that it does not mix "don't" and "do not". */
  skipContractions?: ReadonlySet<string>;
  /** Legal or academic text: no casual word swaps ("obtained" stays). */
  formal?: boolean;
}

const MODELS: Record<HumanizerModel, ModelSteps> = {
  cognia: { phrases: CLARITY_PHRASES, swaps: false, openers: { additive: 'drop' }, contractions: false, splits: false },
  lexi: { phrases: [...CLARITY_PHRASES, ...PLAIN_PHRASES], swaps: true, openers: { additive: 'table', table: PLAIN_CONNECTIVES }, contractions: false, splits: false },
  cognia_v2: { phrases: CLARITY_PHRASES, swaps: false, openers: { additive: 'move', moveOthers: true }, contractions: false, splits: true },
  huma_v2: { phrases: [...CLARITY_PHRASES, ...PLAIN_PHRASES], swaps: true, openers: { additive: 'move', table: CONNECTIVES }, contractions: true, splits: true },
};

interface Edit {
  start: number;
  end: number;
  text: string;
}

const isWord = (token: Token | undefined) => token !== undefined && token.pos !== 'PUNCT' && token.pos !== 'SYM' && token.pos !== 'SPACE';

function withCaseOf(original: string, replacement: string): string {
  if (replacement === '' || !/^\p{Lu}/u.test(original)) return replacement;
  if (original.length > 1 && original === original.toUpperCase() && /\p{L}{2}/u.test(original)) return replacement.toUpperCase();
  return replacement[0]!.toUpperCase() + replacement.slice(1);
}

class SentenceEditor {
  readonly edits: Edit[] = [];
  constructor(
    readonly sentence: string,
    readonly tokens: Token[],
    readonly frozen: Span[],
  ) {}

  isFree(from: number, to: number): boolean {
    const start = this.tokens[from]!.start;
    const end = this.tokens[to]!.end;
    return (
      !this.frozen.some((span) => span.start < end && span.end > start) &&
      !this.edits.some((edit) => edit.start < end && edit.end > start)
    );
  }

  /** Replaces tokens from..to (inclusive); '' deletes them with the space after. */
  replace(from: number, to: number, text: string): boolean {
    if (!this.isFree(from, to)) return false;
    const first = this.tokens[from]!;
    const atStart = !this.tokens.slice(0, from).some(isWord);
    if (text === '') {
      const next = this.tokens[to + 1];
      if (!next || !isWord(next)) return false;
      if (atStart) {
        // The next word starts the sentence now: it must be free to take a capital, and not a
        // name whose case is its own ("pnpm", "eBay").
        if (!this.isFree(to + 1, to + 1) && !/^\p{Lu}/u.test(next.text)) return false;
        if (keepsOwnCase(next)) return false;
        this.edits.push({ start: first.start, end: next.start, text: '' });
        if (/^\p{Ll}/u.test(next.text) && this.isFree(to + 1, to + 1)) {
          this.edits.push({ start: next.start, end: next.start + 1, text: next.text[0]!.toUpperCase() });
        }
        return true;
      }
      this.edits.push({ start: first.start, end: next.start, text: '' });
      return true;
    }
    this.edits.push({ start: first.start, end: this.tokens[to]!.end, text: atStart ? withCaseOf(first.text, text) : text });
    return true;
  }

  result(): string {
    let out = this.sentence;
    for (const edit of [...this.edits].sort((a, b) => b.start - a.start)) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
    return out;
  }
}

/**
 * A word that must not be capitalised at a new sentence start: a name written with a case of
 * its own ("eBay", "iPhone"), a lowercase name the tagger knows as one, or a word with a digit
 * or without a vowel ("pnpm", "npm", "x86"), which no dictionary word is.
 */
function keepsOwnCase(token: Token): boolean {
  const { text } = token;
  if (!/^\p{Ll}/u.test(text)) return false;
  return /\p{Lu}/u.test(text) || token.pos === 'PROPN' || /\d/u.test(text) || !/[aeiouy]/iu.test(text);
}

/** "computer-assisted", "self-sufficient": a word joined by a hyphen is part of a compound. */
function touchesHyphen(tokens: Token[], from: number, to: number): boolean {
  const before = tokens[from - 1];
  const after = tokens[to + 1];
  return (
    (before !== undefined && before.text.endsWith('-') && before.end === tokens[from]!.start) ||
    (after !== undefined && after.text.startsWith('-') && after.start === tokens[to]!.end)
  );
}

function applyPhrases(editor: SentenceEditor, rules: PhraseRule[]): void {
  const { tokens } = editor;
  for (let i = 0; i < tokens.length; i++) {
    for (const rule of rules) {
      const last = i + rule.phrase.length - 1;
      if (!rule.phrase.every((word, k) => tokens[i + k]?.lower === word)) continue;
      if (touchesHyphen(tokens, i, last) || (rule.fits && !rule.fits(tokens, i, last))) continue;
      if (editor.replace(i, last, rule.replacement)) break;
    }
  }
}

/** Words "very" must keep: "very few", "the very first", "very much", "very well", "their very own". */
const VERY_KEEPS = new Set(['few', 'little', 'much', 'many', 'well', 'own', 'same', 'first', 'last', 'best', 'least', 'most', 'next', 'end', 'beginning', 'top', 'bottom', 'idea', 'real', 'different']);
/**
 * Measures "very" must keep: "a very large number of lines", "very long file names", "very
 * short keys" state a size or a degree, and without "very" the claim is another (an outside
 * probe of manuals and release notes: about 45 such drops in 5 MB of text).
 */
const VERY_MEASURES = new Set([
  'large', 'small', 'big', 'tiny', 'long', 'short', 'high', 'low', 'wide', 'narrow', 'deep', 'shallow', 'thin', 'thick', 'heavy', 'light',
  'old', 'young', 'new', 'recent', 'early', 'late', 'fast', 'slow', 'quick', 'rare', 'frequent', 'common', 'close', 'near', 'far',
  'general', 'specific', 'limited', 'expensive', 'cheap', 'hot', 'cold', 'slight', 'minor',
]);
const NEGATORS = new Set(['not', "n't", 'never', 'no', 'nothing', 'hardly']);

/**
 * Clarity: "very" before a plain adjective adds nothing a copy editor keeps ("a very important
 * issue" → "an important issue" is another matter: "very" after "a" stays when the adjective
 * starts with a vowel letter). "not very good" is not "not good", nor "very few" "few".
 */
function applyIntensifiers(editor: SentenceEditor): void {
  const { tokens } = editor;
  tokens.forEach((token, at) => {
    if (token.lower !== 'very' || token.pos !== 'ADV') return;
    const next = tokens[at + 1];
    const before = tokens[at - 1];
    if (next === undefined || next.pos !== 'ADJ' || VERY_KEEPS.has(next.lower) || VERY_MEASURES.has(next.lower) || /(?:er|est)$/u.test(next.lower)) return;
    if (next.start !== token.end + 1 || touchesHyphen(tokens, at, at)) return;
    if (before !== undefined && (NEGATORS.has(before.lower) || ['very', 'so', 'too', 'the', 'this', 'that'].includes(before.lower))) return;
    if (before?.lower === 'a' && /^[aeiouh]/iu.test(next.text)) {
      // "a very important issue" → "an important issue"; "a very useful", "a very honest" stay.
      if (/^[aeio]/iu.test(next.text) && before.end + 1 === token.start) editor.replace(at - 1, at, before.text === 'A' ? 'An' : 'an');
      return;
    }
    // "very, very good" and "Very good." (a reply) stay; a sentence must not start with a lowercase adjective.
    if (before?.text === ',' && tokens[at - 2]?.lower === 'very') return;
    if (!tokens.slice(0, at).some(isWord)) return;
    editor.replace(at, at, '');
  });
}

function verbFormFor(tokens: Token[], at: number, from: VerbForms, to: VerbForms): string | undefined {
  const word = tokens[at]!.lower;
  if (word === from.base) return to.base;
  if (word === from.third) return to.third;
  if (word === from.gerund) return to.gerund;
  if (word !== from.past && word !== from.participle) return undefined;
  let j = at - 1;
  while (j >= 0 && (tokens[j]!.pos === 'ADV' || tokens[j]!.pos === 'PART')) j--;
  const auxiliary = j >= 0 ? tokens[j]!.lemma : '';
  if (auxiliary === 'be' && NO_PASSIVE.has(from.base)) return undefined;
  if (to.past === to.participle) return to.past;
  if (auxiliary === 'have' || auxiliary === 'be' || tokens[at + 1]?.lower === 'by') return to.participle;
  // "demonstrated" is past or participle; "showed" and "shown" are not interchangeable. Only a
  // subject right before and an object after make it a past tense ("Studies demonstrated that"):
  // "As demonstrated in", "Once demonstrated,", "Results demonstrated in earlier work were" stay.
  const subject = tokens[at - 1];
  const object = tokens[at + 1];
  const finite = subject !== undefined && ['NOUN', 'PROPN', 'PRON'].includes(subject.pos) && object !== undefined && (['DET', 'PRON', 'NOUN', 'PROPN', 'ADJ', 'NUM'].includes(object.pos) || object.lower === 'that');
  return finite ? to.past : undefined;
}

/** A verb with no object ("people demonstrated in the capital", "we assist with setup") may mean something else: kept. */
function usedWithoutObject(tokens: Token[], at: number): boolean {
  const next = tokens[at + 1];
  return next === undefined || next.pos === 'ADP' || next.pos === 'PUNCT' || next.pos === 'SCONJ';
}

const NOUN_MODIFIERS = new Set(['DET', 'NUM', 'ADJ']);
const POSSESSIVES = new Set(['my', 'your', 'his', 'her', 'its', 'our', 'their', "'s"]);
/** Determiners the tagger may call something else ("focus that additional time"). */
const DETERMINERS = new Set(['the', 'this', 'that', 'these', 'those', 'each', 'every', 'any', 'no', 'some']);
/** Adjectives that say "how much": "the additional cost" is not "the more cost". */
const QUANTIFIERS = new Set(['more', 'enough']);

function adjectiveSwapFor(tokens: Token[], at: number, to: string): string | undefined {
  const before = tokens[at - 1];
  if (/^(a|an)$/u.test(before?.lower ?? '')) return undefined;
  // "more robust" is not "more strong", "most optimal" not "most best".
  if (/^(more|most|less|least)$/u.test(before?.lower ?? '')) return undefined;
  // "many" takes a plural count noun: "Love was numerous" is not "Love was many".
  if (to === 'many' && !isPluralNoun(headNounAfter(tokens, at))) return undefined;
  if (QUANTIFIERS.has(to)) {
    const afterDeterminer = before !== undefined && (before.pos === 'DET' || before.pos === 'PRON' || before.pos === 'NUM' || POSSESSIVES.has(before.lower) || DETERMINERS.has(before.lower));
    if (afterDeterminer || (to === 'more' && tokens[at + 1]?.pos !== 'NOUN')) return undefined;
    // "more" reads as a determiner only as an object ("add more lemon juice", "for more
    // information"): "certain more measures", "strong more incentives", "an amount of more revenue" are not English.
    if (to === 'more' && !(before?.pos === 'VERB' || before?.lower === 'for')) return undefined;
  }
  // "about" is "approximately" only before a quantity: "completed about within the time" is not English.
  if (to === 'about' && !startsQuantity(tokens, at + 1)) return undefined;
  return to;
}

function startsQuantity(tokens: Token[], at: number): boolean {
  const token = tokens[at];
  if (token === undefined) return false;
  return token.pos === 'NUM' || /^\p{N}/u.test(token.text) || (/^[$£€¥]$/u.test(token.text) && startsQuantity(tokens, at + 1));
}

/**
 * Whether the plain word is already next to the swap ("our assistance has helped" would become
 * "our help has helped", "other help—to assist" "other help—to help"): a swap must not make a repetition.
 */
function repeatsNearby(tokens: Token[], at: number, word: string): boolean {
  for (let k = Math.max(0, at - 4); k <= Math.min(tokens.length - 1, at + 4); k++) {
    if (k !== at && (tokens[k]!.lower === word || tokens[k]!.lemma === word)) return true;
  }
  return false;
}

function swapFor(tokens: Token[], at: number, swap: Swap): string | undefined {
  const token = tokens[at]!;
  if (token.pos !== swap.pos) return undefined;
  // "individuals' data" would lose the plural its apostrophe needs.
  if (/^['’]/u.test(tokens[at + 1]?.text ?? '') || touchesHyphen(tokens, at, at)) return undefined;
  const before = tokens[at - 1];
  switch (swap.pos) {
    case 'VERB':
      // A participle used as an adjective ("their required work", "the assisted living") keeps its word.
      if (before !== undefined && (NOUN_MODIFIERS.has(before.pos) || POSSESSIVES.has(before.lower))) return undefined;
      // "Assisted living", "physician assisted suicide": a participle before a noun may be an
      // adjective; only a pronoun subject ("they purchased land") shows it is a verb.
      if (token.lower === swap.from.past && before?.pos !== 'PRON' && (tokens[at + 1]?.pos === 'NOUN' || /ing$/u.test(tokens[at + 1]?.lower ?? ''))) return undefined;
      if (usedWithoutObject(tokens, at)) return undefined;
      if (ONLY_BEFORE_INFINITIVE.has(swap.from.base) && tokens[at + 1]?.lower !== 'to') return undefined;
      // "spirits that possess them" is not "have them".
      if (swap.from.base === 'possess' && tokens[at + 1]?.pos === 'PRON') return undefined;
      // "purchasing power", "maintaining employment and purchasing power": a gerund right before
      // a bare noun may be part of a set compound.
      if (token.lower === swap.from.gerund && tokens[at + 1]?.pos === 'NOUN') return undefined;
      if (repeatsNearby(tokens, at, swap.to.base)) return undefined;
      return verbFormFor(tokens, at, swap.from, swap.to);
    case 'NOUN':
      // "should endeavor to adhere": after a modal or "to" the tagger's noun is a verb.
      if (before !== undefined && (before.pos === 'AUX' || before.lower === 'to')) return undefined;
      // "assistance efforts", "public assistance": a noun in a compound is part of a set phrase.
      if (tokens[at + 1]?.pos === 'NOUN' || (before !== undefined && ['ADJ', 'NOUN', 'PROPN'].includes(before.pos))) return undefined;
      if (repeatsNearby(tokens, at, swap.to.singular)) return undefined;
      if (token.lower === swap.from.plural) return swap.to.plural;
      // "an individual" → "a person": the article must not follow the old word's sound.
      if (token.lower === swap.from.singular && !/^(a|an)$/u.test(before?.lower ?? '')) return swap.to.singular;
      return undefined;
    default:
      return token.lower === swap.from ? adjectiveSwapFor(tokens, at, swap.to) : undefined;
  }
}

/**
 * A licence's grant or terms ("copy, distribute and/or modify it under the terms of the GNU
 * GPL", "the right to modify or publish new versions of this License"): its verbs are terms of
 * art and stay, also in a README that quotes the notice and is not otherwise formal.
 */
const LICENCE_TERMS = /\b(?:licen[cs]\w*|sublicen\w*|copyright\w*|redistribut\w*|distribut\w*|permission\w*)\b/iu;
const LICENCE_VERBS = new Set(['modify']);

function applySwaps(editor: SentenceEditor, formal: boolean): void {
  const licence = LICENCE_TERMS.test(editor.tokens.map((token) => token.text).join(' '));
  editor.tokens.forEach((token, at) => {
    for (const swap of SWAPS) {
      if (formal && swap.pos === 'VERB' && CASUAL_SWAPS.has(swap.from.base)) continue;
      if (licence && swap.pos === 'VERB' && LICENCE_VERBS.has(swap.from.base)) continue;
      const replacement = swapFor(editor.tokens, at, swap);
      if (replacement !== undefined) {
        editor.replace(at, at, withCaseOf(token.text, replacement));
        return;
      }
    }
  });
}

/**
 * What a model does with a sentence-opening connective: `additive` for "Moreover,",
 * "Furthermore,", "Additionally,", "In addition," ('drop' it, 'move' it into the clause as
 * "also", or leave it to `table`), and `table` for replacement words.
 */
interface OpenerSteps {
  additive: 'drop' | 'move' | 'table';
  table?: Record<string, string>;
  /** Whether "However,", "Therefore," and "Thus," move into the clause (restructuring models). */
  moveOthers?: boolean;
}

/** The sentence's opening connective: its first token, its last and the comma after it. */
function openerAt(tokens: Token[]): { first: number; comma: number; key: string } | undefined {
  const first = tokens.findIndex(isWord);
  if (first < 0) return undefined;
  for (const length of [2, 1]) {
    const words = tokens.slice(first, first + length);
    if (words.length !== length || tokens[first + length]?.text !== ',') continue;
    return { first, comma: first + length, key: words.map((token) => token.lower).join(' ') };
  }
  return undefined;
}

/**
 * The clause verb after a subject, also after a short gerund phrase ("Prioritizing tasks helps",
 * "Setting realistic goals allows"), whose verb must then show its person ("helps", "can").
 */
const NOUNS_IN_ING = new Set(['thing', 'something', 'nothing', 'anything', 'everything', 'morning', 'evening', 'building', 'meeting', 'wedding', 'string', 'spring', 'ceiling', 'feeling', 'painting', 'clothing', 'housing', 'funding', 'training', 'setting', 'finding', 'beijing', 'during']);

function subjectVerb(words: Token[]): number {
  const first = words[0];
  // The tagger may call a capitalised gerund a noun ("Spending dedicated time … requires").
  if (first !== undefined && (first.pos === 'VERB' || first.pos === 'NOUN' || first.pos === 'PROPN') && /^\p{L}{3,}ing$/u.test(first.lower) && !NOUNS_IN_ING.has(first.lower)) {
    let j = 1;
    while (j < words.length && j <= 4 && NOUN_PHRASE.has(words[j]!.pos)) j++;
    const verb = words[j];
    if (j === 1 || verb === undefined) return -1;
    return (verb.pos === 'AUX' && MODAL_WORDS.has(verb.lower)) || (verb.pos === 'AUX' && /^(is|was|has)$/u.test(verb.lower)) || (verb.pos === 'VERB' && /[^s]s$/u.test(verb.lower) && verb.lower !== verb.lemma) ? j : -1;
  }
  return clauseVerb(words);
}

/** Connectives a restructuring moves into the clause: additive ones as "also", "Thus," and "Therefore," as themselves. */
const MOVED_INTO_CLAUSE: Record<string, string> = { moreover: 'also', furthermore: 'also', additionally: 'also', 'in addition': 'also', therefore: 'therefore', thus: 'thus', however: 'however' };

/**
 * Restructuring of an opening connective: "Moreover, students need X" → "Students also need
 * X" ("also" after the clause's auxiliary: "can also help", "is also important", "'s also
 * clear"; or before its verb: "also need"); "Therefore, schools must act" → "Schools must
 * therefore act"; "However, the plan failed" → "The plan, however, failed" (after a noun
 * subject only: "It, however, failed" is stilted). Only where the subject is short and plain,
 * not before "not", and never with a second "also".
 */
function moveIntoClause(editor: SentenceEditor, first: number, comma: number, word: string): boolean {
  const { tokens } = editor;
  const rest = tokens.slice(comma);
  if (rest.some((token, k) => token.lower === word || (word === 'also' && (token.lower === 'too' || (token.lower === 'as' && rest[k + 1]?.lower === 'well'))))) return false;
  // "Another instance would also be": the subject already says "in addition".
  if (word === 'also' && /^(another|other|further|more)$/u.test(tokens[comma + 1]?.lower ?? '')) return false;
  const restStart = comma + 1;
  const words = tokens.slice(restStart).filter(isWord);
  if (words[0] !== tokens[restStart]) return false;
  const v = subjectVerb(words);
  if (v < 0) return false;
  const verb = words[v]!;
  const at = tokens.indexOf(verb);
  if (tokens.slice(restStart, at).some((token) => !isWord(token))) return false;
  const after = tokens[at + 1];
  if (after === undefined || !isWord(after)) return false;
  if (word === 'however') {
    const subject = tokens[at - 1]!;
    if (!['NOUN', 'PROPN'].includes(subject.pos) || words[0]!.pos === 'PRON' || !editor.isFree(at - 1, at - 1)) return false;
    if (!editor.replace(first, comma, '')) return false;
    editor.replace(at - 1, at - 1, `${subject.text}, however,`);
    return true;
  }
  if (verb.lemma === 'do' || after.lower === 'not' || after.lower === "n't") return false;
  // "has many benefits": "have" as the main verb takes "also" before it.
  const auxiliary = verb.pos === 'AUX' && !(verb.lemma === 'have' && after.pos !== 'VERB' && after.pos !== 'ADV');
  if (!editor.isFree(at, at) || !editor.replace(first, comma, '')) return false;
  editor.replace(at, at, auxiliary ? `${verb.text} ${word}` : `${word} ${verb.text}`);
  return true;
}

/** What the previous sentence's opener became: "Also, … Also, …" in a row reads as a tic. */
interface OpenerContext {
  previous?: string;
  /** Sentences since `previous` was used: "Also, … . … . Also, …" is still too close. */
  since?: number;
}

function applyOpener(editor: SentenceEditor, steps: OpenerSteps, context: OpenerContext): void {
  const opener = openerAt(editor.tokens);
  const previous = context.previous;
  context.since = (context.since ?? 0) + 1;
  if (context.since > 2) context.previous = undefined;
  if (opener === undefined) return;
  const { first, comma, key } = opener;
  if (ADDITIVE_OPENERS.has(key) && steps.additive !== 'table') {
    if (steps.additive === 'move' && moveIntoClause(editor, first, comma, 'also')) return;
    // Where "also" finds no place, a model with replacement words uses its own ("Also,"); the others drop it.
    // "Furthermore, is a good help" would start with its verb: kept.
    const next = editor.tokens[comma + 1];
    const verbFirst = next !== undefined && (next.pos === 'AUX' || next.pos === 'VERB');
    if (!steps.table?.[key] && !verbFirst && editor.replace(first, comma, '')) return;
  }
  const replacement = steps.table?.[key];
  if (!replacement && steps.moveOthers && MOVED_INTO_CLAUSE[key] && !ADDITIVE_OPENERS.has(key)) {
    moveIntoClause(editor, first, comma, MOVED_INTO_CLAUSE[key]);
    return;
  }
  if (!replacement || replacement === previous) return;
  const { tokens } = editor;
  // "Also, studies show that students also feel …": the clause has its own.
  if (tokens.slice(comma).some((token) => token.lower === replacement.toLowerCase())) return;
  context.previous = replacement;
  context.since = 0;
  if (replacement === 'But') {
    // "However, for those …, but also …" has its own "but".
    if (tokens.slice(comma).some((token) => token.lower === 'but')) return;
    // "However, he said, the plan …": the comma pairs with a parenthetical's.
    if (tokens.slice(comma + 1, comma + 5).some((token) => token.text === ',')) return;
    // "But" reads best without the comma; "So, many companies" needs it ("so many"), and "Still, …" too.
    editor.replace(first, comma, replacement);
  } else {
    editor.replace(first, comma - 1, replacement);
  }
}

/** The opener pass, on the sentence as the word edits left it (`kept`: its protected spans there). */
function rewriteOpener(sentence: string, kept: Span[], steps: OpenerSteps, context: OpenerContext): string {
  if (!/^\W*(?:moreover|furthermore|additionally|in addition|consequently|therefore|thus|nevertheless|nonetheless|ultimately|however|as a result)\s*,/iu.test(sentence)) {
    context.since = (context.since ?? 0) + 1;
    if (context.since > 2) context.previous = undefined;
    return sentence;
  }
  const tokens = tag(sentence);
  if (!tokens) return sentence;
  const editor = new SentenceEditor(sentence, tokens, kept);
  applyOpener(editor, steps, context);
  return editor.result();
}

const CONTINUES_CLAUSE = new Set(['VERB', 'ADJ', 'DET', 'NUM', 'AUX', 'PART', 'NOUN', 'PRON', 'PROPN']);

function applyContractions(editor: SentenceEditor, skip: ReadonlySet<string>): void {
  const { tokens } = editor;
  for (let i = 0; i + 1 < tokens.length; i++) {
    const a = tokens[i]!;
    const b = tokens[i + 1]!;
    // Only across one plain space: "has        not" keeps the writer's layout.
    const gap = editor.sentence.slice(a.end, b.start);
    if (gap !== '' && gap !== ' ') continue;
    const key = a.end === b.start ? `${a.lower}${b.lower}` : `${a.lower} ${b.lower}`;
    if (skip.has(key)) continue;
    const negative = NEGATIVE_CONTRACTIONS[key];
    if (negative) {
      if (editor.replace(i, i + 1, withCaseOf(a.text, negative))) i++;
      continue;
    }
    const subject = SUBJECT_CONTRACTIONS[key];
    const next = tokens[i + 2];
    // Only where the clause goes on: never "no matter where they're," or "what it's."; and
    // never onto a verb that carries its own clitic ("they aren't" is not "they'ren't").
    // "it is also important" goes on past its adverb; "no matter where they are now." does not.
    const goesOn = next !== undefined && (CONTINUES_CLAUSE.has(next.pos) || (next.pos === 'ADV' && CONTINUES_CLAUSE.has(tokens[i + 3]?.pos ?? '')));
    if (!subject || !next || !goesOn || next.start === b.end) continue;
    // "we will not" is "we won't" (contracted at the next step), not the stilted "we'll not".
    if (b.lower === 'will' && next.lower === 'not') continue;
    if (needsFullForm(tokens, i, i + 1)) continue;
    if (editor.replace(i, i + 1, subject === "I'm" ? subject : withCaseOf(a.text, subject))) i++;
  }
}

const SUBJECT_PRONOUNS = new Set(['i', 'you', 'he', 'she', 'it', 'we', 'they', 'this', 'that', 'these', 'those', 'there']);
const NOUN_PHRASE = new Set(['DET', 'ADJ', 'NOUN', 'PROPN', 'NUM']);
const MAX_SUBJECT_WORDS = 5;

/**
 * A verb that can head a clause: not "practicing", "to go", "he being the inventor", "Mr. Hussey
 * having left", nor a participle with its agent ("yesterday planted by the recentest race").
 */
function isFiniteVerb(tokens: Token[], at: number): boolean {
  const token = tokens[at];
  if (token === undefined || tokens[at - 1]?.lower === 'to') return false;
  if (token.pos === 'AUX') return !token.lower.endsWith('ing') && token.lower !== 'been' && token.lower !== 'be';
  if (token.pos === 'VERB' && token.lower.endsWith('ed') && tokens[at + 1]?.lower === 'by') return false;
  return token.pos === 'VERB' && !token.lower.endsWith('ing');
}

/**
 * The index of the verb after the subject `words` open with, or -1 when they do not open a
 * full clause (a list item, or a noun phrase: "the way the whole thing plays into the theme").
 */
function clauseVerb(words: Token[]): number {
  const first = words[0];
  if (!first || first.pos === 'VERB' || first.pos === 'AUX') return -1;
  if (first.pos === 'PRON' && SUBJECT_PRONOUNS.has(first.lower)) {
    const verb = words[1]?.pos === 'ADV' ? 2 : 1;
    return isFiniteVerb(words, verb) ? verb : -1;
  }
  let j = 0;
  let sawNoun = false;
  while (j < words.length && NOUN_PHRASE.has(words[j]!.pos)) {
    // A determiner after the noun starts a relative clause: "the way [that] the thing plays".
    if (j >= MAX_SUBJECT_WORDS || (sawNoun && words[j]!.pos === 'DET')) return -1;
    // "more unknown things humans do not know": a plural noun then another starts a relative clause.
    if (j > 0 && words[j - 1]!.pos === 'NOUN' && /[^s]s$/u.test(words[j - 1]!.lower) && (words[j]!.pos === 'NOUN' || words[j]!.pos === 'PRON')) return -1;
    sawNoun ||= words[j]!.pos === 'NOUN' || words[j]!.pos === 'PROPN';
    j++;
  }
  return sawNoun && isFiniteVerb(words, j) ? j : -1;
}

const JOINING = new Set(['and', 'but', 'so']);
/** Opening connectives that link the sentence to the one before, not phrases that scope over it. */
const DISCOURSE_CONNECTIVES = new Set(['however', 'moreover', 'furthermore', 'additionally', 'also', 'thus', 'therefore', 'still', 'but', 'so', 'in addition', 'consequently', 'as a result', 'nevertheless', 'nonetheless']);
/** "He said the company was growing, and it would hire": split, the second claim loses its source. */
const REPORTING = new Set(['say', 'tell', 'believe', 'think', 'argue', 'claim', 'report', 'state', 'suggest', 'note', 'explain', 'add', 'insist', 'warn', 'announce', 'write']);
const SUBORDINATORS = new Set(['if', 'although', 'though', 'because', 'when', 'whenever', 'while', 'since', 'unless', 'whereas', 'as', 'after', 'before', 'once', 'until', 'whether']);
/** Sentence openers whose hypothesis or instruction covers the whole sentence. */
const SCOPING_OPENERS = new Set(['maybe', 'perhaps', 'possibly', 'sometimes', 'suppose', 'supposing', 'assume', 'assuming', 'imagine', 'check', 'ensure', 'verify']);
const WH_WORDS = new Set(['what', 'whatever', 'who', 'whoever', 'whom', 'whose', 'which', 'whichever', 'where', 'wherever', 'when', 'how', 'why']);

/** Sentences no split can be right in. */
function mayBeSplit(sentence: string, tokens: Token[]): boolean {
  // A question or exclamation cut in two loses its mark on the first half.
  if (/[?!]["'”’)]*$/u.test(sentence.trimEnd())) return false;
  const first = tokens.find(isWord);
  if (!first) return false;
  // "If A, but B, C": the first half is a dependent clause and would stand alone; "How would
  // you feel if …, and he tells you" and "Is it …" are questions without their mark.
  if (first.pos === 'SCONJ' || first.pos === 'AUX' || SUBORDINATORS.has(first.lower) || WH_WORDS.has(first.lower)) return false;
  // "Maybe A, and B", "Suppose A, but B", "Check that A, and that B": the opener scopes over
  // both halves; split, B would be asserted ("Maybe the server has two names. The pages refer to both.").
  if (SCOPING_OPENERS.has(first.lower)) return false;
  // "Not only A, but B" is one statement.
  if (/(?:\bnot|n['’]t) (?:only|just)\b/iu.test(sentence)) return false;
  if (tokens.some((token) => (token.pos === 'VERB' && REPORTING.has(token.lemma)) || token.lower === 'according')) return false;
  // "in a number of ways; A; B; or C" is a list of clauses.
  const semicolons = tokens.filter((token) => token.text === ';').length;
  return semicolons < 2 || !tokens.some((token, i) => token.text === ';' && tokens[i + 1]?.pos === 'CCONJ');
}

/** Whether offset `at` is inside brackets, a $…$ formula or a pair of dashes ("—they live …, and they inhale …—"). */
function isEnclosed(sentence: string, at: number): boolean {
  const before = sentence.slice(0, at);
  const count = (pattern: RegExp) => (before.match(pattern) ?? []).length;
  const dashes = /—|--| – /gu;
  const insideDashes = count(dashes) % 2 === 1 && dashes.test(sentence.slice(at));
  return count(/\(/gu) > count(/\)/gu) || count(/\[/gu) > count(/\]/gu) || count(/\{/gu) > count(/\}/gu) || count(/\$/gu) % 2 === 1 || insideDashes;
}

/**
 * A left half that stops inside a phrase: "The film goes into several, and I have to say some
 * pretty wild, turns", or a garbled "has made more, and more students".
 */
function endsOpen(words: Token[]): boolean {
  const [before, last] = [words.at(-2), words.at(-1)!];
  return (last.pos === 'ADJ' || last.pos === 'DET') && (before?.pos === 'ADP' || before?.pos === 'DET' || before?.pos === 'VERB');
}

/**
 * "The students were tested in May, and the results published in June": the right half's
 * verb leans on the left half's auxiliary.
 */
function leansOnAuxiliary(left: Token[], right: Token[], verb: number): boolean {
  const word = right[verb]!;
  return word.pos === 'VERB' && word.lower.endsWith('ed') && left.some((token) => token.pos === 'AUX');
}

/** "A; b" and "A, and/but/so b" become two sentences when both sides are full clauses of 5+ words. */
function splitClauses(sentence: string, kept: Span[]): string {
  const tokens = tag(sentence);
  if (!tokens || !mayBeSplit(sentence, tokens)) return sentence;
  const frozen = mergeSpans([...findProtectedSpans(sentence), ...kept]);
  const isFrozen = (token: Token) => frozen.some((span) => span.start <= token.start && span.end > token.start);
  let out = '';
  let cursor = 0;
  let clauseStart = 0;
  for (let i = 0; i < tokens.length; i++) {
    const joint = tokens[i]!;
    if (joint.text !== ';' && joint.text !== ',') continue;
    const conjunction = joint.text === ',' ? tokens[i + 1] : undefined;
    if (joint.text === ',' && !(conjunction?.pos === 'CCONJ' && JOINING.has(conjunction.lower))) continue;
    if (isFrozen(joint) || isEnclosed(sentence, joint.start)) continue;
    const left = tokens.slice(clauseStart, i);
    const restFrom = conjunction ? i + 2 : i + 1;
    let restEnd = restFrom;
    while (restEnd < tokens.length && !(tokens[restEnd]!.text === ';' || (tokens[restEnd]!.text === ',' && tokens[restEnd + 1]?.pos === 'CCONJ'))) restEnd++;
    const leftWords = left.filter(isWord);
    const rightWords = tokens.slice(restFrom, restEnd).filter(isWord);
    if (leftWords.length < 5 || rightWords.length < 5) continue;
    // A comma before ", and" in the same clause suggests a list ("a, b, and c").
    // The comma after an opening connective ("However, …", "Thus, …") is not a list's. Other
    // opening phrases scope over both halves ("Notwithstanding the foregoing, A, and B", "In 2010,
    // A, and B", "For example, A, and B"): split, B would lose them.
    const opening = (k: number) => {
      const before = left.slice(0, k).filter(isWord).map((t) => t.lower).join(' ');
      return k === left.findIndex((t) => t.text === ',') && DISCOURSE_CONNECTIVES.has(before);
    };
    if (joint.text === ',' && left.some((t, k) => t.text === ',' && !opening(k))) continue;
    // "Only practicing up to college's core education; …" has no clause on the left.
    if (!leftWords.some((t) => t.pos === 'AUX' || (t.pos === 'VERB' && !t.lower.endsWith('ing')))) continue;
    // "Merely make a spread angle of two poles, and you cannot stand them up" is a condition, not
    // an order and a statement; "Steering now south-eastward …, and her progress determined …;"
    // is no clause ("Raising taxes won't balance the budget" is: its gerund is the subject). The
    // tagger may call a capitalised "Steering" a name.
    const leftOpener = leftWords.find((t) => t.pos !== 'ADV')!;
    const imperative = leftOpener.pos === 'VERB' && leftOpener.lower === leftOpener.lemma;
    if (imperative && conjunction?.lower === 'and' && rightWords[0]!.lower === 'you') continue;
    const participle = (leftOpener.pos === 'VERB' || leftOpener.pos === 'PROPN') && leftOpener.lower.endsWith('ing');
    if (participle && !leftWords.some((t) => t.pos === 'AUX')) continue;
    // "both new functions and types in libdbus, and new methods": the "and" may be the "both"'s.
    if (conjunction?.lower === 'and' && leftWords.some((t) => t.lower === 'both')) continue;
    const verb = clauseVerb(rightWords);
    if (verb < 0 || leansOnAuxiliary(leftWords, rightWords, verb)) continue;
    // "…their freedom, but insufficient means, should be continued": the subject runs on from the left.
    if (tokens.slice(restFrom, tokens.indexOf(rightWords[verb]!)).some((t) => t.text === ',')) continue;
    // "standards that respect …, but that also recognize …": a relative clause in parallel, not a new sentence.
    if (rightWords[0]!.lower === 'that' && leftWords.some((t, k) => t.lower === 'that' && ['NOUN', 'PROPN'].includes(leftWords[k - 1]?.pos ?? ''))) continue;
    // "…, and that regression tests run fine": "that" before a plural noun, a determiner or a
    // pronoun opens a clause that some verb on the left governs ("That regression tests run fine." is no sentence).
    if (rightWords[0]!.lower === 'that' && (isPluralNoun(rightWords[1]) || ['DET', 'PRON'].includes(rightWords[1]?.pos ?? ''))) continue;
    // "(i) analyze …, and (ii) evaluate …": an enumerated list, its items cut apart.
    if (/^\s*\(?(?:[ivx]{1,4}|[a-h]|\d{1,2})\)\s/iu.test(sentence.slice(tokens[restFrom]!.start))) continue;
    // "works fine if you forget the first seasons, and you keep …": the "and" may go on the dependent clause.
    if (leftWords.some((t) => t.pos === 'SCONJ' || SUBORDINATORS.has(t.lower))) continue;
    if (endsOpen(leftWords) || leftWords.at(-1)!.lower === rightWords[0]!.lower) continue;
    // "…, so many people came" is not "So many people came."
    if (conjunction?.lower === 'so' && (rightWords[0]!.pos === 'ADJ' || rightWords[0]!.pos === 'ADV')) continue;
    const next = tokens[restFrom]!;
    // The writer's spacing stays: what followed the joint ("first;  it treats" has two spaces) follows the full stop.
    const gap = (from: number, to: number) => sentence.slice(from, to) || ' ';
    const opener = conjunction && conjunction.lower !== 'and' ? `${withCaseOf('X', conjunction.lower)}${gap(conjunction.end, next.start)}` : '';
    if (isFrozen(next) && !/^\p{Lu}/u.test(next.text)) continue;
    // "in the U.S., and": a full stop after an abbreviation's would be doubled.
    if (sentence.slice(cursor, joint.start).trimEnd().endsWith('.')) continue;
    if (opener === '' && keepsOwnCase(next)) continue;
    const nextText = opener === '' ? next.text[0]!.toUpperCase() + next.text.slice(1) : next.text;
    out += `${sentence.slice(cursor, joint.start).trimEnd()}.${gap(joint.end, (conjunction ?? next).start)}${opener}${nextText}`;
    cursor = next.end;
    clauseStart = restFrom;
  }
  return out + sentence.slice(cursor);
}

/**
 * Participles that report a consequence of the whole clause: ", leading to X" is "This leads
 * to X". Some only with the word that shows the sense: "making it easier", not "making money".
 */
const CONSEQUENCE_PARTICIPLES: Record<string, (next: Token | undefined) => boolean> = {
  leading: (next) => next?.lower === 'to',
  contributing: (next) => next?.lower === 'to',
  resulting: (next) => next?.lower === 'in',
  allowing: () => true,
  enabling: () => true,
  causing: () => true,
  ensuring: () => true,
  reducing: () => true,
  increasing: () => true,
  improving: () => true,
  creating: () => true,
  fostering: () => true,
  promoting: () => true,
  highlighting: () => true,
  providing: (next) => next?.pos === 'NOUN' || next?.pos === 'PRON' || next?.pos === 'DET' || next?.pos === 'ADJ',
  making: (next) => next !== undefined && ['it', 'them', 'him', 'her', 'us', 'you', 'me', 'everyone', 'people'].includes(next.lower),
  giving: (next) => next !== undefined && ['them', 'him', 'her', 'us', 'you', 'me', 'everyone', 'people', 'students'].includes(next.lower),
  helping: (next) => next !== undefined && (next.lower === 'to' || ['them', 'him', 'her', 'us', 'you', 'me', 'everyone', 'people', 'students'].includes(next.lower)),
};
const IRREGULAR_PAST: Record<string, string> = { lead: 'led', make: 'made', give: 'gave' };

function consequenceVerb(lemma: string, tense: string): string {
  if (MODAL_WORDS.has(tense)) return `${tense} ${lemma}`;
  if (tense === 'perfect') return `has ${lemma === 'give' ? 'given' : consequenceVerb(lemma, 'past')}`;
  if (tense === 'past') return IRREGULAR_PAST[lemma] ?? (lemma.endsWith('e') ? `${lemma}d` : `${lemma}ed`);
  return /(?:s|sh|ch|x|z)$/u.test(lemma) ? `${lemma}es` : `${lemma}s`;
}

const PAST_AUXILIARIES = new Set(['was', 'were', 'had', 'did']);

/**
 * ", which" + a verb that agrees with "This" and comments on the clause ("which means", "which
 * can help", "which is essential"), after a word that is not itself what "which" describes.
 * A verb or adjective that describes a thing ("the slocate package, which provides a
 * replacement", "the command, which is rarely useful", "GNU make 4.4, which made some changes")
 * would make "This" name the whole clause instead (an outside probe: 13 of 53 such splits).
 */
function commentsOnClause(before: Token, rest: Token[]): boolean {
  const [verb, next, after] = rest;
  if (verb === undefined || next === undefined) return false;
  // A name, a number or a quoted or bracketed term just before the comma is what "which" describes.
  if (['PROPN', 'NUM'].includes(before.pos) || /["'”’)\]]$/u.test(before.text)) return false;
  if (verb.pos === 'AUX' && verb.lower === 'is') return COMMENT_ADJECTIVES.has((next.pos === 'ADV' ? after : next)?.lower ?? '');
  if (verb.pos === 'AUX' && MODAL_WORDS.has(verb.lower)) return next.pos === 'VERB' && CONSEQUENCE_VERBS.has(next.lemma);
  if (verb.pos !== 'VERB' || verb.lower === verb.lemma || verb.lower.endsWith('ing')) return false;
  // "which makes it harder", "which made them wait": a consequence; "which made some changes": a description.
  const consequence = CONSEQUENCE_VERBS.has(verb.lemma) || (verb.lemma === 'make' && ['PRON', 'ADJ'].includes(next.pos));
  return consequence && (/[^s]s$/u.test(verb.lower) || ['led', 'made', 'meant'].includes(verb.lower) || verb.lower.endsWith('ed'));
}

/** Verbs after ", which" that say what the clause brought about ("which means", "which leads to"), rather than what a thing does. */
const CONSEQUENCE_VERBS = new Set(['mean', 'lead', 'allow', 'help', 'result', 'cause', 'enable', 'ensure', 'reduce', 'increase', 'improve', 'contribute']);
/** Adjectives after ", which is" that judge the clause ("which is essential"), rather than describe a thing ("which is rarely useful", "more or less equivalent"). */
const COMMENT_ADJECTIVES = new Set([
  'essential', 'important', 'crucial', 'vital', 'critical', 'necessary', 'beneficial', 'problematic', 'concerning', 'worrying', 'alarming', 'unfortunate',
  'surprising', 'remarkable', 'significant', 'understandable', 'unusual', 'impressive', 'encouraging', 'promising', 'unacceptable', 'inevitable',
]);

const MODAL_WORDS = new Set(['can', 'could', 'will', 'would', 'may', 'might', 'should', 'must']);

/**
 * The tense of the clause's main verb (the first finite-looking verb outside a relative clause:
 * "By obtaining opinions from varied sources, I broaden my view" is in the present): 'past',
 * 'present', or the modal it uses ("The software could detect …, providing" → "This could
 * provide"); undefined when the finite-looking verbs disagree: the tagger may take a word in a
 * name or a reduced relative for the main verb ("git send-email lacked", "Users surprised by it
 * might file", "This positioned advice helps"), and a wrong tense makes the comment assert
 * something else ("…might file bugs. This increased the effort").
 */
function clauseTenseIfClear(words: Token[]): string | undefined {
  const verbs = clauseTenses(words);
  if (verbs[0] === undefined) return 'present';
  // An auxiliary first ("was", "might", "has") is the clause's own; a later word taken for a verb ("an in-core merge") is not.
  if (verbs[0].auxiliary) return verbs[0].tense;
  return new Set(verbs.map((verb) => verb.tense)).size === 1 ? verbs[0].tense : undefined;
}

/** The tense of each finite-looking verb of the clause outside a relative clause, in order, and whether it is an auxiliary. */
function clauseTenses(words: Token[]): Array<{ tense: string; auxiliary: boolean }> {
  const tenses: Array<{ tense: string; auxiliary: boolean }> = [];
  for (let k = 0; k < words.length; k++) {
    const t = words[k]!;
    let j = k - 1;
    while (j >= 0 && words[j]!.pos === 'ADV') j--;
    const before = words[j];
    // A relative clause's verb is not the main clause's: "Students who were tired use phones".
    if (before !== undefined && ['who', 'that', 'which', 'whom'].includes(before.lower)) continue;
    if (t.pos === 'AUX') {
      // "The emotions being read may …": "being" and "been" head no clause.
      if (before?.pos === 'AUX' || before?.lower === 'to' || /^(being|been|be|having)$/u.test(t.lower)) continue;
      // "have led to more events, causing damage" → "This has caused damage".
      if ((t.lower === 'have' || t.lower === 'has') && words[k + 1]?.pos === 'VERB' && words[k + 1]!.lower !== words[k + 1]!.lemma) tenses.push({ tense: 'perfect', auxiliary: true });
      else tenses.push({ tense: MODAL_WORDS.has(t.lower) ? t.lower : PAST_AUXILIARIES.has(t.lower) ? 'past' : 'present', auxiliary: true });
      continue;
    }
    if (t.pos !== 'VERB' || t.lower.endsWith('ing') || before?.lower === 'to' || before?.pos === 'AUX') continue;
    // "from varied sources", "the associated risks", "forcefully recruited members": not a clause's verb.
    if (before !== undefined && !['NOUN', 'PRON', 'PROPN', 'PUNCT'].includes(before.pos)) continue;
    // "the concerns linked to them is": a participle after its noun, not the clause's verb.
    if (t.lower.endsWith('ed') && before?.pos === 'NOUN' && (words[k + 1]?.pos === 'ADP' || words[k + 1] === undefined)) continue;
    tenses.push({ tense: t.lower !== t.lemma && !/[^s]s$/u.test(t.lower) ? 'past' : 'present', auxiliary: false });
  }
  return tenses;
}

/** Whether the words hold a clause's verb: an auxiliary, an inflected verb, or a bare one after its subject ("Students also utilize"). */
function hasFiniteVerb(words: Token[]): boolean {
  return words.some((t, k) => {
    if (t.pos === 'AUX') return true;
    if (t.pos !== 'VERB' || t.lower.endsWith('ing')) return false;
    if (t.lower !== t.lemma) return true;
    let j = k - 1;
    while (j >= 0 && words[j]!.pos === 'ADV') j--;
    return ['PRON', 'NOUN', 'PROPN'].includes(words[j]?.pos ?? '');
  });
}

/**
 * Restructuring: a comment on the whole clause becomes a sentence of its own. "X, which means
 * that Y" → "X. This means that Y"; "X, which is why Y" → "X. That is why Y"; "X, leading to
 * Y" → "X. This leads to Y" (in the clause's tense). Only after a full clause of 5+ words,
 * never where the main clause goes on after the comment ("The phone, which is old, works").
 */
function splitComment(sentence: string, kept: Span[]): string {
  const tokens = tag(sentence);
  if (!tokens || !mayBeSplit(sentence, tokens)) return sentence;
  const frozen = mergeSpans([...findProtectedSpans(sentence), ...kept]);
  const isFrozen = (token: Token) => frozen.some((span) => span.start < token.end && span.end > token.start);
  for (let i = 1; i + 1 < tokens.length; i++) {
    const comma = tokens[i]!;
    const word = tokens[i + 1]!;
    if (comma.text !== ',' || isFrozen(comma) || isFrozen(word) || isEnclosed(sentence, comma.start)) continue;
    const leftWords = tokens.slice(0, i).filter(isWord);
    const rest = tokens.slice(i + 2);
    const restWords = rest.filter(isWord);
    if (leftWords.length < 5 || restWords.length < 3) continue;
    if (!hasFiniteVerb(leftWords)) continue;
    // Not after a dependent or relative clause ("If X, which …"); "act as a demotivator" has a preposition, not a conjunction.
    if (leftWords.some((t) => t.pos === 'SCONJ' || (SUBORDINATORS.has(t.lower) && t.pos !== 'ADP') || t.lower === 'which' || t.lower === 'who' || t.lower === 'whom')) continue;
    // The main clause must not go on after the comment ("The phone I bought, which is old, works"):
    // no later comma before an auxiliary or a finite verb ("…, missed lectures, and …" is a list).
    const verbAfter = (k: number) => {
      let j = k + 1;
      while (rest[j]?.pos === 'ADV') j++;
      return rest[j]?.pos === 'AUX' || (rest[j]?.pos === 'VERB' && !/(?:ed|ing)$/u.test(rest[j]!.lower));
    };
    if (rest.some((t, k) => t.text === ',' && verbAfter(k))) continue;
    // "The phone that I bought, which …": a relative clause on the left may still want its verb.
    if (leftWords.some((t, k) => t.lower === 'that' && t.pos === 'PRON' && ['NOUN', 'PROPN'].includes(leftWords[k - 1]?.pos ?? ''))) continue;
    if (rest.some((t) => t.text === ';' || t.text === ':' || isFrozen(t))) continue;
    let replacement: string | undefined;
    let to = i + 1;
    if (word.lower === 'which') {
      const verb = rest[0];
      if (verb?.lower === 'is' && rest[1]?.lower === 'why') replacement = 'That';
      else if (commentsOnClause(tokens[i - 1]!, rest)) replacement = 'This';
    } else if (word.lower === 'because') {
      // "X, because Y" → "X. This is because Y", when Y is a full clause ("because of" is not).
      const reason = rest.filter(isWord);
      const tense = clauseTenseIfClear(leftWords);
      if (clauseVerb(reason) >= 0 && rest[0]?.lower !== 'of' && tense !== undefined) replacement = tense === 'past' ? 'This was because' : 'This is because';
    } else {
      // ", offering X, providing Y, avoiding Z": one of a list of participles.
      const listed = tokens.some((t, k) => k !== i && t.text === ',' && tokens[k + 1]?.pos === 'VERB' && tokens[k + 1]!.lower.endsWith('ing'));
      if (listed) continue;
      const fits = CONSEQUENCE_PARTICIPLES[word.lower];
      // ", reducing air quality and increasing …": both participles would have to change.
      const coordinated = rest.some((t, k) => {
        if (t.pos !== 'CCONJ') return false;
        let j = k + 1;
        while (rest[j] !== undefined && (rest[j]!.pos === 'ADV' || rest[j]!.pos === 'PART')) j++;
        return rest[j]?.pos === 'VERB' && rest[j]!.lower.endsWith('ing');
      });
      // "results in" reads as a noun to the tagger, so the guard could not check it: "leads to" says the same.
      const lemma = word.lemma === 'result' ? 'lead' : word.lemma;
      const tense = clauseTenseIfClear(leftWords);
      if (fits && word.pos === 'VERB' && fits(rest[0]) && !coordinated && tense !== undefined) {
        replacement = `This ${consequenceVerb(lemma, tense)}`;
        // ", resulting in X" → ". This leads to X".
        if (word.lemma === 'result') {
          replacement += ' to';
          to = i + 2;
        }
      }
    }
    if (replacement === undefined) continue;
    if (sentence.slice(0, comma.start).trimEnd().endsWith('.')) continue;
    return `${sentence.slice(0, comma.start)}. ${replacement}${sentence.slice(tokens[to]!.end)}`;
  }
  return sentence;
}

export interface SentenceOutcome {
  /** Sentences rewritten and emitted, with their originals. */
  rewritten: Array<{ original: string; rewrite: string }>;
  /** Sentences whose rewrite the grammar check refused, with what it found. */
  refused: Array<{ original: string; rewrite: string; problems: GrammarProblem[] }>;
}

function draft(sentence: string, tokens: Token[], frozen: Span[], steps: ModelSteps, context: OpenerContext): string {
  const editor = new SentenceEditor(sentence, tokens, frozen);
  applyPhrases(editor, steps.phrases);
  applyIntensifiers(editor);
  if (steps.contractions) applyContractions(editor, steps.skipContractions ?? new Set());
  if (steps.swaps) applySwaps(editor, steps.formal === true);
  let candidate = editor.result();
  // The text's protected spans, found in the edited sentence (a quotation may run on from an earlier sentence).
  let kept = locateSpans(sentence, frozen, candidate);
  if (kept) {
    const opened = rewriteOpener(candidate, kept, steps.openers, context);
    if (opened !== candidate) {
      candidate = opened;
      kept = locateSpans(sentence, frozen, candidate);
    }
  }
  if (steps.splits && kept) {
    const commented = splitComment(candidate, kept);
    const keptAfter = commented === candidate ? kept : locateSpans(sentence, frozen, commented);
    candidate = keptAfter ? splitClauses(commented, keptAfter) : commented;
  }
  return candidate;
}

/**
 * The sentence's rewrite: the model's full set of edits, or, when the grammar check refuses
 * that, the same without splits, then without plain-word swaps and phrases too (so that one bad split or swap does not
 * cost the sentence its contractions: a text would mix "don't" and "do not").
 */
function rewriteSentence(sentence: string, frozen: Span[], steps: ModelSteps, outcome: SentenceOutcome, context: OpenerContext): string {
  const tokens = tag(sentence);
  if (!tokens) return sentence;
  const attempts = [steps];
  if (steps.splits) attempts.push({ ...steps, splits: false });
  if (steps.swaps || steps.phrases !== CLARITY_PHRASES) attempts.push({ ...steps, splits: false, swaps: false, phrases: CLARITY_PHRASES });
  const saved = { ...context };
  let first = true;
  for (const attempt of attempts) {
    Object.assign(context, saved);
    const candidate = draft(sentence, tokens, frozen, attempt, context);
    if (candidate === sentence) return sentence;
    const problems = [...introducedProblems(sentence, candidate), ...protectedTextProblems(sentence, frozen, candidate)];
    if (problems.length === 0) {
      outcome.rewritten.push({ original: sentence, rewrite: candidate });
      return candidate;
    }
    if (first) outcome.refused.push({ original: sentence, rewrite: candidate, problems });
    first = false;
  }
  Object.assign(context, saved, { since: (saved.since ?? 0) + 1 });
  return sentence;
}

export interface HumanizeResult {
  humanized_text: string;
  words_processed: number;
  model_used: HumanizerModel;
}

/**
 * Legal and academic register: "shall", "hereby", "pursuant to", "the Licensee", "et al.",
 * "[12]", "(Smith, 2019)". Two such marks make a text formal: the strongest model then makes
 * no contractions and uses no conversational openers ("But", "So,") in it.
 */
const FORMAL_MARKS = [
  /\bshall\b/giu,
  /\b(?:hereby|herein|hereof|hereto|hereunder|thereof|thereto|therein|whereas|notwithstanding|pursuant to|indemnif\w*|licensee|licensor|the parties|this agreement|plaintiff|defendant|appellant|statute)\b/giu,
  /§|\b(?:section|article|clause) \d/giu,
  /\$[^$\n]{1,80}\$|\\cite\{|\bet al\.|\[\d+(?:[,–-]\s*\d+)*\]|\([A-Z][\p{L}-]+(?: et al\.| and [A-Z][\p{L}-]+)?,? \d{4}[a-z]?\)|\bp\s?[<=]\s?0?\.\d/gu,
  /\b(?:this paper|we propose|in this study|our results|(?:table|fig\.?|figure|eq\.?) \d)\b/giu,
];

const marksOf = (text: string, patterns: RegExp[]) => patterns.reduce((marks, pattern) => marks + (text.match(pattern) ?? []).length, 0);

export function isFormalRegister(text: string): boolean {
  return marksOf(text, FORMAL_MARKS) >= 2;
}

/** Legal register (the first three kinds of mark): a split would move a clause out of its conditions' scope, so no model splits. */
export function isLegalRegister(text: string): boolean {
  return marksOf(text, FORMAL_MARKS.slice(0, 3)) >= 2;
}

/** Occurrences of a word or pair of words, across any spacing ("do  not", "do\nnot"). */
const countOf = (text: string, words: string) => (text.replaceAll('’', "'").match(new RegExp(`(?<![\\p{L}'])${words.replaceAll(' ', '\\s+')}(?![\\p{L}'])`, 'gu')) ?? []).length;

/**
 * Negations left in full where the rewrite contracted the same pair elsewhere ("don't" here,
 * "do not" there): outside quotations and other protected text, and not written in capitals
 * for emphasis ("is NOT").
 */
function mixedContractions(original: string, rewrite: string): string[] {
  const spans = findProtectedSpans(rewrite);
  const unprotected = spans.reduceRight((text, span) => text.slice(0, span.start) + ' '.repeat(span.end - span.start) + text.slice(span.end), rewrite);
  const mixed: string[] = [];
  const both = (text: string, word: string) => countOf(text, word) + countOf(text, word[0]!.toUpperCase() + word.slice(1));
  for (const [full, short] of Object.entries(NEGATIVE_CONTRACTIONS)) {
    if (both(rewrite, short) > both(original, short) && both(unprotected, full) > 0) mixed.push(full);
  }
  return mixed;
}

function rewriteText(text: string, steps: ModelSteps, outcome: SentenceOutcome): string {
  const protectedSpans = findProtectedSpans(text);
  const context: OpenerContext = {};
  let out = '';
  let cursor = 0;
  for (const sentence of splitSentences(text)) {
    const frozen = protectedSpans
      .filter((span) => span.end > sentence.start && span.start < sentence.end)
      .map((span) => ({ start: Math.max(span.start, sentence.start) - sentence.start, end: Math.min(span.end, sentence.end) - sentence.start }));
    out += text.slice(cursor, sentence.start) + rewriteSentence(sentence.text, frozen, steps, outcome, context);
    cursor = sentence.end;
  }
  return out + text.slice(cursor);
}

/** The rewrite with what the grammar check refused (for evaluation and tests). */
export function humanizeWithOutcome(text: string, model: HumanizerModel): HumanizeResult & { outcome: SentenceOutcome } {
  let steps = MODELS[model];
  const formal = isFormalRegister(text);
  if (formal) steps = { ...steps, formal };
  if (steps.contractions && formal) steps = { ...steps, contractions: false, openers: { additive: 'move', table: PLAIN_CONNECTIVES } };
  if (steps.splits && isLegalRegister(text)) steps = { ...steps, splits: false };
  let outcome: SentenceOutcome = { rewritten: [], refused: [] };
  let out = rewriteText(text, steps, outcome);
  if (steps.contractions) {
    // One text, one choice: a negation the rewrite could not contract everywhere stays in full everywhere.
    const mixed = mixedContractions(text, out);
    if (mixed.length > 0) {
      steps = { ...steps, skipContractions: new Set(mixed) };
      outcome = { rewritten: [], refused: [] };
      out = rewriteText(text, steps, outcome);
    }
  }
  return { humanized_text: out, words_processed: countWords(text), model_used: model, outcome };
}

export function humanize(text: string, model: HumanizerModel): HumanizeResult {
  const { humanized_text, words_processed, model_used } = humanizeWithOutcome(text, model);
  return { humanized_text, words_processed, model_used };
}
