import { findProtectedSpans } from '../protected-spans.ts';
import { needsFullForm } from './grammar-guard.ts';
import { NEGATIVE_CONTRACTIONS, SUBJECT_CONTRACTIONS } from './rules.ts';
import { withCaseOf, type SentenceEditor } from './sentence-editor.ts';

/** Contractions where English allows them, and one choice per text (no "don't" beside "do not"). */

const CONTINUES_CLAUSE = new Set(['VERB', 'ADJ', 'DET', 'NUM', 'AUX', 'PART', 'NOUN', 'PRON', 'PROPN']);

export function applyContractions(editor: SentenceEditor, skip: ReadonlySet<string>): void {
  const { tokens } = editor;
  for (let i = 0; i + 1 < tokens.length; i++) {
    const a = tokens[i]!;
    const b = tokens[i + 1]!;
    // Only across one plain space: "has        not" keeps the writer's layout.
    const gap = editor.sentence.slice(a.end, b.start);
    if (gap !== '' && gap !== ' ') continue;
    const key = a.end === b.start ? `${a.lower}${b.lower}` : `${a.lower} ${b.lower}`;
    if (skip.has(key)) continue;
    const negative = NEGATIVE_CONTRACTIONS[key];
    if (negative) {
      if (editor.replace(i, i + 1, withCaseOf(a.text, negative))) i++;
      continue;
    }
    const subject = SUBJECT_CONTRACTIONS[key];
    const next = tokens[i + 2];
    // Only where the clause goes on: never "no matter where they're," or "what it's."; and
    // never onto a verb that carries its own clitic ("they aren't" is not "they'ren't").
    // "it is also important" goes on past its adverb; "no matter where they are now." does not.
    const goesOn = next !== undefined && (CONTINUES_CLAUSE.has(next.pos) || (next.pos === 'ADV' && CONTINUES_CLAUSE.has(tokens[i + 3]?.pos ?? '')));
    if (!subject || !next || !goesOn || next.start === b.end) continue;
    // "we will not" is "we won't" (contracted at the next step), not the stilted "we'll not".
    if (b.lower === 'will' && next.lower === 'not') continue;
    if (needsFullForm(tokens, i, i + 1)) continue;
    if (editor.replace(i, i + 1, subject === "I'm" ? subject : withCaseOf(a.text, subject))) i++;
  }
}

/** Occurrences of a word or pair of words, across any spacing ("do  not", "do\nnot"). */
const countOf = (text: string, words: string) => (text.replaceAll('’', "'").match(new RegExp(`(?<![\\p{L}'])${words.replaceAll(' ', '\\s+')}(?![\\p{L}'])`, 'gu')) ?? []).length;

/**
 * Negations left in full where the rewrite contracted the same pair elsewhere ("don't" here,
 * "do not" there): outside quotations and other protected text, and not written in capitals
 * for emphasis ("is NOT").
 */
export function mixedContractions(original: string, rewrite: string): string[] {
  const spans = findProtectedSpans(rewrite);
  const unprotected = spans.reduceRight((text, span) => text.slice(0, span.start) + ' '.repeat(span.end - span.start) + text.slice(span.end), rewrite);
  const mixed: string[] = [];
  const both = (text: string, word: string) => countOf(text, word) + countOf(text, word[0]!.toUpperCase() + word.slice(1));
  for (const [full, short] of Object.entries(NEGATIVE_CONTRACTIONS)) {
    if (both(rewrite, short) > both(original, short) && both(unprotected, full) > 0) mixed.push(full);
  }
  return mixed;
}
