import { diffWords } from 'diff';
import { useEffect, useRef, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import type { BffHumanizeResponse } from '@redline/shared';
import type { ApplyOutcome, ContentCommand, EditorInfo } from '../lib/messages.ts';
import type { Decision } from '../lib/report.ts';
import { changedShare, HEAVY_CHANGE } from '../lib/diff-view.ts';
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

/** Before and after side by side, each readable on its own: removed words marked in one, added words in the other. */
function SideBySide({ before, after }: { before: string; after: string }) {
  const parts = diffWords(before, after);
  return (
    <div class="side-by-side" data-testid="side-by-side">
      <div>
        <p class="muted">Before</p>
        <p class="diff">{parts.map((part, index) => (part.added ? null : part.removed ? <del key={index}>{part.value}</del> : <span key={index}>{part.value}</span>))}</p>
      </div>
      <div>
        <p class="muted">After</p>
        <p class="diff">{parts.map((part, index) => (part.removed ? null : part.added ? <ins key={index}>{part.value}</ins> : <span key={index}>{part.value}</span>))}</p>
      </div>
    </div>
  );
}

type View = 'inline' | 'side-by-side';

export interface RewriteReviewProps {
  tabId: number;
  check: TabCheck;
  keepTerms: string[];
  decisions: Record<number, Decision>;
  edits: Record<number, string>;
  /** Decisions taken together (Accept all's hundreds in one update, not one render each). */
  onDecide(decisions: Record<number, Decision>): void;
  onEdit(index: number, text: string | undefined): void;
  /** An AI check of the page finished before this re-check would run: the one to compare with. */
  hasEarlierCheck?: boolean;
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
    : editor.withTypingBefore
      ? `Here (${editor.name}), undo (Ctrl/Cmd+Z) right after an accept brings that sentence back together with what you typed since your last space, and redo brings both back.`
      : `Here (${editor.name}), accepts are not kept in the editor's undo history.`;
  const all = !editor.acceptIsOneStep ? ' Keep the original from the diff below if you may want it back.' : editor.acceptAll === 'one'
      ? ' Accept all is one undo step.'
      : editor.acceptAll === 'grouped'
        ? ' Accept all is usually one undo step (this editor groups quick edits); if the original does not come back, undo again.'
        : editor.acceptAll === 'each-unless-grouped'
          ? ' After Accept all, undo once per accepted suggestion; an editor that keeps its own history may bring several back with one undo.'
          : ' After Accept all, undo once per accepted suggestion.';
  // edit-regions.ts: only the changed words are replaced, one part at a time where formatting separates them.
  const parts = editor.acceptIsOneStep ? ' In a sentence with formatting inside it (bold words, a link), only the changed words are replaced, part by part, so the formatting stays; undo there takes a step per part.' : '';
  return `Accepted text is written into the editor and read back before it is marked accepted. ${one}${all}${parts}`;
}

const LOCKED = 'Not applied: the page has made this text read-only for now, so Redline changed nothing. When you can edit it again, press Accept again.';

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
  if (outcome === 'interrupted') return 'Not applied: you typed in the page while this suggestion was going in, so Redline stopped and left your text as it is. Press Accept again when you are ready.';
  if (outcome === 'overlapped') {
    return 'Not marked accepted: text was typed in this sentence, by you or a co-author, while the suggestion was going in. Redline left the text as it is, that typing included: check the sentence in the page (its undo, Ctrl/Cmd+Z, can help), then review again.';
  }
  if (outcome === 'locked') return LOCKED;
  if (outcome === 'embedded') {
    return 'Not applied: the words this suggestion changes hold an image, an embedded item or a mention, which replacing them would remove. Your text is as it was: edit the sentence by hand, or move the item out of it and press Accept again.';
  }
  if (outcome === 'unexpected') return 'The editor changed the text differently than asked. Use its undo (Ctrl/Cmd+Z) to restore your text, then review again.';
  if (outcome === 'no-rewrite') return 'The page no longer holds this rewrite (it was reloaded or navigated). Run Humanize again.';
  return undefined;
}

