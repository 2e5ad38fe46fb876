import type { Span } from '../protected-spans.ts';
import { clauseVerb, MODAL_WORDS, NOUN_PHRASE } from './clauses.ts';
import { ADDITIVE_OPENERS } from './rules.ts';
import { isWord, SentenceEditor } from './sentence-editor.ts';
import { tag, type Token } from './tagger.ts';

/** A sentence's opening connective ("Moreover,", "However,"): dropped, replaced by a plainer one, or moved into the clause. */

/**
 * What a model does with a sentence-opening connective: `additive` for "Moreover,",
 * "Furthermore,", "Additionally,", "In addition," ('drop' it, 'move' it into the clause as
 * "also", or leave it to `table`), and `table` for replacement words.
 */
export interface OpenerSteps {
  additive: 'drop' | 'move' | 'table';
  table?: Record<string, string>;
  /** Whether "However,", "Therefore," and "Thus," move into the clause (restructuring models). */
  moveOthers?: boolean;
}

/** The sentence's opening connective: its first token, its last and the comma after it. */
function openerAt(tokens: Token[]): { first: number; comma: number; key: string } | undefined {
  const first = tokens.findIndex(isWord);
  if (first < 0) return undefined;
  for (const length of [2, 1]) {
    const words = tokens.slice(first, first + length);
    if (words.length !== length || tokens[first + length]?.text !== ',') continue;
    return { first, comma: first + length, key: words.map((token) => token.lower).join(' ') };
  }
  return undefined;
}

/**
 * The clause verb after a subject, also after a short gerund phrase ("Prioritizing tasks helps",
 * "Setting realistic goals allows"), whose verb must then show its person ("helps", "can").
 */
const NOUNS_IN_ING = new Set(['thing', 'something', 'nothing', 'anything', 'everything', 'morning', 'evening', 'building', 'meeting', 'wedding', 'string', 'spring', 'ceiling', 'feeling', 'painting', 'clothing', 'housing', 'funding', 'training', 'setting', 'finding', 'beijing', 'during']);

function subjectVerb(words: Token[]): number {
  const first = words[0];
  // The tagger may call a capitalised gerund a noun ("Spending dedicated time … requires").
  if (first !== undefined && (first.pos === 'VERB' || first.pos === 'NOUN' || first.pos === 'PROPN') && /^\p{L}{3,}ing$/u.test(first.lower) && !NOUNS_IN_ING.has(first.lower)) {
    let j = 1;
    while (j < words.length && j <= 4 && NOUN_PHRASE.has(words[j]!.pos)) j++;
    const verb = words[j];
    if (j === 1 || verb === undefined) return -1;
    return (verb.pos === 'AUX' && MODAL_WORDS.has(verb.lower)) || (verb.pos === 'AUX' && /^(is|was|has)$/u.test(verb.lower)) || (verb.pos === 'VERB' && /[^s]s$/u.test(verb.lower) && verb.lower !== verb.lemma) ? j : -1;
  }
  return clauseVerb(words);
}

/** Connectives a restructuring moves into the clause: additive ones as "also", "Thus," and "Therefore," as themselves. */
const MOVED_INTO_CLAUSE: Record<string, string> = { moreover: 'also', furthermore: 'also', additionally: 'also', 'in addition': 'also', therefore: 'therefore', thus: 'thus', however: 'however' };

/**
 * Restructuring of an opening connective: "Moreover, students need X" → "Students also need
 * X" ("also" after the clause's auxiliary: "can also help", "is also important", "'s also
 * clear"; or before its verb: "also need"); "Therefore, schools must act" → "Schools must
 * therefore act"; "However, the plan failed" → "The plan, however, failed" (after a noun
 * subject only: "It, however, failed" is stilted). Only where the subject is short and plain,
 * not before "not", and never with a second "also".
 */
