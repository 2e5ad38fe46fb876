import type { Span } from '../protected-spans.ts';
import type { Token } from './tagger.ts';

/** What a model edits a sentence through: token-range replacements that never touch protected text or each other. */

interface Edit {
  start: number;
  end: number;
  text: string;
}

export const isWord = (token: Token | undefined) => token !== undefined && token.pos !== 'PUNCT' && token.pos !== 'SYM' && token.pos !== 'SPACE';

export function withCaseOf(original: string, replacement: string): string {
  if (replacement === '' || !/^\p{Lu}/u.test(original)) return replacement;
  if (original.length > 1 && original === original.toUpperCase() && /\p{L}{2}/u.test(original)) return replacement.toUpperCase();
  return replacement[0]!.toUpperCase() + replacement.slice(1);
}

export class SentenceEditor {
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
export function keepsOwnCase(token: Token): boolean {
  const { text } = token;
  if (!/^\p{Ll}/u.test(text)) return false;
  return /\p{Lu}/u.test(text) || token.pos === 'PROPN' || /\d/u.test(text) || !/[aeiouy]/iu.test(text);
}

/** "computer-assisted", "self-sufficient": a word joined by a hyphen is part of a compound. */
export function touchesHyphen(tokens: Token[], from: number, to: number): boolean {
  const before = tokens[from - 1];
  const after = tokens[to + 1];
  return (
    (before !== undefined && before.text.endsWith('-') && before.end === tokens[from]!.start) ||
    (after !== undefined && after.text.startsWith('-') && after.start === tokens[to]!.end)
  );
}
