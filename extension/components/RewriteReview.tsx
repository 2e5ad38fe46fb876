import { diffWords } from 'diff';
import { useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import type { BffHumanizeResponse } from '@redline/shared';
import type { ApplyOutcome, ContentCommand } from '../lib/messages.ts';
import type { Decision } from '../lib/report.ts';
import { reviewFlags } from '../lib/review-aids.ts';
import type { Suggestion } from '../lib/rewrite.ts';
import type { TabCheck } from '../lib/tab-state.ts';

function WordDiff({ before, after }: { before: string; after: string }) {
  return (
    <p class="diff">
      {diffWords(before, after).map((part, index) =>
        part.added ? <ins key={index}>{part.value}</ins> : part.removed ? <del key={index}>{part.value}</del> : <span key={index}>{part.value}</span>,
      )}
    </p>
  );
}

export interface RewriteReviewProps {
  tabId: number;
  check: TabCheck;
  keepTerms: string[];
  decisions: Record<number, Decision>;
  edits: Record<number, string>;
  onDecide(index: number, decision: Decision): void;
  onEdit(index: number, text: string | undefined): void;
}

const apply = async (tabId: number, frameId: number, index: number, replacement: string): Promise<ApplyOutcome> => {
  const command: ContentCommand = { type: 'apply', index, replacement };
  const reply = (await browser.tabs.sendMessage(tabId, command, { frameId }).catch(() => undefined)) as { outcome?: ApplyOutcome } | undefined;
  return reply?.outcome ?? 'withdrawn';
};

/** Sentence-by-sentence review of a rewrite: word diff, review flags, accept, edit, reject. */
export function RewriteReview({ tabId, check, keepTerms, decisions, edits, onDecide, onEdit }: RewriteReviewProps) {
  const response = check.response as BffHumanizeResponse | undefined;
  const suggestions = check.suggestions ?? [];
  const [editing, setEditing] = useState<number>();
  const live = check.live && new Set(check.live);
  const decisionOf = (suggestion: Suggestion): Decision => decisions[suggestion.index] ?? (live && !live.has(suggestion.index) ? 'withdrawn' : 'pending');

  const accept = async (suggestion: Suggestion) => {
    const outcome = await apply(tabId, check.frameId, suggestion.index, edits[suggestion.index] ?? suggestion.suggestion);
    onDecide(suggestion.index, outcome === 'applied' ? 'accepted' : 'withdrawn');
    setEditing(undefined);
  };
  const acceptAll = async () => {
    const items = suggestions
      .filter((suggestion) => decisionOf(suggestion) === 'pending')
      .map((suggestion) => ({ index: suggestion.index, replacement: edits[suggestion.index] ?? suggestion.suggestion }));
    const command: ContentCommand = { type: 'apply-all', items };
    const reply = (await browser.tabs.sendMessage(tabId, command, { frameId: check.frameId }).catch(() => undefined)) as
      | { outcomes?: Record<number, ApplyOutcome> }
      | undefined;
    for (const { index } of items) onDecide(index, reply?.outcomes?.[index] === 'applied' ? 'accepted' : 'withdrawn');
    setEditing(undefined);
  };

  if (!response) return null;
  const pending = suggestions.filter((suggestion) => decisionOf(suggestion) === 'pending').length;
  return (
    <>
      <p class="muted">
        Model {response.result.model_used}. A rewrite must be reviewed for meaning, facts, names, links, tone and required terminology. Accepted
        text goes into the editor as an ordinary edit: undo (Ctrl/Cmd+Z) brings the original back.
      </p>
      {suggestions.length === 0 && <p>The rewrite changes nothing.</p>}
      {pending > 1 && (
        <p>
          <button type="button" class="primary" onClick={() => void acceptAll()}>
            Accept all ({pending})
          </button>
        </p>
      )}
      <ol class="items" data-testid="suggestions">
        {suggestions.map((suggestion) => {
          const text = edits[suggestion.index] ?? suggestion.suggestion;
          const flags = edits[suggestion.index] === undefined ? suggestion.flags : reviewFlags(suggestion.original, text, keepTerms);
          const decision = decisionOf(suggestion);
          return (
            <li key={suggestion.index} class="suggestion" data-decision={decision}>
              <WordDiff before={suggestion.original} after={text} />
              {flags.length > 0 && (
                <ul class="flags" data-testid="flags">
                  {flags.map((flag, index) => (
                    <li key={index} class="error">
                      ⚠ {flag.message}
                    </li>
                  ))}
                </ul>
              )}
              {decision === 'pending' ? (
                editing === suggestion.index ? (
                  <div>
                    <textarea rows={3} value={text} aria-label="Edit the suggestion" onInput={(event) => onEdit(suggestion.index, event.currentTarget.value)} />
                    <p class="row">
                      <button type="button" class="primary" onClick={() => void accept(suggestion)}>Accept edited</button>
                      <button type="button" onClick={() => (onEdit(suggestion.index, undefined), setEditing(undefined))}>Undo edit</button>
                    </p>
                  </div>
                ) : (
                  <p class="row">
                    <button type="button" class="primary" onClick={() => void accept(suggestion)}>Accept</button>
                    <button type="button" onClick={() => setEditing(suggestion.index)}>Edit</button>
                    <button type="button" onClick={() => onDecide(suggestion.index, 'rejected')}>Reject</button>
                  </p>
                )
              ) : (
                <p class="muted" data-testid="decision">
                  {decision === 'accepted' ? 'Accepted' : decision === 'rejected' ? 'Rejected' : 'Withdrawn: the text changed since the rewrite'}
                </p>
              )}
            </li>
          );
        })}
      </ol>
    </>
  );
}
