import type { Token } from './tagger.ts';

/** Where a clause's verb is: what restructuring and splits need to know before they move words. */

const SUBJECT_PRONOUNS = new Set(['i', 'you', 'he', 'she', 'it', 'we', 'they', 'this', 'that', 'these', 'those', 'there']);
export const NOUN_PHRASE = new Set(['DET', 'ADJ', 'NOUN', 'PROPN', 'NUM']);
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
export function clauseVerb(words: Token[]): number {
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

export const MODAL_WORDS = new Set(['can', 'could', 'will', 'would', 'may', 'might', 'should', 'must']);
