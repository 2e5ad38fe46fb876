import type { HumanizerModel } from '../upstream/requests.ts';
import { countWords } from '../text.ts';
import { splitSentences } from '../sentences.ts';
import { findProtectedSpans, locateSpans, type Span } from './protected-spans.ts';
import { applyContractions, mixedContractions } from './rewrite/contractions.ts';
import { introducedProblems, protectedTextProblems, type GrammarProblem } from './rewrite/grammar-guard.ts';
import { rewriteOpener, type OpenerContext, type OpenerSteps } from './rewrite/openers.ts';
import { isFormalRegister, isLegalRegister } from './rewrite/register.ts';
import { CLARITY_PHRASES, CONNECTIVES, PLAIN_CONNECTIVES, PLAIN_PHRASES, type PhraseRule } from './rewrite/rules.ts';
import { SentenceEditor } from './rewrite/sentence-editor.ts';
import { splitClauses, splitComment } from './rewrite/splits.ts';
import { tag, type Token } from './rewrite/tagger.ts';
import { applyIntensifiers, applyPhrases, applySwaps } from './rewrite/word-edits.ts';

/**
 * A deterministic rule-based rewriter with four models of distinct character:
 * - cognia: light clarity edits: wordy phrases shortened ("in order to" → "to", "has the
 *   potential to" → "could"), filler dropped: empty openers ("It is important to note that …"),
 *   additive sentence openers ("Moreover,", "Furthermore,") and "very" before a plain
 *   adjective; the writer's words otherwise stay.
 * - lexi: plainer vocabulary: cognia's phrase edits, stiff phrases reworded, formal words
 *   swapped for plain ones ("utilize" → "use"), checked against the part of speech and keeping
 *   the verb form, and formal connectives given plain ones ("Moreover," → "Also,",
 *   "Consequently," → "As a result,"; never twice in three sentences).
 * - cognia_v2: sentence restructuring: cognia's edits, with the opening connective moved into
 *   the clause ("Moreover, students need" → "Students also need", "However, the plan failed" →
 *   "The plan, however, failed"), a comment on the whole clause made a sentence ("…, which
 *   means that" → "…. This means that", "…, leading to" → "…. This leads to"), and long
 *   sentences split where two full clauses meet.
 * - huma_v2: strongest voice change: lexi's words and cognia_v2's restructuring plus
 *   contractions (only where English allows them: not in "how hard it is to", "who you are",
 *   "than it is today"; and one choice per text: no "don't" beside "do not") and
 *   conversational connectives ("Thus," → "So,", "However," → "But"); hedges stay (dropping
 *   "it could be argued that" would make the writer assert what they may go on to rebut).
 *   Legal and academic text gets no contractions and no casual words or openers.
 * Every model keeps numbers, dates, links, e-mail addresses, quotations, `code` and
 * capitalised names exactly as written, and only the words it rewrites change (the writer's
 * spacing stays). Every rewritten sentence passes a tagger-based grammar check: a sentence
 * whose rewrite has a problem its original did not have is tried with fewer edits, and
 * otherwise stays as written.
 */

interface ModelSteps {
  phrases: PhraseRule[];
  swaps: boolean;
  openers: OpenerSteps;
  contractions: boolean;
  splits: boolean;
  /** Contractions left out in this text ("do not"), so that it does not mix "don't" and "do not". */
  skipContractions?: ReadonlySet<string>;
  /** Legal or academic text: no casual word swaps ("obtained" stays). */
  formal?: boolean;
}

const MODELS: Record<HumanizerModel, ModelSteps> = {
  cognia: { phrases: CLARITY_PHRASES, swaps: false, openers: { additive: 'drop' }, contractions: false, splits: false },
  lexi: { phrases: [...CLARITY_PHRASES, ...PLAIN_PHRASES], swaps: true, openers: { additive: 'table', table: PLAIN_CONNECTIVES }, contractions: false, splits: false },
  cognia_v2: { phrases: CLARITY_PHRASES, swaps: false, openers: { additive: 'move', moveOthers: true }, contractions: false, splits: true },
  huma_v2: { phrases: [...CLARITY_PHRASES, ...PLAIN_PHRASES], swaps: true, openers: { additive: 'move', table: CONNECTIVES }, contractions: true, splits: true },
};

export interface SentenceOutcome {
  /** Sentences rewritten and emitted, with their originals. */
  rewritten: Array<{ original: string; rewrite: string }>;
  /** Sentences whose rewrite the grammar check refused, with what it found. */
  refused: Array<{ original: string; rewrite: string; problems: GrammarProblem[] }>;
}

