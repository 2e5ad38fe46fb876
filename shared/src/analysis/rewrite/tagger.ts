import winkNLP from 'wink-nlp';
import model from 'wink-eng-lite-web-model';
import { isWhiteSpaceCode } from '../../text.ts';

/** Part-of-speech tagging (wink-nlp's English lite model: universal POS tags and lemmas). */

export interface Token {
  /** As written. */
  text: string;
  lower: string;
  /** Universal POS tag: NOUN, VERB, AUX, ADJ, ADV, PRON, DET, ADP, CCONJ, SCONJ, PART, PUNCT, NUM, PROPN, SYM, … */
  pos: string;
  lemma: string;
  /** UTF-16 offsets into the tagged text. */
  start: number;
  end: number;
}

let nlp: ReturnType<typeof winkNLP> | undefined;

/**
 * wink-nlp's tokenizer takes time quadratic in the length of a run without whitespace (3 s for
 * the 15,000 characters of a base64 image, minutes for longer ones). No word is this long, so a
 * sentence holding such a run (inline data, a hash, a sequence) is not tagged, and stays as written.
 */
const LONGEST_TAGGED_RUN = 1_000;

function longestRun(text: string): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    run = isWhiteSpaceCode(text.charCodeAt(i)) ? 0 : run + 1;
    if (run > longest) longest = run;
  }
  return longest;
}

/** Tokens of one sentence with offsets; undefined when the tokens cannot be located in the text, or it holds a run no word is as long as. */
export function tag(text: string): Token[] | undefined {
  if (longestRun(text) > LONGEST_TAGGED_RUN) return undefined;
  nlp ??= winkNLP(model);
  const its = nlp.its;
  const tokens = nlp.readDoc(text).tokens();
  const values = tokens.out(its.value) as string[];
  const tags = tokens.out(its.pos) as string[];
  // The lemma accessor's declared type does not fit `out`'s signature; it returns strings.
  const lemmas = tokens.out(its.lemma as unknown as typeof its.value) as string[];
  const result: Token[] = [];
  let cursor = 0;
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    const start = text.indexOf(value, cursor);
    if (start < 0) return undefined;
    cursor = start + value.length;
    result.push({ text: value, lower: value.toLowerCase().replaceAll('’', "'"), pos: tags[i]!, lemma: (lemmas[i] ?? value).toLowerCase(), start, end: cursor });
  }
  result.forEach((token, i) => {
    if (isPluralNounTaggedVerb(token, result[i - 1])) token.pos = 'NOUN';
  });
  return result;
}

const NOUN_OPENERS = new Set(['a', 'an', 'the', 'my', 'your', 'his', 'its', 'our', 'their', "'s"]);

/** The model tags "assists" in "He averages 2 assists" as a verb; after a number, article or possessive it is a noun. */
function isPluralNounTaggedVerb(token: Token, before: Token | undefined): boolean {
  if (token.pos !== 'VERB' || !/[^s']s$/u.test(token.lower) || before === undefined) return false;
  return before.pos === 'NUM' || NOUN_OPENERS.has(before.lower);
}
