import { splitSentences } from '../../sentences.ts';
import { locateSpans, type Span } from '../protected-spans.ts';
import { headNounAfter, isPluralNoun } from './rules.ts';
import { tag, type Token } from './tagger.ts';

/**
 * A tagger-based check for the errors rule-based rewriting tends to make. A rewrite that has
 * a problem its original did not have is not emitted (the sentence stays as written).
 */

export type GrammarProblem =
  | 'clause-final-contraction' // "no matter where they're,"
  | 'modal-without-verb' // "can a lot improve"
  | 'adverbial-noun-phrase-before-verb' // "a lot improve", "a lot better" is fine
  | 'past-form-after-have' // "have showed"
  | 'make-sure-without-clause' // "makes sure smooth integration"
  | 'fragment' // "Has led to many deaths." cut from "X could lead to Y, and has led to Z."
  | 'contraction-needs-full-form' // "how hard it's to play", "Who you're matters", "than it's today"
  | 'most-before-determiner' // "most the funding", "most 270 votes"
  | 'quantifier-after-determiner' // "the more cost", "their enough time"
  | 'comparative-of-comparative' // "a more best setting"
  | 'modal-before-can' // "would can amend"
  | 'misused-lets' // "let's know", "won't let's do"
  | 'need-that-clause' // "needs that states submit"
  | 'many-with-singular-noun' // "many evidence"
  | 'possessive-without-s' // "people' lifestyles"
  | 'not-only-without-but' // "Not only does this place drivers at risk."
  | 'unbalanced-brackets' // "($228m." and "£179m) owed" split apart
  | 'doubled-word' // "exposed to to develop", "who can work can work"
  | 'protected-text-changed'; // a number, name, quotation or `code` not kept byte for byte

const SUBJECT_CONTRACTIONS = new Set(["'re", "'s", "'ve", "'ll", "'d", "'m"]);
const MODALS = new Set(['can', 'could', 'will', 'would', 'shall', 'should', 'may', 'might', 'must', 'ca', 'wo']);
/** Simple past forms whose past participle differs. */
const PAST_NOT_PARTICIPLE = new Set([
  'showed', 'went', 'wrote', 'took', 'gave', 'began', 'knew', 'saw', 'ate', 'drove', 'rode', 'rose', 'spoke', 'broke',
  'chose', 'froze', 'stole', 'sang', 'swam', 'drank', 'threw', 'grew', 'flew', 'drew', 'did', 'forgot', 'hid', 'fell',
  'shook', 'woke', 'wore', 'tore', 'hid', 'became', 'came', 'ran', 'rang', 'sank', 'shrank', 'sprang',
]);
const FINITE_STARTS = new Set(['has', 'have', 'had', 'is', 'are', 'was', 'were', 'will', 'would', 'can', 'could', 'should', 'may', 'might', 'must', 'does', 'did']);

const isWord = (token: Token | undefined) => token !== undefined && token.pos !== 'PUNCT' && token.pos !== 'SYM';

const WH_WORDS = new Set(['what', 'whatever', 'who', 'whoever', 'whom', 'which', 'whichever', 'where', 'wherever', 'when', 'whenever', 'how', 'however', 'why']);
/** Words before an adjective that leave "it is" elliptical: "how hard it is to", "the more likely you are to". */
const DEGREE_WORDS = new Set(['how', 'however', 'as', 'so', 'too', 'the', 'than']);
const TIME_OR_PLACE = new Set(['today', 'now', 'here', 'there', 'tonight', 'tomorrow', 'yesterday']);
const CLAUSE_OPENERS = new Set(['PUNCT', 'CCONJ', 'SCONJ']);
/** Conjunctions the tagger may call prepositions ("after it is written"). */
const ADP_SUBORDINATORS = new Set(['whether', 'after', 'before', 'until', 'till', 'since', 'once', 'because', 'if', 'while', 'whilst', 'though', 'although', 'unless', 'whereas', 'so']);

/**
 * Whether the subject at `subject` and its verb at `verb` ("it is", or "it" "'s") must stay in
 * full: English does not contract a verb whose complement has moved away ("how difficult it
 * is to play", "Who you are matters", "what it is that", "more prominent than it is today"),
 * nor, to be safe, before "to" or a time or place ("it is now"); and "that"/"there" contract
 * only as a clause's subject ("The way to avoid that is to …", "put up there is").
 */
