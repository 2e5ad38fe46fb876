/**
 * Review aids for a rewrite: what a suggestion changed or dropped that a writer must check
 * (numbers and dates, links, e-mail addresses, quotations, capitalised names, and the terms
 * the user asked to keep).
 */
import { EMAIL_ADDRESS } from '@redline/shared/text';

export interface Flag {
  kind: 'number' | 'url' | 'email' | 'quotation' | 'name' | 'term';
  /** The original text that is missing or changed in the suggestion. */
  value: string;
  message: string;
}

const PATTERNS: { kind: Flag['kind']; label: string; pattern: RegExp }[] = [
  { kind: 'url', label: 'Link', pattern: /\b(?:https?:\/\/|www\.)[^\s<>"')\]]*[^\s<>"')\].,;:!?]/giu },
  { kind: 'email', label: 'E-mail address', pattern: EMAIL_ADDRESS },
  { kind: 'quotation', label: 'Quotation', pattern: /"[^"\n]+"|“[^”\n]+”/gu },
  { kind: 'number', label: 'Number or date', pattern: /\p{N}[\p{N},.:/-]*\p{N}%?|\p{N}%?/gu },
];

const NAME = /\p{Lu}[\p{L}'’-]+/gu;

function tokens(text: string, pattern: RegExp): string[] {
  return [...text.matchAll(pattern)].map((match) => match[0]);
}

/** Capitalised words that do not start a sentence, outside links and e-mail addresses. */
function names(text: string): string[] {
  const cleaned = text.replace(PATTERNS[0]!.pattern, ' ').replace(PATTERNS[1]!.pattern, ' ');
  return [...cleaned.matchAll(NAME)]
    .filter((match) => {
      const before = cleaned.slice(0, match.index).trimEnd();
      return before !== '' && !/[.!?:"“(]$/u.test(before);
    })
    .map((match) => match[0]);
}

/** Items of `before` that `after` no longer has (a multiset difference). */
function missing(before: string[], after: string[]): string[] {
  const remaining = [...after];
  return before.filter((item) => {
    const at = remaining.indexOf(item);
    if (at < 0) return true;
    remaining.splice(at, 1);
    return false;
  });
}

export function reviewFlags(original: string, suggestion: string, keepTerms: readonly string[] = []): Flag[] {
  const flags: Flag[] = [];
  for (const { kind, label, pattern } of PATTERNS) {
    for (const value of missing(tokens(original, pattern), tokens(suggestion, pattern))) {
      flags.push({ kind, value, message: `${label} “${value}” is changed or dropped.` });
    }
  }
  const urls = tokens(original, PATTERNS[0]!.pattern).join(' ');
  for (const value of missing(names(original), names(suggestion))) {
    if (!urls.includes(value)) flags.push({ kind: 'name', value, message: `Name “${value}” is changed or dropped.` });
  }
  const lowerSuggestion = suggestion.toLocaleLowerCase();
  for (const term of keepTerms) {
    const lowerTerm = term.toLocaleLowerCase();
    if (original.toLocaleLowerCase().includes(lowerTerm) && !lowerSuggestion.includes(lowerTerm)) {
      flags.push({ kind: 'term', value: term, message: `Kept term “${term}” is changed or dropped.` });
    }
  }
  return flags;
}
