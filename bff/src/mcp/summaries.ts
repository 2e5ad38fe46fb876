import type { DetectResponseLegacy, HumanizeResponse, PlagiarismResponse } from '@redline/shared';
import type { BffError } from '@redline/shared';
import type { OperationOutcome } from '../operations/engine.ts';

/** Short sentences for people (and assistants) reading a tool result; the full result travels beside them. */

const words = (count: number) => `${count.toLocaleString('en-US')} word${count === 1 ? '' : 's'}`;
const percent = (value: number) => `${Math.round(value * 10) / 10}%`;

function charged(outcome: OperationOutcome, chargedBefore: number): string {
  const where = outcome.source === 'offline' ? ' (offline analyzers; nothing left this server)' : '';
  // A repeat is often the only answer the assistant gets (the first call's connection dropped):
  // it says what the operation charged, or "nothing charged" would read as a free check.
  if (outcome.replayed) {
    const once = outcome.wordsCharged === 0 ? `Nothing was charged${where} for it` : `${words(outcome.wordsCharged)} charged${where} for it once`;
    return `Repeated request with the same idempotency_key: the stored result. ${once}; nothing charged again.`;
  }
  // A repeat after a failure completes what earlier calls began: their words were charged then and
  // said so, and the whole operation's count here would read as charged (again) by this call.
  if (chargedBefore > 0) {
    return `${words(outcome.wordsCharged - chargedBefore)} charged now${where}; earlier calls with this idempotency_key were charged ${words(chargedBefore)} for it, so ${words(outcome.wordsCharged)} for the whole operation, none twice.`;
  }
  return `${words(outcome.wordsCharged)} charged${where}.`;
}

export function detectionSummary(outcome: OperationOutcome, chargedBefore = 0): string {
  const { data } = outcome.result as DetectResponseLegacy;
  const chunks = data.details.chunks;
  const labelled = chunks?.filter((chunk) => chunk.type === 'AI').length ?? 0;
  const sentences = chunks ? ` ${labelled} of ${chunks.length} sentence${chunks.length === 1 ? ' is' : 's are'} labelled AI.` : '';
  return (
    `AI-writing detector ${data.version}: ${percent(data.details.ai_percentage)} of the characters lie in sentences labelled AI.${sentences} ` +
    `Scores are probabilistic review signals, not proof of authorship. ${charged(outcome, chargedBefore)}`
  );
}

export function humanizationSummary(outcome: OperationOutcome, chargedBefore = 0): string {
  const result = outcome.result as HumanizeResponse;
  return (
    `Rewritten with the ${result.model_used} model. Review it for meaning, facts, names, links, tone and required terms before using it. ` +
    `${charged(outcome, chargedBefore)}\n\n${result.humanized_text}`
  );
}

export function sourcesSummary(outcome: OperationOutcome, chargedBefore = 0): string {
  const { result } = outcome.result as PlagiarismResponse;
  const flagged = result.results.filter((match) => match.is_plagiarised);
  const links = [...new Set(flagged.map((match) => match.link))].slice(0, 5);
  const found =
    flagged.length === 0
      ? 'No sentence matched a web source. That does not prove the text appears nowhere else.'
      : `${flagged.length} sentence${flagged.length === 1 ? '' : 's'} matched web sources (${percent(result.plagiarism_score)} of the characters), for example ${links.join(', ')}. Each match needs human review: quotation, permission and common phrasing change its meaning.`;
  return `${found} ${charged(outcome, chargedBefore)}`;
}

export function errorSummary(error: BffError): string {
  return `${error.message} (${error.code})`;
}