function moveIntoClause(editor: SentenceEditor, first: number, comma: number, word: string): boolean {
  const { tokens } = editor;
  const rest = tokens.slice(comma);
  if (rest.some((token, k) => token.lower === word || (word === 'also' && (token.lower === 'too' || (token.lower === 'as' && rest[k + 1]?.lower === 'well'))))) return false;
  // "Another instance would also be": the subject already says "in addition".
  if (word === 'also' && /^(another|other|further|more)$/u.test(tokens[comma + 1]?.lower ?? '')) return false;
  const restStart = comma + 1;
  const words = tokens.slice(restStart).filter(isWord);
  if (words[0] !== tokens[restStart]) return false;
  const v = subjectVerb(words);
  if (v < 0) return false;
  const verb = words[v]!;
  const at = tokens.indexOf(verb);
  if (tokens.slice(restStart, at).some((token) => !isWord(token))) return false;
  const after = tokens[at + 1];
  if (after === undefined || !isWord(after)) return false;
  if (word === 'however') {
    const subject = tokens[at - 1]!;
    if (!['NOUN', 'PROPN'].includes(subject.pos) || words[0]!.pos === 'PRON' || !editor.isFree(at - 1, at - 1)) return false;
    if (!editor.replace(first, comma, '')) return false;
    editor.replace(at - 1, at - 1, `${subject.text}, however,`);
    return true;
  }
  if (verb.lemma === 'do' || after.lower === 'not' || after.lower === "n't") return false;
  // "has many benefits": "have" as the main verb takes "also" before it.
  const auxiliary = verb.pos === 'AUX' && !(verb.lemma === 'have' && after.pos !== 'VERB' && after.pos !== 'ADV');
  if (!editor.isFree(at, at) || !editor.replace(first, comma, '')) return false;
  editor.replace(at, at, auxiliary ? `${verb.text} ${word}` : `${word} ${verb.text}`);
  return true;
}

/** What the previous sentence's opener became: "Also, … Also, …" in a row reads as a tic. */
export interface OpenerContext {
  previous?: string;
  /** Sentences since `previous` was used: "Also, … . … . Also, …" is still too close. */
  since?: number;
}

function applyOpener(editor: SentenceEditor, steps: OpenerSteps, context: OpenerContext): void {
  const opener = openerAt(editor.tokens);
  const previous = context.previous;
  context.since = (context.since ?? 0) + 1;
  if (context.since > 2) context.previous = undefined;
  if (opener === undefined) return;
  const { first, comma, key } = opener;
  if (ADDITIVE_OPENERS.has(key) && steps.additive !== 'table') {
    if (steps.additive === 'move' && moveIntoClause(editor, first, comma, 'also')) return;
    // Where "also" finds no place, a model with replacement words uses its own ("Also,"); the others drop it.
    // "Furthermore, is a good help" would start with its verb: kept.
    const next = editor.tokens[comma + 1];
    const verbFirst = next !== undefined && (next.pos === 'AUX' || next.pos === 'VERB');
    if (!steps.table?.[key] && !verbFirst && editor.replace(first, comma, '')) return;
  }
  const replacement = steps.table?.[key];
  if (!replacement && steps.moveOthers && MOVED_INTO_CLAUSE[key] && !ADDITIVE_OPENERS.has(key)) {
    moveIntoClause(editor, first, comma, MOVED_INTO_CLAUSE[key]);
    return;
  }
  if (!replacement || replacement === previous) return;
  const { tokens } = editor;
  // "Also, studies show that students also feel …": the clause has its own.
  if (tokens.slice(comma).some((token) => token.lower === replacement.toLowerCase())) return;
  context.previous = replacement;
  context.since = 0;
  if (replacement === 'But') {
    // "However, for those …, but also …" has its own "but".
    if (tokens.slice(comma).some((token) => token.lower === 'but')) return;
    // "However, he said, the plan …": the comma pairs with a parenthetical's.
    if (tokens.slice(comma + 1, comma + 5).some((token) => token.text === ',')) return;
    // "But" reads best without the comma; "So, many companies" needs it ("so many"), and "Still, …" too.
    editor.replace(first, comma, replacement);
  } else {
    editor.replace(first, comma - 1, replacement);
  }
}

/** The opener pass, on the sentence as the word edits left it (`kept`: its protected spans there). */
export function rewriteOpener(sentence: string, kept: Span[], steps: OpenerSteps, context: OpenerContext): string {
  if (!/^\W*(?:moreover|furthermore|additionally|in addition|consequently|therefore|thus|nevertheless|nonetheless|ultimately|however|as a result)\s*,/iu.test(sentence)) {
    context.since = (context.since ?? 0) + 1;
    if (context.since > 2) context.previous = undefined;
    return sentence;
  }
  const tokens = tag(sentence);
  if (!tokens) return sentence;
  const editor = new SentenceEditor(sentence, tokens, kept);
  applyOpener(editor, steps, context);
  return editor.result();
}