export function needsFullForm(tokens: Token[], subject: number, verb: number): boolean {
  const before = tokens[subject - 1];
  if (before && (WH_WORDS.has(before.lower) || before.lower === 'than' || before.lower === 'as')) return true;
  // After a preposition the pronoun is its object, not the verb's subject: "The word TODO inside
  // it is matched", "Many of you are assembling", "all of it is possible". A clause-opening
  // "for" ("…; for it is a thing most sorrowful") and subordinators the tagger calls prepositions stay.
  if (before?.pos === 'ADP' && !ADP_SUBORDINATORS.has(before.lower)) {
    const opensClause = before.lower === 'for' && (subject < 2 || tokens[subject - 2]!.pos === 'PUNCT');
    if (!opensClause) return true;
  }
  let k = subject - 1;
  // Over the adjective phrase: "how difficult", "the more likely", "the better off".
  while (k >= 0 && ['ADJ', 'ADV', 'ADP'].includes(tokens[k]!.pos) && !DEGREE_WORDS.has(tokens[k]!.lower)) k--;
  if (k < subject - 1 && k >= 0 && DEGREE_WORDS.has(tokens[k]!.lower)) return true;
  // The tagger calls "fun" in "how fun it is to" a noun.
  if (before?.pos === 'NOUN' && DEGREE_WORDS.has(tokens[subject - 2]?.lower ?? '')) return true;
  // "that is to seek counsel", "it is to play": the contracted "be to" reads as a slip.
  const after = tokens[verb + 1]?.lower ?? '';
  if (after === 'to' || TIME_OR_PLACE.has(after)) return true;
  const pronoun = tokens[subject]!.lower;
  return (pronoun === 'that' || pronoun === 'there') && before !== undefined && !CLAUSE_OPENERS.has(before.pos);
}

const POSSESSIVE_OR_DETERMINER = new Set(['the', 'this', 'that', 'these', 'those', 'each', 'every', 'any', 'my', 'your', 'his', 'her', 'its', 'our', 'their']);

/** "the more cost", but not the correlative "the more time you spend, the better". */
function quantifierAfterDeterminer(tokens: Token[], i: number): boolean {
  const [det, word, noun] = [tokens[i]!, tokens[i + 1], tokens[i + 2]];
  if (!POSSESSIVE_OR_DETERMINER.has(det.lower) || !(word?.lower === 'more' || word?.lower === 'enough') || noun?.pos !== 'NOUN') return false;
  if (det.lower !== 'the') return true;
  const correlatives = tokens.filter((t, k) => t.lower === 'the' && /^(more|less|fewer|\p{L}+er)$/u.test(tokens[k + 1]?.lower ?? '')).length;
  return correlatives < 2;
}

function modalBeforeCan(tokens: Token[], i: number): boolean {
  if (tokens[i]!.lower !== 'can' || tokens[i]!.pos !== 'AUX') return false;
  let k = i - 1;
  while (k >= 0 && (tokens[k]!.pos === 'ADV' || tokens[k]!.lower === 'not' || tokens[k]!.lower === "n't")) k--;
  const before = tokens[k];
  return before !== undefined && (MODALS.has(before.lower) || before.lower === 'to' || before.lemma === 'do');
}

function misusedLets(tokens: Token[], i: number): boolean {
  if (tokens[i]!.lower !== 'let' || tokens[i + 1]?.lower !== "'s") return false;
  let k = i - 1;
  while (k >= 0 && (tokens[k]!.pos === 'ADV' || tokens[k]!.lower === 'not' || tokens[k]!.lower === "n't")) k--;
  const before = tokens[k];
  const permitted = before !== undefined && (before.pos === 'AUX' || before.lower === 'to' || before.lower === 'please');
  return permitted || tokens[i + 2]?.lower === 'know';
}

function manyWithSingularNoun(tokens: Token[], i: number): boolean {
  if (tokens[i]!.lower !== 'many') return false;
  const noun = headNounAfter(tokens, i);
  return noun?.pos === 'NOUN' && !isPluralNoun(noun);
}