/** Sentence-by-sentence review of a rewrite: diff, review flags, accept, edit, reject, undo. */
export function RewriteReview({ tabId, check, keepTerms, decisions, edits, onDecide, onEdit, hasEarlierCheck }: RewriteReviewProps) {
  const response = check.response as BffHumanizeResponse | undefined;
  const suggestions = check.suggestions ?? [];
  const [editing, setEditing] = useState<number>();
  /** Why a suggestion is still pending after an accept (or still accepted after an undo), by suggestion index. */
  const [problems, setProblems] = useState<Record<number, string>>({});
  /** How each accepted suggestion went into the editor (for support and tests). */
  const [strategies, setStrategies] = useState<Record<number, string>>({});
  /** Views the reviewer chose; the others follow how heavy the change is. */
  const [views, setViews] = useState<Record<number, View>>({});
  /** Accepted suggestions that Undo can no longer take back (edited since). */
  const [undoGone, setUndoGone] = useState<Record<number, true>>({});
  /** Where the keyboard focus goes once a decision has re-rendered its item. */
  const [focusNext, setFocusNext] = useState<{ index: number; action: string }>();
  const listRef = useRef<HTMLOListElement>(null);
  /** Edits go into the page one at a time: a second click waits for the first edit's read-back. */
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const serially = (task: () => Promise<void>) => {
    const next = queue.current.then(task, task);
    queue.current = next.catch(() => undefined);
    return next;
  };
  useEffect(() => {
    if (!focusNext) return;
    listRef.current?.querySelector<HTMLElement>(`[data-index="${focusNext.index}"] [data-action="${focusNext.action}"]`)?.focus();
    setFocusNext(undefined);
  });
  const setProblem = (index: number, problem: string | undefined) =>
    setProblems((current) => {
      const next = { ...current };
      if (problem) next[index] = problem;
      else delete next[index];
      return next;
    });
  const settle = async (index: number, outcome: ApplyOutcome | undefined, text: string) => {
    if (outcome === 'applied' || outcome === 'withdrawn') onDecide({ [index]: outcome === 'applied' ? 'accepted' : 'withdrawn' });
    if (outcome === 'applied') setFocusNext({ index, action: 'undo' });
    setProblem(index, outcome && (await explain(outcome, text)));
  };
  // The writer took an accept back with the editor's own undo: pending again (keyed by content,
  // so a re-accept is not reverted by a later reload of the same list).
  const undoneKey = (check.undone ?? []).join(',');
  useEffect(() => {
    const undone = (check.undone ?? []).filter((index) => decisions[index] === 'accepted');
    if (undone.length === 0) return;
    onDecide(Object.fromEntries(undone.map((index) => [index, 'pending' as const])));
    for (const index of undone) setProblem(index, 'Undone in the editor: the original sentence is back, and this suggestion can be accepted again.');
  }, [undoneKey]);
  const live = check.live && new Set(check.live);
  const decisionOf = (suggestion: Suggestion): Decision => decisions[suggestion.index] ?? (live && !live.has(suggestion.index) ? 'withdrawn' : 'pending');

  const accept = (suggestion: Suggestion) => serially(() => acceptNow(suggestion));
  const acceptNow = async (suggestion: Suggestion) => {
    const text = edits[suggestion.index] ?? suggestion.suggestion;
    const { outcome, strategy } = await apply(tabId, check.frameId, suggestion.index, text);
    if (strategy) setStrategies((current) => ({ ...current, [suggestion.index]: strategy }));
    await settle(suggestion.index, outcome, text);
    setEditing(undefined);
  };
  const undo = (suggestion: Suggestion) => serially(() => undoNow(suggestion));
  const undoNow = async (suggestion: Suggestion) => {
    const command: ContentCommand = { type: 'undo', index: suggestion.index };
    const reply = (await browser.tabs.sendMessage(tabId, command, { frameId: check.frameId }).catch(() => undefined)) as { outcome?: ApplyOutcome } | undefined;
    const outcome = reply?.outcome ?? 'no-rewrite';
    if (outcome === 'applied') {
      onDecide({ [suggestion.index]: 'pending' });
      setFocusNext({ index: suggestion.index, action: 'accept' });
      setProblem(suggestion.index, undefined);
      return;
    }
    if (outcome === 'withdrawn' || outcome === 'no-rewrite') setUndoGone((current) => ({ ...current, [suggestion.index]: true }));
    setProblem(
      suggestion.index,
      outcome === 'withdrawn'
        ? 'This sentence was edited after it was accepted, so Undo here would overwrite that edit. Use the editor’s own undo (Ctrl/Cmd+Z) instead.'
        : await explain(outcome, suggestion.original),
    );
  };
  const acceptAll = () => serially(acceptAllNow);
  const acceptAllNow = async () => {
    const items = suggestions
      .filter((suggestion) => decisionOf(suggestion) === 'pending')
      .map((suggestion) => ({ index: suggestion.index, replacement: edits[suggestion.index] ?? suggestion.suggestion }));
    const wait = APPLY_ANSWER_MS * items.length;
    const reply = await ask<{ outcomes?: Record<number, ApplyOutcome> }>(tabId, check.frameId, { type: 'apply-all', items, deadline: Date.now() + wait }, wait);
    // Items without an outcome were not tried (an earlier one was refused): they stay pending.
    const outcomeOf = (index: number) => (reply === 'timeout' ? 'timeout' : reply ? reply.outcomes?.[index] : 'no-rewrite');
    // All decisions and notes in one update each: hundreds of suggestions re-rendered once, not once per suggestion.
    const decided: Record<number, Decision> = {};
    const notes: Record<number, string | undefined> = {};
    for (const { index, replacement } of items) {
      const outcome = outcomeOf(index);
      if (outcome === 'applied' || outcome === 'withdrawn') decided[index] = outcome === 'applied' ? 'accepted' : 'withdrawn';
      notes[index] = outcome === 'applied' || outcome === undefined ? undefined : await explain(outcome, replacement);
    }
    onDecide(decided);
    setProblems((current) => {
      const next = { ...current };
      for (const [index, note] of Object.entries(notes)) {
        if (note) next[Number(index)] = note;
        else delete next[Number(index)];
      }
      return next;
    });
    const firstAccepted = items.find(({ index }) => decided[index] === 'accepted');
    if (firstAccepted) setFocusNext({ index: firstAccepted.index, action: 'undo' });
    setEditing(undefined);
  };

  if (!response) return null;
  const pending = suggestions.filter((suggestion) => decisionOf(suggestion) === 'pending').length;
  const accepted = suggestions.filter((suggestion) => decisionOf(suggestion) === 'accepted').length;
  return (
    <>
      <p class="muted">A rewrite must be reviewed for meaning, facts, names, links, tone and required terminology.</p>
      <p class="muted" data-testid="undo-note">
        {undoText(check.editor)}
      </p>
      {suggestions.length === 0 && <p>The rewrite changes nothing.</p>}
      <ol class="items" data-testid="suggestions" ref={listRef}>
        {suggestions.map((suggestion, position) => {
          const text = edits[suggestion.index] ?? suggestion.suggestion;
          const flags = edits[suggestion.index] === undefined ? suggestion.flags : reviewFlags(suggestion.original, text, keepTerms);
          const decision = decisionOf(suggestion);
          const view: View = views[suggestion.index] ?? (changedShare(suggestion.original, text) > HEAVY_CHANGE ? 'side-by-side' : 'inline');
          const labelId = `suggestion-${suggestion.index}`;
          return (
            <li
              key={suggestion.index}
              class="suggestion"
              data-index={suggestion.index}
              data-decision={decision}
              data-view={view}
              data-strategy={strategies[suggestion.index]}
              aria-labelledby={labelId}
            >
              <p class="row between">
                <span id={labelId} class="muted">
                  Suggestion {position + 1} of {suggestions.length}
                </span>
                <button
                  type="button"
                  class="link"
                  data-action="view"
                  onClick={() => setViews((current) => ({ ...current, [suggestion.index]: view === 'inline' ? 'side-by-side' : 'inline' }))}
                >
                  {view === 'inline' ? 'Show before and after' : 'Show changes inline'}
                </button>
              </p>
              {view === 'inline' ? <WordDiff before={suggestion.original} after={text} /> : <SideBySide before={suggestion.original} after={text} />}
              {flags.length > 0 && (
                <ul class="flags" data-testid="flags">
                  {flags.map((flag, index) => (
                    <li key={index} class="error">
                      ⚠ {flag.message}
                    </li>
                  ))}
                </ul>
              )}
              {problems[suggestion.index] && (
                <p class="error" role="alert" data-testid="apply-problem">
                  {problems[suggestion.index]}
                </p>
              )}
              {decision === 'pending' ? (
                editing === suggestion.index ? (
                  <div>
                    <textarea rows={3} value={text} aria-label="Edit the suggestion" onInput={(event) => onEdit(suggestion.index, event.currentTarget.value)} />
                    <p class="row">
                      <button type="button" class="primary" data-action="accept" onClick={() => void accept(suggestion)}>
                        Accept edited
                      </button>
                      <button type="button" onClick={() => (onEdit(suggestion.index, undefined), setEditing(undefined))}>
                        Undo edit
                      </button>
                    </p>
                  </div>
                ) : (
                  <p class="row">
                    <button type="button" class="primary" data-action="accept" onClick={() => void accept(suggestion)}>
                      Accept
                    </button>
                    <button type="button" onClick={() => setEditing(suggestion.index)}>
                      Edit
                    </button>
                    <button type="button" data-action="reject" onClick={() => (onDecide({ [suggestion.index]: 'rejected' }), setFocusNext({ index: suggestion.index, action: 'reconsider' }))}>
                      Reject
                    </button>
                  </p>
                )
              ) : (
                <p class="row">
                  <span class="muted" data-testid="decision">
                    {decision === 'accepted' ? 'Accepted' : decision === 'rejected' ? 'Rejected' : 'Withdrawn: the text changed since the rewrite'}
                  </span>
                  {decision === 'accepted' && !undoGone[suggestion.index] && (
                    <button type="button" data-action="undo" onClick={() => void undo(suggestion)}>
                      Undo
                    </button>
                  )}
                  {decision === 'rejected' && (
                    <button type="button" data-action="reconsider" onClick={() => (onDecide({ [suggestion.index]: 'pending' }), setFocusNext({ index: suggestion.index, action: 'accept' }))}>
                      Reconsider
                    </button>
                  )}
                </p>
              )}
            </li>
          );
        })}
      </ol>
      {pending > 1 && (
        <p class="row">
          <button type="button" onClick={() => void acceptAll()}>
            Accept all ({pending})
          </button>
          <span class="muted">the remaining suggestions above, as they are shown</span>
        </p>
      )}
      {accepted > 0 && (
        <p class="row">
          <button type="button" data-testid="recheck-after-rewrite" onClick={() => void browser.tabs.sendMessage(tabId, { type: 'run', product: 'detector', targeted: true } satisfies ContentCommand, { frameId: check.frameId }).catch(() => undefined)}>
            Re-check for AI writing
          </button>
          <span class="muted">
            {hasEarlierCheck
              ? 'shows the score before and after, for the text and each changed sentence'
              : 'there is no AI check from before the rewrite, so this shows the new score only'}
          </span>
        </p>
      )}
    </>
  );
}
