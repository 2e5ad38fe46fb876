import { findProtectedSpans, mergeSpans, type Span } from '../protected-spans.ts';
import { clauseVerb, MODAL_WORDS } from './clauses.ts';
import { isPluralNoun } from './rules.ts';
import { isWord, keepsOwnCase, withCaseOf } from './sentence-editor.ts';
import { tag, type Token } from './tagger.ts';

/** Restructuring: long sentences split where two full clauses meet, and a comment on the whole clause made a sentence of its own. */

const JOINING = new Set(['and', 'but', 'so']);
/** Opening connectives that link the sentence to the one before, not phrases that scope over it. */
const DISCOURSE_CONNECTIVES = new Set(['however', 'moreover', 'furthermore', 'additionally', 'also', 'thus', 'therefore', 'still', 'but', 'so', 'in addition', 'consequently', 'as a result', 'nevertheless', 'nonetheless']);
/** "He said the company was growing, and it would hire": split, the second claim loses its source. */
const REPORTING = new Set(['say', 'tell', 'believe', 'think', 'argue', 'claim', 'report', 'state', 'suggest', 'note', 'explain', 'add', 'insist', 'warn', 'announce', 'write']);
const SUBORDINATORS = new Set(['if', 'although', 'though', 'because', 'when', 'whenever', 'while', 'since', 'unless', 'whereas', 'as', 'after', 'before', 'once', 'until', 'whether']);
/** Sentence openers whose hypothesis or instruction covers the whole sentence. */
const SCOPING_OPENERS = new Set(['maybe', 'perhaps', 'possibly', 'sometimes', 'suppose', 'supposing', 'assume', 'assuming', 'imagine', 'check', 'ensure', 'verify']);
const WH_WORDS = new Set(['what', 'whatever', 'who', 'whoever', 'whom', 'whose', 'which', 'whichever', 'where', 'wherever', 'when', 'how', 'why']);

