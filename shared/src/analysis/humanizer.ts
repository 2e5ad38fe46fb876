import type { HumanizerModel } from '../upstream/requests.ts';
import { countWords } from '../text.ts';
import { findProtectedSpans, rewriteOutside } from './protected-spans.ts';

/**
 * A deterministic rule-based rewriter with four "models". Every model keeps numbers, dates,
 * URLs, e-mail addresses, quotations and capitalised names exactly as written; they differ
 * in which rules they apply:
 * - cognia: replaces stock phrases and uses contractions;
 * - lexi: swaps formal words for plain synonyms;
 * - cognia_v2: both, and splits long sentences joined by "; " or ", and ";
 * - huma_v2: everything cognia_v2 does, plus softer connectives and fewer hedges.
 */

type Rule = readonly [pattern: RegExp, replacement: string];

function word(phrase: string, replacement: string): Rule {
  return [new RegExp(`(?<![\\p{L}\\p{N}'’])${phrase}(?![\\p{L}\\p{N}])`, 'giu'), replacement];
}

const STOCK_PHRASES: Rule[] = [
  word("in today's fast-paced (?:digital )?(?:world|landscape)", 'these days'),
  word('it is important to note that', 'note that'),
  word('it is worth noting that', 'notably,'),
  word('plays a (?:crucial|vital|pivotal) role in', 'matters a lot for'),
  word('a myriad of', 'lots of'),
  word('in conclusion', 'all in all'),
  word('in summary', 'in short'),
  word('delve into', 'dig into'),
  word('navigate the complexities of', 'work through'),
  word('unlock the potential of', 'get the most from'),
  word('in order to', 'to'),
  word('due to the fact that', 'because'),
  word('at this point in time', 'now'),
  word('a testament to', 'proof of'),
  word('embark on', 'start'),
];

const CONTRACTIONS: Rule[] = [
  word('do not', "don't"), word('does not', "doesn't"), word('did not', "didn't"), word('is not', "isn't"),
  word('are not', "aren't"), word('was not', "wasn't"), word('were not', "weren't"), word('cannot', "can't"),
  word('can not', "can't"), word('will not', "won't"), word('would not', "wouldn't"), word('should not', "shouldn't"),
  word('could not', "couldn't"), word('have not', "haven't"), word('has not', "hasn't"), word('it is', "it's"),
  word('that is', "that's"), word('there is', "there's"), word('we are', "we're"), word('they are', "they're"),
  word('you are', "you're"), word('i am', "I'm"), word('we will', "we'll"), word('they will', "they'll"),
  word('let us', "let's"),
];

const SYNONYMS: Rule[] = [
  word('utilize', 'use'), word('utilizes', 'uses'), word('utilized', 'used'), word('utilizing', 'using'),
  word('demonstrate', 'show'), word('demonstrates', 'shows'), word('demonstrated', 'showed'),
  word('numerous', 'many'), word('obtain', 'get'), word('obtained', 'got'), word('assist', 'help'),
  word('approximately', 'about'), word('commence', 'start'), word('commenced', 'started'),
  word('additional', 'extra'), word('individuals', 'people'), word('purchase', 'buy'),
  word('sufficient', 'enough'), word('require', 'need'), word('requires', 'needs'), word('enhance', 'improve'),
  word('enhances', 'improves'), word('facilitate', 'help'), word('facilitates', 'helps'),
  word('methodology', 'method'), word('optimal', 'best'), word('regarding', 'about'),
  word('subsequently', 'later'), word('endeavor', 'try'), word('ensure', 'make sure'), word('ensures', 'makes sure'),
  word('various', 'different'), word('significant', 'big'), word('significantly', 'a lot'),
  word('comprehensive', 'thorough'), word('robust', 'solid'), word('seamless', 'smooth'),
  word('seamlessly', 'smoothly'), word('leverage', 'use'), word('leverages', 'uses'), word('leveraging', 'using'),
  word('crucial', 'key'), word('pivotal', 'key'), word('paramount', 'vital'), word('innovative', 'new'),
  word('foster', 'build'), word('fosters', 'builds'), word('fostering', 'building'), word('intricate', 'complex'),
  word('multifaceted', 'many-sided'), word('landscape', 'field'), word('realm', 'area'),
  word('harness', 'use'), word('harnessing', 'using'), word('ever-evolving', 'changing'),
  word('organizations', 'companies'), word('individual', 'person'), word('assistance', 'help'),
];

