import type { HumanizerModel } from '../upstream/requests.ts';
import { countWords } from '../text.ts';
import { splitSentences } from '../sentences.ts';
import { findProtectedSpans, type Span } from './protected-spans.ts';
import { introducedProblems, type GrammarProblem } from './rewrite/grammar-guard.ts';
import {
  CLARITY_PHRASES,
  CONNECTIVES,
  HEDGES,
  NEGATIVE_CONTRACTIONS,
  PLAIN_PHRASES,
  SUBJECT_CONTRACTIONS,
  SWAPS,
  type PhraseRule,
  type Swap,
  type VerbForms,
} from './rewrite/rules.ts';
import { tag, type Token } from './rewrite/tagger.ts';

/**
 * A deterministic rule-based rewriter with four models of distinct character:
 * - cognia: light clarity edits: wordy phrases shortened ("in order to" → "to"), empty
 *   openers dropped ("It is important to note that …"); the writer's words otherwise stay.
 * - lexi: plainer vocabulary: cognia's edits plus formal words swapped for plain ones
 *   ("utilize" → "use"), checked against the part of speech and keeping the verb form.
 * - cognia_v2: sentence restructuring: cognia's edits plus long sentences split where two
 *   full clauses meet ("; ", ", and", ", but", ", so"), never inside a list.
 * - huma_v2: strongest voice change: all of the above plus contractions, conversational
 *   connectives ("Moreover," → "Also,") and hedges dropped.
 * Every model keeps numbers, dates, links, e-mail addresses, quotations and capitalised
 * names exactly as written, and every rewritten sentence passes a tagger-based grammar
 * check: a sentence whose rewrite has a problem its original did not have stays as written.
 */

interface ModelSteps {
  phrases: PhraseRule[];
  swaps: boolean;
  connectives: boolean;
  contractions: boolean;
  splits: boolean;
}

const MODELS: Record<HumanizerModel, ModelSteps> = {
  cognia: { phrases: CLARITY_PHRASES, swaps: false, connectives: false, contractions: false, splits: false },
  lexi: { phrases: [...CLARITY_PHRASES, ...PLAIN_PHRASES], swaps: true, connectives: false, contractions: false, splits: false },
  cognia_v2: { phrases: CLARITY_PHRASES, swaps: false, connectives: false, contractions: false, splits: true },
  huma_v2: { phrases: [...HEDGES, ...CLARITY_PHRASES, ...PLAIN_PHRASES], swaps: true, connectives: true, contractions: true, splits: true },
};

interface Edit {
  start: number;
  end: number;
  text: string;
}

const isWord = (token: Token | undefined) => token !== undefined && token.pos !== 'PUNCT' && token.pos !== 'SYM';

function withCaseOf(original: string, replacement: string): string {
  if (replacement === '' || !/^\p{Lu}/u.test(original)) return replacement;
  if (original.length > 1 && original === original.toUpperCase() && /\p{L}{2}/u.test(original)) return replacement.toUpperCase();
  return replacement[0]!.toUpperCase() + replacement.slice(1);
}

