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