function draft(sentence: string, tokens: Token[], frozen: Span[], steps: ModelSteps, context: OpenerContext): string {
  const editor = new SentenceEditor(sentence, tokens, frozen);
  applyPhrases(editor, steps.phrases);
  applyIntensifiers(editor);
  if (steps.contractions) applyContractions(editor, steps.skipContractions ?? new Set());
  if (steps.swaps) applySwaps(editor, steps.formal === true);
  let candidate = editor.result();
  // The text's protected spans, found in the edited sentence (a quotation may run on from an earlier sentence).
  let kept = locateSpans(sentence, frozen, candidate);
  if (kept) {
    const opened = rewriteOpener(candidate, kept, steps.openers, context);
    if (opened !== candidate) {
      candidate = opened;
      kept = locateSpans(sentence, frozen, candidate);
    }
  }
  if (steps.splits && kept) {
    const commented = splitComment(candidate, kept);
    const keptAfter = commented === candidate ? kept : locateSpans(sentence, frozen, commented);
    candidate = keptAfter ? splitClauses(commented, keptAfter) : commented;
  }
  return candidate;
}

/**
 * The sentence's rewrite: the model's full set of edits, or, when the grammar check refuses
 * that, the same without splits, then without plain-word swaps and phrases too (so that one bad split or swap does not
 * cost the sentence its contractions: a text would mix "don't" and "do not").
 */
function rewriteSentence(sentence: string, frozen: Span[], steps: ModelSteps, outcome: SentenceOutcome, context: OpenerContext): string {
  const tokens = tag(sentence);
  if (!tokens) return sentence;
  const attempts = [steps];
  if (steps.splits) attempts.push({ ...steps, splits: false });
  if (steps.swaps || steps.phrases !== CLARITY_PHRASES) attempts.push({ ...steps, splits: false, swaps: false, phrases: CLARITY_PHRASES });
  const saved = { ...context };
  let first = true;
  for (const attempt of attempts) {
    Object.assign(context, saved);
    const candidate = draft(sentence, tokens, frozen, attempt, context);
    if (candidate === sentence) return sentence;
    const problems = [...introducedProblems(sentence, candidate), ...protectedTextProblems(sentence, frozen, candidate)];
    if (problems.length === 0) {
      outcome.rewritten.push({ original: sentence, rewrite: candidate });
      return candidate;
    }
    if (first) outcome.refused.push({ original: sentence, rewrite: candidate, problems });
    first = false;
  }
  Object.assign(context, saved, { since: (saved.since ?? 0) + 1 });
  return sentence;
}

export interface HumanizeResult {
  humanized_text: string;
  words_processed: number;
  model_used: HumanizerModel;
}

function rewriteText(text: string, steps: ModelSteps, outcome: SentenceOutcome): string {
  const protectedSpans = findProtectedSpans(text);
  const context: OpenerContext = {};
  let out = '';
  let cursor = 0;
  for (const sentence of splitSentences(text)) {
    const frozen = protectedSpans
      .filter((span) => span.end > sentence.start && span.start < sentence.end)
      .map((span) => ({ start: Math.max(span.start, sentence.start) - sentence.start, end: Math.min(span.end, sentence.end) - sentence.start }));
    out += text.slice(cursor, sentence.start) + rewriteSentence(sentence.text, frozen, steps, outcome, context);
    cursor = sentence.end;
  }
  return out + text.slice(cursor);
}

/** The rewrite with what the grammar check refused (for evaluation and tests). */
export function humanizeWithOutcome(text: string, model: HumanizerModel): HumanizeResult & { outcome: SentenceOutcome } {
  let steps = MODELS[model];
  const formal = isFormalRegister(text);
  if (formal) steps = { ...steps, formal };
  if (steps.contractions && formal) steps = { ...steps, contractions: false, openers: { additive: 'move', table: PLAIN_CONNECTIVES } };
  if (steps.splits && isLegalRegister(text)) steps = { ...steps, splits: false };
  let outcome: SentenceOutcome = { rewritten: [], refused: [] };
  let out = rewriteText(text, steps, outcome);
  if (steps.contractions) {
    // One text, one choice: a negation the rewrite could not contract everywhere stays in full everywhere.
    const mixed = mixedContractions(text, out);
    if (mixed.length > 0) {
      steps = { ...steps, skipContractions: new Set(mixed) };
      outcome = { rewritten: [], refused: [] };
      out = rewriteText(text, steps, outcome);
    }
  }
  return { humanized_text: out, words_processed: countWords(text), model_used: model, outcome };
}

export function humanize(text: string, model: HumanizerModel): HumanizeResult {
  const { humanized_text, words_processed, model_used } = humanizeWithOutcome(text, model);
  return { humanized_text, words_processed, model_used };
}