const CONNECTIVES: Rule[] = [
  word('moreover,', 'plus,'), word('furthermore,', 'also,'), word('additionally,', 'also,'),
  word('consequently,', 'so'), word('therefore,', 'so'), word('however,', 'still,'), word('ultimately,', 'in the end,'),
  word('overall,', 'all told,'), word('notably,', 'in fact,'),
];

const HEDGES: Rule[] = [
  word('it could be argued that', ''), word('it can be said that', ''), word('arguably', ''),
  word('in many ways', ''), word('to some extent', ''),
];

const MODEL_RULES: Record<HumanizerModel, Rule[]> = {
  cognia: [...STOCK_PHRASES, ...CONTRACTIONS],
  lexi: [...STOCK_PHRASES.slice(0, 4), ...SYNONYMS],
  cognia_v2: [...STOCK_PHRASES, ...CONTRACTIONS, ...SYNONYMS],
  huma_v2: [...HEDGES, ...STOCK_PHRASES, ...CONNECTIVES, ...CONTRACTIONS, ...SYNONYMS],
};

const SPLITS_SENTENCES: Record<HumanizerModel, boolean> = { cognia: false, lexi: false, cognia_v2: true, huma_v2: true };

function matchCase(original: string, replacement: string): string {
  if (replacement === '' || original === '') return replacement;
  if (/^\p{Lu}/u.test(original) && !/^I['’]/u.test(replacement)) {
    return replacement[0]!.toUpperCase() + replacement.slice(1);
  }
  return replacement;
}

function applyRules(piece: string, rules: Rule[]): string {
  let out = piece;
  for (const [pattern, replacement] of rules) {
    out = out.replace(pattern, (match) => matchCase(match, replacement));
  }
  return out;
}

const CLAUSE_JOINT = /; |, and /gu;

/** "A; b" and "A, and b" become "A. B" when both halves are clauses of 4+ words. */
function splitLongSentences(text: string): string {
  const protectedSpans = findProtectedSpans(text);
  let out = '';
  let cursor = 0;
  for (const joint of text.matchAll(CLAUSE_JOINT)) {
    const at = joint.index;
    if (protectedSpans.some((span) => at >= span.start && at < span.end)) continue;
    const clauseStart = Math.max(text.lastIndexOf('. ', at), text.lastIndexOf('! ', at), text.lastIndexOf('? ', at), cursor - 1) + 1;
    const rest = text.slice(at + joint[0].length);
    const nextEnd = rest.search(/[.!?;](\s|$)/u);
    const nextClause = nextEnd < 0 ? rest : rest.slice(0, nextEnd);
    if (countWords(text.slice(clauseStart, at)) < 4 || countWords(nextClause) < 4 || !/^\p{Ll}/u.test(rest)) continue;
    out += `${text.slice(cursor, at)}. ${rest[0]!.toUpperCase()}`;
    cursor = at + joint[0].length + 1;
  }
  return out + text.slice(cursor);
}

function tidy(text: string): string {
  return text
    .replace(/[ \t]{2,}/g, ' ')
    .replace(/ +([,.;:!?])/g, '$1')
    .replace(/(^|[.!?]\s+)(\p{Ll})/gu, (_match, lead: string, letter: string) => lead + letter.toUpperCase());
}

export interface HumanizeResult {
  humanized_text: string;
  words_processed: number;
  model_used: HumanizerModel;
}

export function humanize(text: string, model: HumanizerModel): HumanizeResult {
  const rules = MODEL_RULES[model];
  const protectedSpans = findProtectedSpans(text);
  let rewritten = rewriteOutside(text, protectedSpans, (piece) => applyRules(piece, rules));
  if (SPLITS_SENTENCES[model]) rewritten = splitLongSentences(rewritten);
  // Tidying runs outside protected spans too, so quotations and URLs keep their spacing.
  rewritten = rewriteOutside(rewritten, findProtectedSpans(rewritten), (piece) => tidy(piece));
  return { humanized_text: rewritten, words_processed: countWords(text), model_used: model };
}