class SentenceEditor {
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
        // The next word starts the sentence now: it must be free to take a capital.
        if (!this.isFree(to + 1, to + 1) && !/^\p{Lu}/u.test(next.text)) return false;
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

function applyPhrases(editor: SentenceEditor, rules: PhraseRule[]): void {
  const lower = editor.tokens.map((token) => token.lower);
  for (let i = 0; i < lower.length; i++) {
    for (const rule of rules) {
      if (rule.phrase.every((word, k) => lower[i + k] === word)) {
        if (editor.replace(i, i + rule.phrase.length - 1, rule.replacement)) break;
      }
    }
  }
}

function verbFormFor(tokens: Token[], at: number, from: VerbForms, to: VerbForms, passive: boolean): string | undefined {
  const word = tokens[at]!.lower;
  let k = at - 1;
  while (k >= 0 && (tokens[k]!.pos === 'ADV' || tokens[k]!.pos === 'PART')) k--;
  if (!passive && k >= 0 && tokens[k]!.lemma === 'be') return undefined;
  if (word === from.base) return to.base;
  if (word === from.third) return to.third;
  if (word === from.gerund) return to.gerund;
  if (word !== from.past && word !== from.participle) return undefined;
  if (to.past === to.participle) return to.past;
  let j = at - 1;
  while (j >= 0 && (tokens[j]!.pos === 'ADV' || tokens[j]!.pos === 'PART')) j--;
  const auxiliary = j >= 0 ? tokens[j]!.lemma : '';
  const participle = auxiliary === 'have' || auxiliary === 'be' || tokens[at + 1]?.lower === 'by';
  return participle ? to.participle : to.past;
}

function swapFor(tokens: Token[], at: number, swap: Swap): string | undefined {
  const token = tokens[at]!;
  if (token.pos !== swap.pos) return undefined;
  switch (swap.pos) {
    case 'VERB':
      return verbFormFor(tokens, at, swap.from, swap.to, swap.passive !== false);
    case 'NOUN':
      if (token.lower === swap.from.plural) return swap.to.plural;
      // "an individual" → "a person": the article must not follow the old word's sound.
      if (token.lower === swap.from.singular && !/^(a|an)$/u.test(tokens[at - 1]?.lower ?? '')) return swap.to.singular;
      return undefined;
    default:
      if (token.lower !== swap.from) return undefined;
      if (/^(a|an)$/u.test(tokens[at - 1]?.lower ?? '')) return undefined;
      return swap.to;
  }
}

function applySwaps(editor: SentenceEditor): void {
  editor.tokens.forEach((token, at) => {
    for (const swap of SWAPS) {
      const replacement = swapFor(editor.tokens, at, swap);
      if (replacement !== undefined) {
        editor.replace(at, at, withCaseOf(token.text, replacement));
        return;
      }
    }
  });
}

function applyConnectives(editor: SentenceEditor): void {
  const first = editor.tokens.findIndex(isWord);
  if (first < 0) return;
  for (const length of [2, 1]) {
    const words = editor.tokens.slice(first, first + length);
    const comma = editor.tokens[first + length];
    const replacement = CONNECTIVES[words.map((token) => token.lower).join(' ')];
    if (words.length !== length || comma?.text !== ',' || !replacement) continue;
    // "So", "Still" and "But" read best without the comma.
    const dropsComma = replacement === 'So' || replacement === 'Still' || replacement === 'But';
    editor.replace(first, dropsComma ? first + length : first + length - 1, replacement);
    return;
  }
}

const CONTINUES_CLAUSE = new Set(['VERB', 'ADJ', 'DET', 'NUM', 'AUX', 'PART', 'NOUN', 'PRON', 'PROPN']);

function applyContractions(editor: SentenceEditor): void {
  const { tokens } = editor;
  for (let i = 0; i + 1 < tokens.length; i++) {
    const a = tokens[i]!;
    const b = tokens[i + 1]!;
    const key = a.end === b.start ? `${a.lower}${b.lower}` : `${a.lower} ${b.lower}`;
    const negative = NEGATIVE_CONTRACTIONS[key];
    if (negative) {
      if (editor.replace(i, i + 1, withCaseOf(a.text, negative))) i++;
      continue;
    }
    const subject = SUBJECT_CONTRACTIONS[key];
    const next = tokens[i + 2];
    // Only where the clause goes on: never "no matter where they're," or "what it's."; and
    // never onto a verb that carries its own clitic ("they aren't" is not "they'ren't").
    if (subject && next && CONTINUES_CLAUSE.has(next.pos) && next.start > b.end) {
      if (editor.replace(i, i + 1, subject === "I'm" ? subject : withCaseOf(a.text, subject))) i++;
    }
  }
}

const SUBJECT_PRONOUNS = new Set(['i', 'you', 'he', 'she', 'it', 'we', 'they', 'this', 'that', 'these', 'those', 'there']);

/** Whether `words` open with a subject followed by its verb: a full clause, not a list item. */
function opensClause(words: Token[]): boolean {
  const first = words[0];
  if (!first || first.pos === 'VERB' || first.pos === 'AUX') return false;
  if (first.pos === 'PRON' && SUBJECT_PRONOUNS.has(first.lower)) return words[1]?.pos === 'VERB' || words[1]?.pos === 'AUX' || words[1]?.pos === 'ADV';
  let j = 0;
  while (j < words.length && j < 5 && ['DET', 'ADJ', 'NOUN', 'PROPN', 'NUM'].includes(words[j]!.pos)) j++;
  const hasNoun = words.slice(0, j).some((t) => t.pos === 'NOUN' || t.pos === 'PROPN');
  return j > 0 && hasNoun && (words[j]?.pos === 'VERB' || words[j]?.pos === 'AUX');
}

const JOINING = new Set(['and', 'but', 'so']);

/** "A; b" and "A, and/but/so b" become two sentences when both sides are full clauses of 5+ words. */
const SUBORDINATORS = new Set(['if', 'although', 'though', 'because', 'when', 'whenever', 'while', 'since', 'unless', 'whereas', 'as', 'after', 'before', 'once', 'until', 'whether']);

function splitClauses(sentence: string): string {
  // A question or exclamation cut in two loses its mark on the first half.
  if (/[?!]["'”’)]*$/u.test(sentence.trimEnd())) return sentence;
  const tokens = tag(sentence);
  if (!tokens) return sentence;
  // "If A, but B, C": the first half is a dependent clause and would stand alone.
  const first = tokens.find(isWord);
  if (first && (first.pos === 'SCONJ' || SUBORDINATORS.has(first.lower))) return sentence;
  const frozen = findProtectedSpans(sentence);
  let out = '';
  let cursor = 0;
  let clauseStart = 0;
  for (let i = 0; i < tokens.length; i++) {
    const joint = tokens[i]!;
    if (joint.text !== ';' && joint.text !== ',') continue;
    const conjunction = joint.text === ',' ? tokens[i + 1] : undefined;
    if (joint.text === ',' && !(conjunction?.pos === 'CCONJ' && JOINING.has(conjunction.lower))) continue;
    if (frozen.some((span) => span.start <= joint.start && span.end > joint.start)) continue;
    const left = tokens.slice(clauseStart, i);
    const restFrom = conjunction ? i + 2 : i + 1;
    let restEnd = restFrom;
    while (restEnd < tokens.length && !(tokens[restEnd]!.text === ';' || (tokens[restEnd]!.text === ',' && tokens[restEnd + 1]?.pos === 'CCONJ'))) restEnd++;
    const right = tokens.slice(restFrom, restEnd);
    const leftWords = left.filter(isWord);
    const rightWords = right.filter(isWord);
    if (leftWords.length < 5 || rightWords.length < 5) continue;
    // A comma before ", and" in the same clause suggests a list ("a, b, and c").
    if (joint.text === ',' && left.some((t) => t.text === ',')) continue;
    if (!leftWords.some((t) => t.pos === 'VERB' || t.pos === 'AUX') || !opensClause(rightWords)) continue;
    const next = tokens[restFrom]!;
    if (frozen.some((span) => span.start <= next.start && span.end > next.start) && !/^\p{Lu}/u.test(next.text)) continue;
    const opener = conjunction && conjunction.lower !== 'and' ? `${withCaseOf('X', conjunction.lower)} ` : '';
    const nextText = opener === '' ? next.text[0]!.toUpperCase() + next.text.slice(1) : next.text;
    out += `${sentence.slice(cursor, joint.start).trimEnd()}. ${opener}${nextText}`;
    cursor = next.end;
    clauseStart = restFrom;
  }
  return out + sentence.slice(cursor);
}

function tidy(text: string): string {
  return text.replace(/ {2,}/gu, ' ').replace(/ +([,.;:!?])/gu, '$1');
}

export interface SentenceOutcome {
  /** Sentences rewritten and emitted, with their originals. */
  rewritten: Array<{ original: string; rewrite: string }>;
  /** Sentences whose rewrite the grammar check refused, with what it found. */
  refused: Array<{ original: string; rewrite: string; problems: GrammarProblem[] }>;
}

function rewriteSentence(sentence: string, frozen: Span[], steps: ModelSteps, outcome: SentenceOutcome): string {
  const tokens = tag(sentence);
  if (!tokens) return sentence;
  const editor = new SentenceEditor(sentence, tokens, frozen);
  applyPhrases(editor, steps.phrases);
  if (steps.connectives) applyConnectives(editor);
  if (steps.contractions) applyContractions(editor);
  if (steps.swaps) applySwaps(editor);
  let candidate = editor.edits.length > 0 ? tidy(editor.result()) : sentence;
  if (steps.splits) candidate = splitClauses(candidate);
  if (candidate === sentence) return sentence;
  const problems = introducedProblems(sentence, candidate);
  if (problems.length > 0) {
    outcome.refused.push({ original: sentence, rewrite: candidate, problems });
    return sentence;
  }
  outcome.rewritten.push({ original: sentence, rewrite: candidate });
  return candidate;
}

export interface HumanizeResult {
  humanized_text: string;
  words_processed: number;
  model_used: HumanizerModel;
}

/** The rewrite with what the grammar check refused (for evaluation and tests). */
export function humanizeWithOutcome(text: string, model: HumanizerModel): HumanizeResult & { outcome: SentenceOutcome } {
  const steps = MODELS[model];
  const protectedSpans = findProtectedSpans(text);
  const outcome: SentenceOutcome = { rewritten: [], refused: [] };
  let out = '';
  let cursor = 0;
  for (const sentence of splitSentences(text)) {
    const frozen = protectedSpans
      .filter((span) => span.end > sentence.start && span.start < sentence.end)
      .map((span) => ({ start: Math.max(span.start, sentence.start) - sentence.start, end: Math.min(span.end, sentence.end) - sentence.start }));
    out += text.slice(cursor, sentence.start) + rewriteSentence(sentence.text, frozen, steps, outcome);
    cursor = sentence.end;
  }
  out += text.slice(cursor);
  return { humanized_text: out, words_processed: countWords(text), model_used: model, outcome };
}

export function humanize(text: string, model: HumanizerModel): HumanizeResult {
  const { humanized_text, words_processed, model_used } = humanizeWithOutcome(text, model);
  return { humanized_text, words_processed, model_used };
}
