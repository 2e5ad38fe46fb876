import type { HumanizerModel } from '../upstream/requests.ts';
import { countWords } from '../text.ts';
import { splitSentences } from '../sentences.ts';
import { findProtectedSpans, locateSpans, mergeSpans, type Span } from './protected-spans.ts';
import { introducedProblems, needsFullForm, protectedTextProblems, type GrammarProblem } from './rewrite/grammar-guard.ts';
import {
  CLARITY_PHRASES,
  CONNECTIVES,
  headNounAfter,
  isPluralNoun,
  NEGATIVE_CONTRACTIONS,
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
 * - cognia: light clarity edits: wordy phrases shortened ("in order to" → "to"), empty
 *   openers dropped ("It is important to note that …"); the writer's words otherwise stay.
 * - lexi: plainer vocabulary: cognia's edits plus formal words swapped for plain ones
 *   ("utilize" → "use"), checked against the part of speech and keeping the verb form; never
 *   inside a hyphenated compound, before a possessive apostrophe or after a determiner that
 *   the plain word cannot follow ("the additional cost" stays).
 * - cognia_v2: sentence restructuring: cognia's edits plus long sentences split where two
 *   full clauses meet ("; ", ", and", ", but", ", so"), never inside a list, brackets or a
 *   formula, nor in a question, a "not only … but" sentence or one opening with a subordinate
 *   clause.
 * - huma_v2: strongest voice change: all of the above plus contractions (only where English
 *   allows them: not in "how hard it is to", "who you are", "than it is today"),
 *   conversational connectives ("Moreover," → "Also,", "Thus," → "So,"); hedges stay (dropping
 *   "it could be argued that" would make the writer assert what they may go on to rebut).
 * Every model keeps numbers, dates, links, e-mail addresses, quotations, `code` and
 * capitalised names exactly as written, and only the words it rewrites change (the writer's
 * spacing stays). Every rewritten sentence passes a tagger-based grammar check: a sentence
 * whose rewrite has a problem its original did not have stays as written.
 */

interface ModelSteps {
  phrases: PhraseRule[];
  swaps: boolean;
  connectives: boolean;
  contractions: boolean;
  splits: boolean;
}

const MODELS: Record<HumanizerModel, ModelSteps> = {
  cognia: { phrases: CLARITY_PHRASES, swaps: false, connectives: false, contractions: false, splits: false },
  lexi: { phrases: [...CLARITY_PHRASES, ...PLAIN_PHRASES], swaps: true, connectives: false, contractions: false, splits: false },
  cognia_v2: { phrases: CLARITY_PHRASES, swaps: false, connectives: false, contractions: false, splits: true },
  huma_v2: { phrases: [...CLARITY_PHRASES, ...PLAIN_PHRASES], swaps: true, connectives: true, contractions: true, splits: true },
};

interface Edit {
  start: number;
  end: number;
  text: string;
}

const isWord = (token: Token | undefined) => token !== undefined && token.pos !== 'PUNCT' && token.pos !== 'SYM';

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

function verbFormFor(tokens: Token[], at: number, from: VerbForms, to: VerbForms): string | undefined {
  const word = tokens[at]!.lower;
  if (word === from.base) return to.base;
  if (word === from.third) return to.third;
  if (word === from.gerund) return to.gerund;
  if (word !== from.past && word !== from.participle) return undefined;
  if (to.past === to.participle) return to.past;
  let j = at - 1;
  while (j >= 0 && (tokens[j]!.pos === 'ADV' || tokens[j]!.pos === 'PART')) j--;
  const auxiliary = j >= 0 ? tokens[j]!.lemma : '';
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
      // "purchasing power", "maintaining employment and purchasing power": a gerund right before
      // a bare noun may be part of a set compound.
      if (token.lower === swap.from.gerund && tokens[at + 1]?.pos === 'NOUN') return undefined;
      if (repeatsNearby(tokens, at, swap.to.base)) return undefined;
      return verbFormFor(tokens, at, swap.from, swap.to);
    case 'NOUN':
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

function applySwaps(editor: SentenceEditor): void {
  editor.tokens.forEach((token, at) => {
    for (const swap of SWAPS) {
      const replacement = swapFor(editor.tokens, at, swap);
      if (replacement !== undefined) {
        editor.replace(at, at, withCaseOf(token.text, replacement));
        return;
      }
    }
  });
}

function applyConnectives(editor: SentenceEditor): void {
  const first = editor.tokens.findIndex(isWord);
  if (first < 0) return;
  for (const length of [2, 1]) {
    const words = editor.tokens.slice(first, first + length);
    const comma = editor.tokens[first + length];
    const replacement = CONNECTIVES[words.map((token) => token.lower).join(' ')];
    if (words.length !== length || comma?.text !== ',' || !replacement) continue;
    if (replacement === 'But') {
      // "However, for those …, but also …" has its own "but".
      if (editor.tokens.slice(first + length).some((token) => token.lower === 'but')) return;
      // "However, he said, the plan …": the comma pairs with a parenthetical's.
      if (editor.tokens.slice(first + length + 1, first + length + 5).some((token) => token.text === ',')) return;
      // "But" reads best without the comma; "So, many companies" needs it ("so many"), and "Still, …" too.
      editor.replace(first, first + length, replacement);
    } else {
      editor.replace(first, first + length - 1, replacement);
    }
    return;
  }
}

const CONTINUES_CLAUSE = new Set(['VERB', 'ADJ', 'DET', 'NUM', 'AUX', 'PART', 'NOUN', 'PRON', 'PROPN']);

function applyContractions(editor: SentenceEditor): void {
  const { tokens } = editor;
  for (let i = 0; i + 1 < tokens.length; i++) {
    const a = tokens[i]!;
    const b = tokens[i + 1]!;
    // Only across one plain space: "has        not" keeps the writer's layout.
    const gap = editor.sentence.slice(a.end, b.start);
    if (gap !== '' && gap !== ' ') continue;
    const key = a.end === b.start ? `${a.lower}${b.lower}` : `${a.lower} ${b.lower}`;
    const negative = NEGATIVE_CONTRACTIONS[key];
    if (negative) {
      if (editor.replace(i, i + 1, withCaseOf(a.text, negative))) i++;
      continue;
    }
    const subject = SUBJECT_CONTRACTIONS[key];
    const next = tokens[i + 2];
    // Only where the clause goes on: never "no matter where they're," or "what it's."; and
    // never onto a verb that carries its own clitic ("they aren't" is not "they'ren't").
    if (!subject || !next || !CONTINUES_CLAUSE.has(next.pos) || next.start === b.end) continue;
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
/** "He said the company was growing, and it would hire": split, the second claim loses its source. */
const REPORTING = new Set(['say', 'tell', 'believe', 'think', 'argue', 'claim', 'report', 'state', 'suggest', 'note', 'explain', 'add', 'insist', 'warn', 'announce', 'write']);
const SUBORDINATORS = new Set(['if', 'although', 'though', 'because', 'when', 'whenever', 'while', 'since', 'unless', 'whereas', 'as', 'after', 'before', 'once', 'until', 'whether']);
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
    if (joint.text === ',' && left.some((t) => t.text === ',')) continue;
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
    // "works fine if you forget the first seasons, and you keep …": the "and" may go on the dependent clause.
    if (leftWords.some((t) => t.pos === 'SCONJ' || SUBORDINATORS.has(t.lower))) continue;
    if (endsOpen(leftWords) || leftWords.at(-1)!.lower === rightWords[0]!.lower) continue;
    // "…, so many people came" is not "So many people came."
    if (conjunction?.lower === 'so' && (rightWords[0]!.pos === 'ADJ' || rightWords[0]!.pos === 'ADV')) continue;
    const next = tokens[restFrom]!;
    const opener = conjunction && conjunction.lower !== 'and' ? `${withCaseOf('X', conjunction.lower)} ` : '';
    if (isFrozen(next) && !/^\p{Lu}/u.test(next.text)) continue;
    // "in the U.S., and": a full stop after an abbreviation's would be doubled.
    if (sentence.slice(cursor, joint.start).trimEnd().endsWith('.')) continue;
    if (opener === '' && keepsOwnCase(next)) continue;
    const nextText = opener === '' ? next.text[0]!.toUpperCase() + next.text.slice(1) : next.text;
    out += `${sentence.slice(cursor, joint.start).trimEnd()}. ${opener}${nextText}`;
    cursor = next.end;
    clauseStart = restFrom;
  }
  return out + sentence.slice(cursor);
}

export interface SentenceOutcome {
  /** Sentences rewritten and emitted, with their originals. */
  rewritten: Array<{ original: string; rewrite: string }>;
  /** Sentences whose rewrite the grammar check refused, with what it found. */
  refused: Array<{ original: string; rewrite: string; problems: GrammarProblem[] }>;
}

function rewriteSentence(sentence: string, frozen: Span[], steps: ModelSteps, outcome: SentenceOutcome): string {
  const tokens = tag(sentence);
  if (!tokens) return sentence;
  const editor = new SentenceEditor(sentence, tokens, frozen);
  applyPhrases(editor, steps.phrases);
  if (steps.connectives) applyConnectives(editor);
  if (steps.contractions) applyContractions(editor);
  if (steps.swaps) applySwaps(editor);
  let candidate = editor.result();
  // The text's protected spans, found in the edited sentence (a quotation may run on from an earlier sentence).
  const kept = locateSpans(sentence, frozen, candidate);
  if (steps.splits && kept) candidate = splitClauses(candidate, kept);
  if (candidate === sentence) return sentence;
  const problems = [...introducedProblems(sentence, candidate), ...protectedTextProblems(sentence, frozen, candidate)];
  if (problems.length > 0) {
    outcome.refused.push({ original: sentence, rewrite: candidate, problems });
    return sentence;
  }
  outcome.rewritten.push({ original: sentence, rewrite: candidate });
  return candidate;
}

export interface HumanizeResult {
  humanized_text: string;
  words_processed: number;
  model_used: HumanizerModel;
}

/** The rewrite with what the grammar check refused (for evaluation and tests). */
export function humanizeWithOutcome(text: string, model: HumanizerModel): HumanizeResult & { outcome: SentenceOutcome } {
  const steps = MODELS[model];
  const protectedSpans = findProtectedSpans(text);
  const outcome: SentenceOutcome = { rewritten: [], refused: [] };
  let out = '';
  let cursor = 0;
  for (const sentence of splitSentences(text)) {
    const frozen = protectedSpans
      .filter((span) => span.end > sentence.start && span.start < sentence.end)
      .map((span) => ({ start: Math.max(span.start, sentence.start) - sentence.start, end: Math.min(span.end, sentence.end) - sentence.start }));
    out += text.slice(cursor, sentence.start) + rewriteSentence(sentence.text, frozen, steps, outcome);
    cursor = sentence.end;
  }
  out += text.slice(cursor);
  return { humanized_text: out, words_processed: countWords(text), model_used: model, outcome };
}

export function humanize(text: string, model: HumanizerModel): HumanizeResult {
  const { humanized_text, words_processed, model_used } = humanizeWithOutcome(text, model);
  return { humanized_text, words_processed, model_used };
}