function problemsOfSentence(tokens: Token[], sentence: string): GrammarProblem[] {
  const problems: GrammarProblem[] = [];
  const question = sentence.trimEnd().endsWith('?');
  const words = tokens.filter(isWord);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const next = tokens[i + 1];
    const after = tokens[i + 2];
    if (SUBJECT_CONTRACTIONS.has(token.lower) && token.pos === 'AUX') {
      const stranded = !isWord(next) || (next!.pos === 'ADV' && !isWord(after));
      if (stranded) problems.push('clause-final-contraction');
    }
    if (MODALS.has(token.lower) && token.pos === 'AUX' && !question) {
      let j = i + 1;
      while (tokens[j] && (tokens[j]!.pos === 'PART' || tokens[j]!.pos === 'ADV')) j++;
      const following = tokens[j];
      if (following && (following.pos === 'DET' || following.pos === 'NOUN' || following.pos === 'ADJ')) problems.push('modal-without-verb');
    }
    if (token.lower === 'a' && next?.lower === 'lot' && after && (after.pos === 'VERB' || (after.pos === 'ADJ' && !/(er|more|less)$/u.test(after.lower)))) {
      problems.push('adverbial-noun-phrase-before-verb');
    }
    if (token.lemma === 'have' && token.pos === 'AUX') {
      let j = i + 1;
      while (tokens[j] && (tokens[j]!.pos === 'ADV' || tokens[j]!.pos === 'PART')) j++;
      if (tokens[j] && PAST_NOT_PARTICIPLE.has(tokens[j]!.lower)) problems.push('past-form-after-have');
    }
    if (token.pos === 'AUX' && /^'(s|re|m)$/u.test(token.lower) && i > 0 && needsFullForm(tokens, i - 1, i)) problems.push('contraction-needs-full-form');
    if (token.lower === 'most' && next && (next.pos === 'NUM' || POSSESSIVE_OR_DETERMINER.has(next.lower) || next.lower === 'them')) problems.push('most-before-determiner');
    if (quantifierAfterDeterminer(tokens, i)) problems.push('quantifier-after-determiner');
    if (/^(more|most|less|least)$/u.test(token.lower) && /^(best|worst|many|much|enough|more|most)$/u.test(next?.lower ?? '')) problems.push('comparative-of-comparative');
    if (modalBeforeCan(tokens, i)) problems.push('modal-before-can');
    if (misusedLets(tokens, i)) problems.push('misused-lets');
    if (token.lemma === 'need' && token.pos === 'VERB' && next?.lower === 'that' && next.pos === 'SCONJ') problems.push('need-that-clause');
    if (manyWithSingularNoun(tokens, i)) problems.push('many-with-singular-noun');
    if (isWord(token) && next && token.lower === next.lower && next.start > token.end) problems.push('doubled-word');
    // "those on welfare who can work can work": a doubled pair of words.
    if (isWord(token) && isWord(next) && after && token.lower === after.lower && next!.lower === tokens[i + 3]?.lower && after.start > next!.end) problems.push('doubled-word');
    if (token.lemma === 'make' && next?.lower === 'sure') {
      const rest: Token[] = [];
      for (let j = i + 2; j < tokens.length && tokens[j]!.pos !== 'PUNCT' && tokens[j]!.pos !== 'CCONJ'; j++) rest.push(tokens[j]!);
      const opensClause = rest[0] !== undefined && ['that', 'of', 'to', 'about', 'if', 'whether'].includes(rest[0].lower);
      if (rest.length > 0 && !opensClause && !rest.some((t) => t.pos === 'VERB' || t.pos === 'AUX')) problems.push('make-sure-without-clause');
    }
  }
  for (const _ of sentence.matchAll(/\p{L}(?<![sSzZ])['’] +\p{Ll}/gu)) problems.push('possessive-without-s');
  if (/(?:\bnot|n['’]t) (?:only|just)\b/iu.test(sentence) && !/(?:\bnot|n['’]t) (?:only|just)\b.*\b(?:but|also|as well)\b/isu.test(sentence)) problems.push('not-only-without-but');
  // Piece by piece: the sentence splitter does not break inside "($228m. £179m)", a reader does.
  for (const piece of sentence.split(/(?<=[.!?])\s+/u)) {
    const count = (pattern: RegExp) => (piece.match(pattern) ?? []).length;
    if (count(/\(/gu) !== count(/\)/gu) || count(/\[/gu) !== count(/\]/gu)) problems.push('unbalanced-brackets');
  }
  const first = words[0];
  if (first && !question) {
    const finiteStart = (first.pos === 'AUX' && FINITE_STARTS.has(first.lower)) || (first.pos === 'VERB' && /(?:s|ed)$/u.test(first.lower) && first.lower !== first.lemma);
    // The tagger keeps some contractions whole ("I'm" as one token): they carry a verb.
    const noVerb = words.length >= 4 && !words.some((t) => t.pos === 'VERB' || t.pos === 'AUX' || /\p{L}'(?:m|re|s|ve|ll|d)$/u.test(t.lower));
    if (finiteStart || noVerb) problems.push('fragment');
  }
  return problems;
}

/** Problems found in a text, one entry per occurrence, sentence by sentence. */
export function grammarProblems(text: string): GrammarProblem[] {
  const problems: GrammarProblem[] = [];
  for (const sentence of splitSentences(text)) {
    const tokens = tag(sentence.text);
    if (tokens) problems.push(...problemsOfSentence(tokens, sentence.text));
  }
  return problems;
}

/** Problems the rewrite has more of than the original: what the rewrite introduced. */
export function introducedProblems(original: string, rewrite: string): GrammarProblem[] {
  const before = new Map<GrammarProblem, number>();
  for (const problem of grammarProblems(original)) before.set(problem, (before.get(problem) ?? 0) + 1);
  const introduced: GrammarProblem[] = [];
  for (const problem of grammarProblems(rewrite)) {
    const left = before.get(problem) ?? 0;
    if (left > 0) before.set(problem, left - 1);
    else introduced.push(problem);
  }
  return introduced;
}

/** Protected text (numbers, names, links, quotations, `code`) the rewrite did not keep byte for byte. */
export function protectedTextProblems(original: string, spans: Span[], rewrite: string): GrammarProblem[] {
  return locateSpans(original, spans, rewrite) ? [] : ['protected-text-changed'];
}