/** Sentences no split can be right in. */
function mayBeSplit(sentence: string, tokens: Token[]): boolean {
  // A question or exclamation cut in two loses its mark on the first half.
  if (/[?!]["'”’)]*$/u.test(sentence.trimEnd())) return false;
  const first = tokens.find(isWord);
  if (!first) return false;
  // "If A, but B, C": the first half is a dependent clause and would stand alone; "How would
  // you feel if …, and he tells you" and "Is it …" are questions without their mark.
  if (first.pos === 'SCONJ' || first.pos === 'AUX' || SUBORDINATORS.has(first.lower) || WH_WORDS.has(first.lower)) return false;
  // "Maybe A, and B", "Suppose A, but B", "Check that A, and that B": the opener scopes over
  // both halves; split, B would be asserted ("Maybe the server has two names. The pages refer to both.").
  if (SCOPING_OPENERS.has(first.lower)) return false;
  // "Not only A, but B" is one statement.
  if (/(?:\bnot|n['’]t) (?:only|just)\b/iu.test(sentence)) return false;
  if (tokens.some((token) => (token.pos === 'VERB' && REPORTING.has(token.lemma)) || token.lower === 'according')) return false;
  // "in a number of ways; A; B; or C" is a list of clauses.
  const semicolons = tokens.filter((token) => token.text === ';').length;
  return semicolons < 2 || !tokens.some((token, i) => token.text === ';' && tokens[i + 1]?.pos === 'CCONJ');
}

/** Whether offset `at` is inside brackets, a $…$ formula or a pair of dashes ("—they live …, and they inhale …—"). */
function isEnclosed(sentence: string, at: number): boolean {
  const before = sentence.slice(0, at);
  const count = (pattern: RegExp) => (before.match(pattern) ?? []).length;
  const dashes = /—|--| – /gu;
  const insideDashes = count(dashes) % 2 === 1 && dashes.test(sentence.slice(at));
  return count(/\(/gu) > count(/\)/gu) || count(/\[/gu) > count(/\]/gu) || count(/\{/gu) > count(/\}/gu) || count(/\$/gu) % 2 === 1 || insideDashes;
}

/**
 * A left half that stops inside a phrase: "The film goes into several, and I have to say some
 * pretty wild, turns", or a garbled "has made more, and more students".
 */
function endsOpen(words: Token[]): boolean {
  const [before, last] = [words.at(-2), words.at(-1)!];
  return (last.pos === 'ADJ' || last.pos === 'DET') && (before?.pos === 'ADP' || before?.pos === 'DET' || before?.pos === 'VERB');
}

/**
 * "The students were tested in May, and the results published in June": the right half's
 * verb leans on the left half's auxiliary.
 */
function leansOnAuxiliary(left: Token[], right: Token[], verb: number): boolean {
  const word = right[verb]!;
  return word.pos === 'VERB' && word.lower.endsWith('ed') && left.some((token) => token.pos === 'AUX');
}

/** "A; b" and "A, and/but/so b" become two sentences when both sides are full clauses of 5+ words. */
export function splitClauses(sentence: string, kept: Span[]): string {
  const tokens = tag(sentence);
  if (!tokens || !mayBeSplit(sentence, tokens)) return sentence;
  const frozen = mergeSpans([...findProtectedSpans(sentence), ...kept]);
  const isFrozen = (token: Token) => frozen.some((span) => span.start <= token.start && span.end > token.start);
  let out = '';
  let cursor = 0;
  let clauseStart = 0;
  for (let i = 0; i < tokens.length; i++) {
    const joint = tokens[i]!;
    if (joint.text !== ';' && joint.text !== ',') continue;
    const conjunction = joint.text === ',' ? tokens[i + 1] : undefined;
    if (joint.text === ',' && !(conjunction?.pos === 'CCONJ' && JOINING.has(conjunction.lower))) continue;
    if (isFrozen(joint) || isEnclosed(sentence, joint.start)) continue;
    const left = tokens.slice(clauseStart, i);
    const restFrom = conjunction ? i + 2 : i + 1;
    let restEnd = restFrom;
    while (restEnd < tokens.length && !(tokens[restEnd]!.text === ';' || (tokens[restEnd]!.text === ',' && tokens[restEnd + 1]?.pos === 'CCONJ'))) restEnd++;
    const leftWords = left.filter(isWord);
    const rightWords = tokens.slice(restFrom, restEnd).filter(isWord);
    if (leftWords.length < 5 || rightWords.length < 5) continue;
    // A comma before ", and" in the same clause suggests a list ("a, b, and c").
    // The comma after an opening connective ("However, …", "Thus, …") is not a list's. Other
    // opening phrases scope over both halves ("Notwithstanding the foregoing, A, and B", "In 2010,
    // A, and B", "For example, A, and B"): split, B would lose them.
    const opening = (k: number) => {
      const before = left.slice(0, k).filter(isWord).map((t) => t.lower).join(' ');
      return k === left.findIndex((t) => t.text === ',') && DISCOURSE_CONNECTIVES.has(before);
    };
    if (joint.text === ',' && left.some((t, k) => t.text === ',' && !opening(k))) continue;
    // "Only practicing up to college's core education; …" has no clause on the left.
    if (!leftWords.some((t) => t.pos === 'AUX' || (t.pos === 'VERB' && !t.lower.endsWith('ing')))) continue;
    // "Merely make a spread angle of two poles, and you cannot stand them up" is a condition, not
    // an order and a statement; "Steering now south-eastward …, and her progress determined …;"
    // is no clause ("Raising taxes won't balance the budget" is: its gerund is the subject). The
    // tagger may call a capitalised "Steering" a name.
    const leftOpener = leftWords.find((t) => t.pos !== 'ADV')!;
    const imperative = leftOpener.pos === 'VERB' && leftOpener.lower === leftOpener.lemma;
    if (imperative && conjunction?.lower === 'and' && rightWords[0]!.lower === 'you') continue;
    const participle = (leftOpener.pos === 'VERB' || leftOpener.pos === 'PROPN') && leftOpener.lower.endsWith('ing');
    if (participle && !leftWords.some((t) => t.pos === 'AUX')) continue;
    // "both new functions and types in libdbus, and new methods": the "and" may be the "both"'s.
    if (conjunction?.lower === 'and' && leftWords.some((t) => t.lower === 'both')) continue;
    const verb = clauseVerb(rightWords);
    if (verb < 0 || leansOnAuxiliary(leftWords, rightWords, verb)) continue;
    // "…their freedom, but insufficient means, should be continued": the subject runs on from the left.
    if (tokens.slice(restFrom, tokens.indexOf(rightWords[verb]!)).some((t) => t.text === ',')) continue;
    // "standards that respect …, but that also recognize …": a relative clause in parallel, not a new sentence.
    if (rightWords[0]!.lower === 'that' && leftWords.some((t, k) => t.lower === 'that' && ['NOUN', 'PROPN'].includes(leftWords[k - 1]?.pos ?? ''))) continue;
    // "…, and that regression tests run fine": "that" before a plural noun, a determiner or a
    // pronoun opens a clause that some verb on the left governs ("That regression tests run fine." is no sentence).
    if (rightWords[0]!.lower === 'that' && (isPluralNoun(rightWords[1]) || ['DET', 'PRON'].includes(rightWords[1]?.pos ?? ''))) continue;
    // "(i) analyze …, and (ii) evaluate …": an enumerated list, its items cut apart.
    if (/^\s*\(?(?:[ivx]{1,4}|[a-h]|\d{1,2})\)\s/iu.test(sentence.slice(tokens[restFrom]!.start))) continue;
    // "works fine if you forget the first seasons, and you keep …": the "and" may go on the dependent clause.
    if (leftWords.some((t) => t.pos === 'SCONJ' || SUBORDINATORS.has(t.lower))) continue;
    if (endsOpen(leftWords) || leftWords.at(-1)!.lower === rightWords[0]!.lower) continue;
    // "…, so many people came" is not "So many people came."
    if (conjunction?.lower === 'so' && (rightWords[0]!.pos === 'ADJ' || rightWords[0]!.pos === 'ADV')) continue;
    const next = tokens[restFrom]!;
    // The writer's spacing stays: what followed the joint ("first;  it treats" has two spaces) follows the full stop.
    const gap = (from: number, to: number) => sentence.slice(from, to) || ' ';
    const opener = conjunction && conjunction.lower !== 'and' ? `${withCaseOf('X', conjunction.lower)}${gap(conjunction.end, next.start)}` : '';
    if (isFrozen(next) && !/^\p{Lu}/u.test(next.text)) continue;
    // "in the U.S., and": a full stop after an abbreviation's would be doubled.
    if (sentence.slice(cursor, joint.start).trimEnd().endsWith('.')) continue;
    if (opener === '' && keepsOwnCase(next)) continue;
    const nextText = opener === '' ? next.text[0]!.toUpperCase() + next.text.slice(1) : next.text;
    out += `${sentence.slice(cursor, joint.start).trimEnd()}.${gap(joint.end, (conjunction ?? next).start)}${opener}${nextText}`;
    cursor = next.end;
    clauseStart = restFrom;
  }
  return out + sentence.slice(cursor);
}

/**
 * Participles that report a consequence of the whole clause: ", leading to X" is "This leads
 * to X". Some only with the word that shows the sense: "making it easier", not "making money".
 */
const CONSEQUENCE_PARTICIPLES: Record<string, (next: Token | undefined) => boolean> = {
  leading: (next) => next?.lower === 'to',
  contributing: (next) => next?.lower === 'to',
  resulting: (next) => next?.lower === 'in',
  allowing: () => true,
  enabling: () => true,
  causing: () => true,
  ensuring: () => true,
  reducing: () => true,
  increasing: () => true,
  improving: () => true,
  creating: () => true,
  fostering: () => true,
  promoting: () => true,
  highlighting: () => true,
  providing: (next) => next?.pos === 'NOUN' || next?.pos === 'PRON' || next?.pos === 'DET' || next?.pos === 'ADJ',
  making: (next) => next !== undefined && ['it', 'them', 'him', 'her', 'us', 'you', 'me', 'everyone', 'people'].includes(next.lower),
  giving: (next) => next !== undefined && ['them', 'him', 'her', 'us', 'you', 'me', 'everyone', 'people', 'students'].includes(next.lower),
  helping: (next) => next !== undefined && (next.lower === 'to' || ['them', 'him', 'her', 'us', 'you', 'me', 'everyone', 'people', 'students'].includes(next.lower)),
};
const IRREGULAR_PAST: Record<string, string> = { lead: 'led', make: 'made', give: 'gave' };

function consequenceVerb(lemma: string, tense: string): string {
  if (MODAL_WORDS.has(tense)) return `${tense} ${lemma}`;
  if (tense === 'perfect') return `has ${lemma === 'give' ? 'given' : consequenceVerb(lemma, 'past')}`;
  if (tense === 'past') return IRREGULAR_PAST[lemma] ?? (lemma.endsWith('e') ? `${lemma}d` : `${lemma}ed`);
  return /(?:s|sh|ch|x|z)$/u.test(lemma) ? `${lemma}es` : `${lemma}s`;
}

const PAST_AUXILIARIES = new Set(['was', 'were', 'had', 'did']);

/**
 * ", which" + a verb that agrees with "This" and comments on the clause ("which means", "which
 * can help", "which is essential"), after a word that is not itself what "which" describes.
 * A verb or adjective that describes a thing ("the slocate package, which provides a
 * replacement", "the command, which is rarely useful", "GNU make 4.4, which made some changes")
 * would make "This" name the whole clause instead (an outside probe: 13 of 53 such splits).
 */
function commentsOnClause(before: Token, rest: Token[]): boolean {
  const [verb, next, after] = rest;
  if (verb === undefined || next === undefined) return false;
  // A name, a number or a quoted or bracketed term just before the comma is what "which" describes.
  if (['PROPN', 'NUM'].includes(before.pos) || /["'”’)\]]$/u.test(before.text)) return false;
  if (verb.pos === 'AUX' && verb.lower === 'is') return COMMENT_ADJECTIVES.has((next.pos === 'ADV' ? after : next)?.lower ?? '');
  if (verb.pos === 'AUX' && MODAL_WORDS.has(verb.lower)) return next.pos === 'VERB' && CONSEQUENCE_VERBS.has(next.lemma);
  if (verb.pos !== 'VERB' || verb.lower === verb.lemma || verb.lower.endsWith('ing')) return false;
  // "which makes it harder", "which made them wait": a consequence; "which made some changes": a description.
  const consequence = CONSEQUENCE_VERBS.has(verb.lemma) || (verb.lemma === 'make' && ['PRON', 'ADJ'].includes(next.pos));
  return consequence && (/[^s]s$/u.test(verb.lower) || ['led', 'made', 'meant'].includes(verb.lower) || verb.lower.endsWith('ed'));
}

/** Verbs after ", which" that say what the clause brought about ("which means", "which leads to"), rather than what a thing does. */
const CONSEQUENCE_VERBS = new Set(['mean', 'lead', 'allow', 'help', 'result', 'cause', 'enable', 'ensure', 'reduce', 'increase', 'improve', 'contribute']);
/** Adjectives after ", which is" that judge the clause ("which is essential"), rather than describe a thing ("which is rarely useful", "more or less equivalent"). */
const COMMENT_ADJECTIVES = new Set([
  'essential', 'important', 'crucial', 'vital', 'critical', 'necessary', 'beneficial', 'problematic', 'concerning', 'worrying', 'alarming', 'unfortunate',
  'surprising', 'remarkable', 'significant', 'understandable', 'unusual', 'impressive', 'encouraging', 'promising', 'unacceptable', 'inevitable',
]);


/**
 * The tense of the clause's main verb (the first finite-looking verb outside a relative clause:
 * "By obtaining opinions from varied sources, I broaden my view" is in the present): 'past',
 * 'present', or the modal it uses ("The software could detect …, providing" → "This could
 * provide"); undefined when the finite-looking verbs disagree: the tagger may take a word in a
 * name or a reduced relative for the main verb ("git send-email lacked", "Users surprised by it
 * might file", "This positioned advice helps"), and a wrong tense makes the comment assert
 * something else ("…might file bugs. This increased the effort").
 */
function clauseTenseIfClear(words: Token[]): string | undefined {
  const verbs = clauseTenses(words);
  if (verbs[0] === undefined) return 'present';
  // An auxiliary first ("was", "might", "has") is the clause's own; a later word taken for a verb ("an in-core merge") is not.
  if (verbs[0].auxiliary) return verbs[0].tense;
  return new Set(verbs.map((verb) => verb.tense)).size === 1 ? verbs[0].tense : undefined;
}

/** The tense of each finite-looking verb of the clause outside a relative clause, in order, and whether it is an auxiliary. */
function clauseTenses(words: Token[]): Array<{ tense: string; auxiliary: boolean }> {
  const tenses: Array<{ tense: string; auxiliary: boolean }> = [];
  for (let k = 0; k < words.length; k++) {
    const t = words[k]!;
    let j = k - 1;
    while (j >= 0 && words[j]!.pos === 'ADV') j--;
    const before = words[j];
    // A relative clause's verb is not the main clause's: "Students who were tired use phones".
    if (before !== undefined && ['who', 'that', 'which', 'whom'].includes(before.lower)) continue;
    if (t.pos === 'AUX') {
      // "The emotions being read may …": "being" and "been" head no clause.
      if (before?.pos === 'AUX' || before?.lower === 'to' || /^(being|been|be|having)$/u.test(t.lower)) continue;
      // "have led to more events, causing damage" → "This has caused damage".
      if ((t.lower === 'have' || t.lower === 'has') && words[k + 1]?.pos === 'VERB' && words[k + 1]!.lower !== words[k + 1]!.lemma) tenses.push({ tense: 'perfect', auxiliary: true });
      else tenses.push({ tense: MODAL_WORDS.has(t.lower) ? t.lower : PAST_AUXILIARIES.has(t.lower) ? 'past' : 'present', auxiliary: true });
      continue;
    }
    if (t.pos !== 'VERB' || t.lower.endsWith('ing') || before?.lower === 'to' || before?.pos === 'AUX') continue;
    // "from varied sources", "the associated risks", "forcefully recruited members": not a clause's verb.
    if (before !== undefined && !['NOUN', 'PRON', 'PROPN', 'PUNCT'].includes(before.pos)) continue;
    // "the concerns linked to them is": a participle after its noun, not the clause's verb.
    if (t.lower.endsWith('ed') && before?.pos === 'NOUN' && (words[k + 1]?.pos === 'ADP' || words[k + 1] === undefined)) continue;
    tenses.push({ tense: t.lower !== t.lemma && !/[^s]s$/u.test(t.lower) ? 'past' : 'present', auxiliary: false });
  }
  return tenses;
}

/** Whether the words hold a clause's verb: an auxiliary, an inflected verb, or a bare one after its subject ("Students also utilize"). */
function hasFiniteVerb(words: Token[]): boolean {
  return words.some((t, k) => {
    if (t.pos === 'AUX') return true;
    if (t.pos !== 'VERB' || t.lower.endsWith('ing')) return false;
    if (t.lower !== t.lemma) return true;
    let j = k - 1;
    while (j >= 0 && words[j]!.pos === 'ADV') j--;
    return ['PRON', 'NOUN', 'PROPN'].includes(words[j]?.pos ?? '');
  });
}

/**
 * Restructuring: a comment on the whole clause becomes a sentence of its own. "X, which means
 * that Y" → "X. This means that Y"; "X, which is why Y" → "X. That is why Y"; "X, leading to
 * Y" → "X. This leads to Y" (in the clause's tense). Only after a full clause of 5+ words,
 * never where the main clause goes on after the comment ("The phone, which is old, works").
 */
export function splitComment(sentence: string, kept: Span[]): string {
  const tokens = tag(sentence);
  if (!tokens || !mayBeSplit(sentence, tokens)) return sentence;
  const frozen = mergeSpans([...findProtectedSpans(sentence), ...kept]);
  const isFrozen = (token: Token) => frozen.some((span) => span.start < token.end && span.end > token.start);
  for (let i = 1; i + 1 < tokens.length; i++) {
    const comma = tokens[i]!;
    const word = tokens[i + 1]!;
    if (comma.text !== ',' || isFrozen(comma) || isFrozen(word) || isEnclosed(sentence, comma.start)) continue;
    const leftWords = tokens.slice(0, i).filter(isWord);
    const rest = tokens.slice(i + 2);
    const restWords = rest.filter(isWord);
    if (leftWords.length < 5 || restWords.length < 3) continue;
    if (!hasFiniteVerb(leftWords)) continue;
    // Not after a dependent or relative clause ("If X, which …"); "act as a demotivator" has a preposition, not a conjunction.
    if (leftWords.some((t) => t.pos === 'SCONJ' || (SUBORDINATORS.has(t.lower) && t.pos !== 'ADP') || t.lower === 'which' || t.lower === 'who' || t.lower === 'whom')) continue;
    // The main clause must not go on after the comment ("The phone I bought, which is old, works"):
    // no later comma before an auxiliary or a finite verb ("…, missed lectures, and …" is a list).
    const verbAfter = (k: number) => {
      let j = k + 1;
      while (rest[j]?.pos === 'ADV') j++;
      return rest[j]?.pos === 'AUX' || (rest[j]?.pos === 'VERB' && !/(?:ed|ing)$/u.test(rest[j]!.lower));
    };
    if (rest.some((t, k) => t.text === ',' && verbAfter(k))) continue;
    // "The phone that I bought, which …": a relative clause on the left may still want its verb.
    if (leftWords.some((t, k) => t.lower === 'that' && t.pos === 'PRON' && ['NOUN', 'PROPN'].includes(leftWords[k - 1]?.pos ?? ''))) continue;
    if (rest.some((t) => t.text === ';' || t.text === ':' || isFrozen(t))) continue;
    let replacement: string | undefined;
    let to = i + 1;
    if (word.lower === 'which') {
      const verb = rest[0];
      if (verb?.lower === 'is' && rest[1]?.lower === 'why') replacement = 'That';
      else if (commentsOnClause(tokens[i - 1]!, rest)) replacement = 'This';
    } else if (word.lower === 'because') {
      // "X, because Y" → "X. This is because Y", when Y is a full clause ("because of" is not).
      const reason = rest.filter(isWord);
      const tense = clauseTenseIfClear(leftWords);
      if (clauseVerb(reason) >= 0 && rest[0]?.lower !== 'of' && tense !== undefined) replacement = tense === 'past' ? 'This was because' : 'This is because';
    } else {
      // ", offering X, providing Y, avoiding Z": one of a list of participles.
      const listed = tokens.some((t, k) => k !== i && t.text === ',' && tokens[k + 1]?.pos === 'VERB' && tokens[k + 1]!.lower.endsWith('ing'));
      if (listed) continue;
      const fits = CONSEQUENCE_PARTICIPLES[word.lower];
      // ", reducing air quality and increasing …": both participles would have to change.
      const coordinated = rest.some((t, k) => {
        if (t.pos !== 'CCONJ') return false;
        let j = k + 1;
        while (rest[j] !== undefined && (rest[j]!.pos === 'ADV' || rest[j]!.pos === 'PART')) j++;
        return rest[j]?.pos === 'VERB' && rest[j]!.lower.endsWith('ing');
      });
      // "results in" reads as a noun to the tagger, so the guard could not check it: "leads to" says the same.
      const lemma = word.lemma === 'result' ? 'lead' : word.lemma;
      const tense = clauseTenseIfClear(leftWords);
      if (fits && word.pos === 'VERB' && fits(rest[0]) && !coordinated && tense !== undefined) {
        replacement = `This ${consequenceVerb(lemma, tense)}`;
        // ", resulting in X" → ". This leads to X".
        if (word.lemma === 'result') {
          replacement += ' to';
          to = i + 2;
        }
      }
    }
    if (replacement === undefined) continue;
    if (sentence.slice(0, comma.start).trimEnd().endsWith('.')) continue;
    return `${sentence.slice(0, comma.start)}. ${replacement}${sentence.slice(tokens[to]!.end)}`;
  }
  return sentence;
}
