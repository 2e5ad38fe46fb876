import { CASUAL_SWAPS, headNounAfter, isPluralNoun, NO_PASSIVE, ONLY_BEFORE_INFINITIVE, SWAPS, type PhraseRule, type Swap, type VerbForms } from './rules.ts';
import { isWord, touchesHyphen, withCaseOf, type SentenceEditor } from './sentence-editor.ts';
import type { Token } from './tagger.ts';

/** Edits of single words and set phrases: wordy phrases shortened, "very" dropped, formal words swapped for plain ones in the same form. */

export function applyPhrases(editor: SentenceEditor, rules: PhraseRule[]): void {
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
export function applyIntensifiers(editor: SentenceEditor): void {
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

export function applySwaps(editor: SentenceEditor, formal: boolean): void {
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
