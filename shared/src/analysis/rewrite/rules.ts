import type { Token } from './tagger.ts';

/**
 * The rewrite rules. Word swaps name the part of speech they apply to (checked with the
 * tagger before swapping) and give every inflected form, so a swap keeps the verb form:
 * "have demonstrated" becomes "have shown", never "have showed".
 */

/**
 * A wordy phrase and its shorter equivalent ('' deletes it). Matched on lowercase tokens;
 * `fits`, when given, must accept the tokens around the match (`from`..`to`, inclusive).
 */
export interface PhraseRule {
  phrase: string[];
  replacement: string;
  fits?: (tokens: Token[], from: number, to: number) => boolean;
}

const phrase = (from: string, replacement: string, fits?: PhraseRule['fits']): PhraseRule => ({ phrase: tokensOf(from), replacement, fits });

const IRREGULAR_PLURALS = new Set(['people', 'children', 'men', 'women', 'feet', 'teeth', 'mice', 'geese']);

/** A plural count noun: "tools", "people"; not "evidence", "merchandise" or "data". */
export function isPluralNoun(token: Token | undefined): boolean {
  if (token === undefined || token.pos !== 'NOUN') return false;
  return IRREGULAR_PLURALS.has(token.lower) || (/[^s']s$/u.test(token.lower) && token.lemma !== token.lower);
}

const MODIFIER_JOINS = new Set(['-', ',', 'and', 'or']);

/**
 * The head noun of the noun phrase after `at`, over modifiers ("untapped potential",
 * "high-resolution images", "environmental, economic, and social problems", "art collections").
 */
export function headNounAfter(tokens: Token[], at: number): Token | undefined {
  let k = at + 1;
  const isModifier = (token: Token) =>
    token.pos === 'ADJ' || token.pos === 'ADV' || MODIFIER_JOINS.has(token.lower) || (token.pos === 'NOUN' && !isPluralNoun(token) && tokens[k + 1]?.pos === 'NOUN');
  while (tokens[k] && isModifier(tokens[k]!)) k++;
  return tokens[k];
}

/** A verb agreeing with a singular subject: "A wide range of tools is used" keeps its "range". */
function singularVerbAfter(tokens: Token[], at: number): boolean {
  for (let k = at + 1; k < tokens.length && tokens[k]!.pos !== 'PUNCT'; k++) {
    const token = tokens[k]!;
    if (token.pos === 'AUX' || token.pos === 'VERB') return /^(is|was|has|does)$/u.test(token.lower) || (token.pos === 'VERB' && /[^s]s$/u.test(token.lower) && token.lemma !== token.lower);
  }
  return false;
}

/** Words that modify the article of "a large number of": "such a large number of" is not "such many". */
const BEFORE_ARTICLE = new Set(['such', 'quite', 'rather', 'what', 'half']);

/** "many" takes a plural count noun: "a wide range of evidence" is not "many evidence". */
const beforePluralNoun = (tokens: Token[], from: number, to: number) => {
  if (BEFORE_ARTICLE.has(tokens[from - 1]?.lower ?? '')) return false;
  const noun = headNounAfter(tokens, to);
  return isPluralNoun(noun) && !singularVerbAfter(tokens, tokens.indexOf(noun!));
};

/**
 * "can" takes no "to": "are able to resist them swiftly, to resist them sternly" is not "can
 * resist them swiftly, to resist them sternly". Kept when a coordinated "to" infinitive follows.
 */
const noCoordinatedInfinitive = (tokens: Token[], _from: number, to: number) =>
  !tokens.some((token, k) => k > to + 1 && token.lower === 'to' && (tokens[k - 1]!.text === ',' || tokens[k - 1]!.pos === 'CCONJ') && tokens[k + 1]?.pos === 'VERB');

/** "elected for the purpose of doing a job" is not "elected for doing a job" (for a reason, not a purpose). */
const notBeforeGerund = (tokens: Token[], _from: number, to: number) => {
  const next = tokens[to + 1];
  return !(next !== undefined && next.pos === 'VERB' && next.lower.endsWith('ing'));
};

/** "can" has no infinitive: "would have the ability to" is not "would can". */
const finiteHave = (tokens: Token[], from: number, to: number) => {
  let k = from - 1;
  while (k >= 0 && tokens[k]!.pos === 'ADV') k--;
  const before = tokens[k];
  return (before === undefined || !(before.pos === 'AUX' || before.pos === 'PART' || before.lower === 'to')) && noCoordinatedInfinitive(tokens, from, to);
};

/** "exposed to in order to develop" is not "exposed to to develop". */
const notAfterTo = (tokens: Token[], from: number) => tokens[from - 1]?.lower !== 'to';

/** "This is in spite of the fact that …" is not "This is although …": a conjunction cannot follow "be". */
const notAfterBe = (tokens: Token[], from: number) => tokens[from - 1]?.lemma !== 'be';

/** "In conclusion, …" opens a sentence; "in summary form", "in conclusion 4 of the report" are other phrases. */
const openingWithComma = (tokens: Token[], from: number, to: number) =>
  tokens.slice(0, from).every((token) => token.pos === 'PUNCT' || token.pos === 'SYM') && tokens[to + 1]?.text === ',';

/**
 * "It is clear that" drops only where it opens the sentence or a clause after a comma or
 * conjunction: "so it is clear that" and "Then, it is clear that" keep the clause whole, but
 * "what makes it is clear that" is not a filler.
 */
const openingClause = (tokens: Token[], from: number) => {
  const before = tokens.slice(0, from).filter((token) => token.pos !== 'PUNCT' && token.pos !== 'SYM');
  return before.length === 0;
};

/**
 * "Whether or not" keeps its "or not" where it opens an adverbial clause ("Whether or not you
 * agree, …" needs both); in a noun clause after a verb or preposition ("decide whether or not
 * to go") "whether" is enough.
 */
const nounClause = (tokens: Token[], from: number) => {
  const before = tokens[from - 1];
  return before !== undefined && (before.pos === 'VERB' || before.pos === 'ADP' || before.pos === 'AUX' || before.pos === 'ADJ');
};

/** "This also serves as a guide" would become the stilted "This also is a guide": kept. */
const notAfterAdverb = (tokens: Token[], from: number) => tokens[from - 1]?.pos !== 'ADV';

/** Splits like the tagger does ("today's" → "today", "'s"; "fast-paced" → "fast", "-", "paced"). */
export function tokensOf(text: string): string[] {
  return text.toLowerCase().replace(/'/gu, " '").replace(/-/gu, ' - ').split(/\s+/u).filter(Boolean);
}

/** Clarity: wordy phrases and filler that say nothing. */
export const CLARITY_PHRASES: PhraseRule[] = [
  phrase('in order to', 'to', notAfterTo),
  phrase('due to the fact that', 'because', notAfterBe),
  phrase('owing to the fact that', 'because', notAfterBe),
  phrase('in spite of the fact that', 'although', notAfterBe),
  phrase('despite the fact that', 'although', notAfterBe),
  phrase('at this point in time', 'now'),
  phrase('at the present time', 'now'),
  phrase('for the purpose of', 'for', notBeforeGerund),
  phrase('in the event that', 'if'),
  // Not "with respect to" → "about": "the gradient with respect to the weights" is no "about".
  phrase('a myriad of', 'many', beforePluralNoun),
  phrase('a plethora of', 'many', beforePluralNoun),
  phrase('a wide range of', 'many', beforePluralNoun),
  phrase('it is important to note that', ''),
  phrase('it is worth noting that', ''),
  phrase('it should be noted that', ''),
  phrase('it is essential to note that', ''),
  phrase("in today's fast-paced digital landscape", 'today'),
  phrase("in today's digital landscape", 'today'),
  phrase("in today's fast-paced world", 'today'),
  phrase("in today's digital age", 'today'),
  phrase("in today's world", 'today'),
  phrase('navigate the complexities of', 'work through'),
  phrase('navigates the complexities of', 'works through'),
  phrase('navigating the complexities of', 'working through'),
  phrase('navigated the complexities of', 'worked through'),
  // Only the third person singular: "plays" is always "is", whatever the subject's number.
  phrase('plays a crucial role in', 'is central to'),
  phrase('plays a vital role in', 'is central to'),
  phrase('plays a pivotal role in', 'is central to'),
  phrase('plays a key role in', 'is central to'),
  phrase('in conclusion', 'to conclude', openingWithComma),
  phrase('in summary', 'in short', openingWithComma),
  // Filler and doubled wording that AI prose leans on.
  phrase('it is also important to note that', ''),
  phrase('it is also worth noting that', ''),
  phrase('it is clear that', '', openingClause),
  // "First and foremost, …" is "First, …"; "First and foremost is the evidence" would read as a slip.
  phrase('first and foremost', 'first', (tokens, _from, to) => tokens[to + 1]?.text === ','),
  phrase('each and every', 'every'),
  phrase('so as to', 'to', notAfterTo),
  phrase('in order for', 'for', notAfterTo),
  phrase('whether or not', 'whether', nounClause),
  phrase('a wide variety of', 'many', beforePluralNoun),
  phrase('a variety of', 'various', beforePluralNoun),
  phrase('a multitude of', 'many', beforePluralNoun),
  phrase('has the potential to', 'could', (tokens, from, to) => finiteHave(tokens, from, to) && notAfterAdverb(tokens, from)),
  // "serves as a reminder" is "is a reminder"; "serves as carriers" is not "is carriers".
  phrase('serves as', 'is', (tokens, from, to) => notAfterAdverb(tokens, from) && /^(a|an|the)$/u.test(tokens[to + 1]?.lower ?? '')),
  phrase('plays an important role in', 'is important in', (tokens, from) => notAfterAdverb(tokens, from)),
  phrase("in today's society", 'today'),
  phrase("in today's modern world", 'today'),
];

/** Plain wording for stiff phrases (models with plainer vocabulary). */
export const PLAIN_PHRASES: PhraseRule[] = [
  phrase('ensure that', 'make sure that'),
  phrase('ensures that', 'makes sure that'),
  phrase('ensured that', 'made sure that'),
  phrase('ensuring that', 'making sure that'),
  phrase('is able to', 'can', noCoordinatedInfinitive),
  phrase('are able to', 'can', noCoordinatedInfinitive),
  phrase('has the ability to', 'can', finiteHave),
  phrase('have the ability to', 'can', finiteHave),
  phrase('prior to', 'before'),
  phrase('subsequent to', 'after'),
  phrase('in the near future', 'soon'),
  phrase('on a daily basis', 'daily'),
  phrase('a large number of', 'many', beforePluralNoun),
  phrase('a significant number of', 'many', beforePluralNoun),
  phrase('as a result of', 'because of'),
];

/**
 * Sentence-opening connectives that only add ("Moreover, …"): filler a clarity edit drops, a
 * restructuring moves into the clause as "also" ("Moreover, students need …" → "Students also
 * need …").
 */
export const ADDITIVE_OPENERS = new Set(['moreover', 'furthermore', 'additionally', 'in addition']);

/** Plainer words for formal sentence-opening connectives (plain vocabulary; the register stays neutral). */
export const PLAIN_CONNECTIVES: Record<string, string> = {
  moreover: 'Also',
  furthermore: 'Also',
  additionally: 'Also',
  'in addition': 'Also',
  consequently: 'As a result',
  nevertheless: 'Even so',
  nonetheless: 'Even so',
};

/** Sentence-opening connectives a conversational voice uses instead (strongest model only). */
export const CONNECTIVES: Record<string, string> = {
  moreover: 'Also',
  furthermore: 'Also',
  additionally: 'Also',
  consequently: 'So',
  therefore: 'So',
  thus: 'So',
  nevertheless: 'Still',
  nonetheless: 'Still',
  ultimately: 'In the end',
  however: 'But',
  'in addition': 'Also',
  'as a result': 'So',
};

export interface VerbForms {
  base: string;
  third: string;
  past: string;
  participle: string;
  gerund: string;
}

const regular = (base: string, stem = base.replace(/e$/u, '')): VerbForms => ({
  base,
  third: `${base}s`,
  past: `${stem}ed`,
  participle: `${stem}ed`,
  gerund: `${stem}ing`,
});

export type Swap =
  | { pos: 'VERB'; from: VerbForms; to: VerbForms }
  | { pos: 'NOUN'; from: { singular: string; plural: string }; to: { singular: string; plural: string } }
  | { pos: 'ADJ' | 'ADV'; from: string; to: string };

const verb = (from: VerbForms, to: VerbForms): Swap => ({ pos: 'VERB', from, to });
const noun = (singular: string, plural: string, toSingular: string, toPlural: string): Swap => ({
  pos: 'NOUN',
  from: { singular, plural },
  to: { singular: toSingular, plural: toPlural },
});
const adjective = (from: string, to: string): Swap => ({ pos: 'ADJ', from, to });
const adverb = (from: string, to: string): Swap => ({ pos: 'ADV', from, to });

/**
 * Plainer vocabulary. Only swaps that keep the meaning in every sense the word is used in:
 * not indicate → show ("studies indicate" hedges; "show" asserts), not require → need ("requires that states submit", "requiring athletes to"), facilitate →
 * help ("facilitate meetings"), comprehensive → thorough ("comprehensive school") or
 * individual → person ("individuals of this species").
 */
export const SWAPS: Swap[] = [
  verb(regular('utilize'), regular('use')),
  verb(regular('utilise'), regular('use')),
  verb(regular('demonstrate'), { base: 'show', third: 'shows', past: 'showed', participle: 'shown', gerund: 'showing' }),
  verb(regular('assist'), regular('help')),
  verb(regular('commence'), regular('start')),
  verb(regular('purchase'), { base: 'buy', third: 'buys', past: 'bought', participle: 'bought', gerund: 'buying' }),
  verb(regular('endeavor', 'endeavor'), { base: 'try', third: 'tries', past: 'tried', participle: 'tried', gerund: 'trying' }),
  verb({ base: 'delve', third: 'delves', past: 'delved', participle: 'delved', gerund: 'delving' }, { base: 'dig', third: 'digs', past: 'dug', participle: 'dug', gerund: 'digging' }),
  // Never in the passive ("was obtained" is not "was gotten", "was attempted" not "was tried"): see NO_PASSIVE.
  verb(regular('obtain'), { base: 'get', third: 'gets', past: 'got', participle: 'gotten', gerund: 'getting' }),
  verb(regular('attempt'), { base: 'try', third: 'tries', past: 'tried', participle: 'tried', gerund: 'trying' }),
  verb(regular('comprehend'), { base: 'understand', third: 'understands', past: 'understood', participle: 'understood', gerund: 'understanding' }),
  verb({ base: 'modify', third: 'modifies', past: 'modified', participle: 'modified', gerund: 'modifying' }, regular('change')),
  verb({ base: 'possess', third: 'possesses', past: 'possessed', participle: 'possessed', gerund: 'possessing' }, { base: 'have', third: 'has', past: 'had', participle: 'had', gerund: 'having' }),
  noun('methodology', 'methodologies', 'method', 'methods'),
  noun('endeavor', 'endeavors', 'effort', 'efforts'),
  noun('assistance', 'assistance', 'help', 'help'),
  adjective('numerous', 'many'),
  adjective('seamless', 'smooth'),
  adjective('crucial', 'important'),
  adjective('pivotal', 'important'),
  adjective('intricate', 'complex'),
  adjective('multifaceted', 'complex'),
  adjective('additional', 'more'),
  adjective('beneficial', 'helpful'),
  adverb('approximately', 'about'),
  adverb('subsequently', 'later'),
  adverb('seamlessly', 'smoothly'),
  adverb('frequently', 'often'),
  adverb('primarily', 'mainly'),
];

/**
 * Swaps whose plain word is casual: "we obtained a spin-dependent term" is not "we got" in a
 * paper or a contract. Not made in formal (legal or academic) text.
 */
export const CASUAL_SWAPS = new Set(['obtain']);

/** Verbs whose plain word reads wrong in the passive: "the data was obtained" is not "was gotten", "a crossing was attempted" not "was tried". */
export const NO_PASSIVE = new Set(['obtain', 'attempt']);

/**
 * Verbs whose plain word means the same only before an infinitive: "attempt to climb" is "try
 * to climb", but "Attempt action on failure" is not "Try action" (try a thing = sample or test it).
 */
export const ONLY_BEFORE_INFINITIVE = new Set(['attempt', 'endeavor']);

/** Contractions of a negated auxiliary: correct wherever the full form is. */
export const NEGATIVE_CONTRACTIONS: Record<string, string> = {
  'do not': "don't", 'does not': "doesn't", 'did not': "didn't", 'is not': "isn't", 'are not': "aren't",
  'was not': "wasn't", 'were not': "weren't", 'cannot': "can't", 'will not': "won't", 'would not': "wouldn't",
  'should not': "shouldn't", 'could not': "couldn't", 'have not': "haven't", 'has not': "hasn't",
};

/**
 * Subject + auxiliary contractions: only before a word that continues the clause. Not
 * "let us" → "let's": "let us know" and "won't let us do" are no suggestions.
 */
export const SUBJECT_CONTRACTIONS: Record<string, string> = {
  'it is': "it's", 'that is': "that's", 'there is': "there's", 'we are': "we're", 'they are': "they're",
  'you are': "you're", 'i am': "I'm", 'we will': "we'll", 'they will': "they'll",
};
