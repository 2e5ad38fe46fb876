import { diffWords } from 'diff';
import { useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import type { BffHumanizeResponse } from '@redline/shared';
import type { ApplyOutcome, ContentCommand, EditorInfo } from '../lib/messages.ts';
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

/**
 * The page answers an apply within its own time limit (apply.ts); this one covers a page that
 * cannot answer at all (a frozen or discarded tab), so an accept never waits forever.
 */
const APPLY_ANSWER_MS = 12_000;

function ask<T>(tabId: number, frameId: number, command: ContentCommand, ms: number): Promise<T | 'timeout' | undefined> {
  return Promise.race([
    (browser.tabs.sendMessage(tabId, command, { frameId }) as Promise<T>).catch(() => undefined),
    new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms)),
  ]);
}

const apply = async (tabId: number, frameId: number, index: number, replacement: string): Promise<{ outcome: ApplyOutcome; strategy?: string }> => {
  const deadline = Date.now() + APPLY_ANSWER_MS;
  const reply = await ask<{ outcome?: ApplyOutcome; strategy?: string }>(tabId, frameId, { type: 'apply', index, replacement, deadline }, APPLY_ANSWER_MS);
  if (reply === 'timeout') return { outcome: 'timeout' };
  return { outcome: reply?.outcome ?? 'no-rewrite', strategy: reply?.strategy };
};

/** What undo does after accepting, for the editor at hand (as tested; README, "Editors"). */
export function undoText(editor: EditorInfo | undefined): string {
  if (!editor) return 'Accepted text goes into the editor as an ordinary edit; check the result before you go on.';
  const one = editor.acceptIsOneStep
    ? `Here (${editor.name}), undo (Ctrl/Cmd+Z) in the editor right after an accept brings that sentence back.`
    : `Here (${editor.name}), accepts are not kept in the editor's undo history.`;
  const all = !editor.acceptIsOneStep ? ' Keep the original from the diff below if you may want it back.' : editor.acceptAll === 'one' ? ' Accept all is one undo step.' : ' After Accept all, undo once per accepted suggestion.';
  return `Accepted text is written into the editor and read back before it is marked accepted. ${one}${all}`;
}

/** The writer's next step when the editor did not take an accepted suggestion. */
async function explain(outcome: ApplyOutcome, text: string): Promise<string | undefined> {
  if (outcome === 'refused' || outcome === 'reverted') {
    const why =
      outcome === 'refused'
        ? 'This editor did not take the change, so nothing was changed.'
        : 'Not applied: the editor turned the suggestion into different text, so Redline put your sentence back as it was.';
    // Put there on purpose, and said so: the writer's next step is to paste it.
    const copied = await navigator.clipboard.writeText(text).then(
      () => true,
      () => false,
    );
    return copied
      ? `${why} The suggestion is on your clipboard: paste it (Ctrl/Cmd+V) over the selected sentence in the page.`
      : `${why} Copy the suggestion below and paste it over the selected sentence in the page.`;
  }
  if (outcome === 'timeout') {
    return 'Not applied: the editor did not take the change within a few seconds (a tab in the background does not update its page), and your text is as it was. Switch to the page, click into it, then press Accept again.';
  }
  if (outcome === 'unexpected') return 'The editor changed the text differently than asked. Use its undo (Ctrl/Cmd+Z) to restore your text, then review again.';
  if (outcome === 'no-rewrite') return 'The page no longer holds this rewrite (it was reloaded or navigated). Run Humanize again.';
  return undefined;
}

/** Sentence-by-sentence review of a rewrite: word diff, review flags, accept, edit, reject. */
export function RewriteReview({ tabId, check, keepTerms, decisions, edits, onDecide, onEdit }: RewriteReviewProps) {
  const response = check.response as BffHumanizeResponse | undefined;
  const suggestions = check.suggestions ?? [];
  const [editing, setEditing] = useState<number>();
  /** Why a suggestion is still pending after an accept, by suggestion index. */
  const [problems, setProblems] = useState<Record<number, string>>({});
  /** How each accepted suggestion went into the editor (for support and tests). */
  const [strategies, setStrategies] = useState<Record<number, string>>({});
  const settle = async (index: number, outcome: ApplyOutcome | undefined, text: string) => {
    if (outcome === 'applied' || outcome === 'withdrawn') onDecide(index, outcome === 'applied' ? 'accepted' : 'withdrawn');
    const problem = outcome && (await explain(outcome, text));
    setProblems((current) => {
      const next = { ...current };
      if (problem) next[index] = problem;
      else delete next[index];
      return next;
    });
  };
  const live = check.live && new Set(check.live);
  const decisionOf = (suggestion: Suggestion): Decision => decisions[suggestion.index] ?? (live && !live.has(suggestion.index) ? 'withdrawn' : 'pending');

  const accept = async (suggestion: Suggestion) => {
    const text = edits[suggestion.index] ?? suggestion.suggestion;
    const { outcome, strategy } = await apply(tabId, check.frameId, suggestion.index, text);
    if (strategy) setStrategies((current) => ({ ...current, [suggestion.index]: strategy }));
    await settle(suggestion.index, outcome, text);
    setEditing(undefined);
  };
  const acceptAll = async () => {
    const items = suggestions
      .filter((suggestion) => decisionOf(suggestion) === 'pending')
      .map((suggestion) => ({ index: suggestion.index, replacement: edits[suggestion.index] ?? suggestion.suggestion }));
    const wait = APPLY_ANSWER_MS * items.length;
    const reply = await ask<{ outcomes?: Record<number, ApplyOutcome> }>(tabId, check.frameId, { type: 'apply-all', items, deadline: Date.now() + wait }, wait);
    // Items without an outcome were not tried (an earlier one was refused): they stay pending.
    for (const { index, replacement } of items) {
      await settle(index, reply === 'timeout' ? 'timeout' : reply ? reply.outcomes?.[index] : 'no-rewrite', replacement);
    }
    setEditing(undefined);
  };

  if (!response) return null;
  const pending = suggestions.filter((suggestion) => decisionOf(suggestion) === 'pending').length;
  return (
    <>
      <p class="muted">
        Model {response.result.model_used}. A rewrite must be reviewed for meaning, facts, names, links, tone and required terminology.
      </p>
      <p class="muted" data-testid="undo-note">
        {undoText(check.editor)}
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
            <li key={suggestion.index} class="suggestion" data-decision={decision} data-strategy={strategies[suggestion.index]}>
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
              {problems[suggestion.index] && decision === 'pending' && (
                <p class="error" role="alert" data-testid="apply-problem">
                  {problems[suggestion.index]}
                </p>
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
