import { splitSentences } from '../../sentences.ts';
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
  | 'fragment'; // "Has led to many deaths." cut from "X could lead to Y, and has led to Z."

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
    if (token.lemma === 'make' && next?.lower === 'sure') {
      const rest: Token[] = [];
      for (let j = i + 2; j < tokens.length && tokens[j]!.pos !== 'PUNCT' && tokens[j]!.pos !== 'CCONJ'; j++) rest.push(tokens[j]!);
      const opensClause = rest[0] !== undefined && ['that', 'of', 'to', 'about', 'if', 'whether'].includes(rest[0].lower);
      if (rest.length > 0 && !opensClause && !rest.some((t) => t.pos === 'VERB' || t.pos === 'AUX')) problems.push('make-sure-without-clause');
    }
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
