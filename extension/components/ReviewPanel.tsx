import { useEffect, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import type { BffDetectResponse, BffPlagiarismResponse } from '@redline/shared';
import type { ContentCommand, ProductName } from '../lib/messages.ts';
import { formatScore } from '../lib/format.ts';
import { buildReport, reportHtml, type Decision } from '../lib/report.ts';
import { HUMANIZER_MODELS, type HumanizerModel } from '@redline/shared';
import { getSettings, updateSettings } from '../lib/settings.ts';
import { RewriteReview } from './RewriteReview.tsx';
import type { TabCheck } from '../lib/tab-state.ts';
import { Elapsed } from './Elapsed.tsx';
import { useReviewedTab, useTabState } from './useTabState.ts';

/** To the frame that holds the check's text (the page itself when unknown). */
const send = (tabId: number, command: ContentCommand, frameId = 0) => browser.tabs.sendMessage(tabId, command, { frameId }).catch(() => undefined);

function Status({ check, label }: { check: TabCheck; label: string }) {
  if (check.status === 'checking') {
    return (
      <p aria-live="polite">
        {label}: {check.words.toLocaleString()} words… <Elapsed since={check.startedAt} />
      </p>
    );
  }
  if (check.status === 'error') return <p class="error" role="alert">{check.error?.message}</p>;
  return null;
}

function Detection({ tabId, check }: { tabId: number; check: TabCheck }) {
  const response = check.response as BffDetectResponse | undefined;
  const details = response?.result.data.details;
  const flagged = (details?.chunks ?? []).map((chunk, index) => ({ chunk, index })).filter(({ chunk }) => chunk.type === 'AI');
  const live = check.live && new Set(check.live);
  return (
    <section aria-labelledby="ai-heading">
      <h2 id="ai-heading">AI writing</h2>
      <Status check={check} label="Checking" />
      {details && (
        <>
          <p>
            <span class="figure" data-testid="ai-percentage">{details.ai_percentage}%</span> of the characters are in sentences labelled AI.
          </p>
          <p class="muted">
            This is the share of characters inside AI-labelled sentences, not an average of the sentence scores. Results are probabilistic
            review signals, not proof of authorship.
            {response.source === 'offline' && ' Checked by the BFF’s built-in analyzer (offline mode).'}
          </p>
          {!details.chunks?.length ? (
            <p data-testid="no-sentence-labels">This detector version gives no per-sentence labels: the figure is for the whole text, and nothing is highlighted. Version v3 (options) labels each sentence.</p>
          ) : (
            <h2 data-testid="flagged-heading">
              {flagged.length === 0
                ? 'No sentence is labelled AI.'
                : live && live.size < flagged.length
                  ? `Sentences labelled AI (${flagged.filter(({ index }) => live.has(index)).length} of ${flagged.length} unchanged since the check)`
                  : `Sentences labelled AI (${flagged.length})`}
            </h2>
          )}
          <ol class="items" data-testid="flagged-sentences">
            {flagged.map(({ chunk, index }) => (
              <li key={index} class={live && !live.has(index) ? 'stale' : undefined}>
                <button type="button" class="item" onClick={() => void send(tabId, { type: 'reveal', product: 'detector', index }, check.frameId)} title="Show in the page">
                  <span class="score">{formatScore(chunk.score)}</span>
                  {chunk.text}
                  {live && !live.has(index) && <span class="muted"> (changed since the check)</span>}
                </button>
              </li>
            ))}
          </ol>
        </>
      )}
      <button type="button" onClick={() => void send(tabId, { type: 'run', product: 'detector', targeted: true }, check.frameId)}>
        Re-check
      </button>
    </section>
  );
}

function Sources({ tabId, check }: { tabId: number; check: TabCheck }) {
  const response = check.response as BffPlagiarismResponse | undefined;
  const result = response?.result.result;
  const matches = (result?.results ?? []).map((match, index) => ({ match, index })).filter(({ match }) => match.is_plagiarised);
  const live = check.live && new Set(check.live);
  return (
    <section aria-labelledby="sources-heading">
      <h2 id="sources-heading">Sources</h2>
      <Status check={check} label="Checking sources" />
      {result && (
        <>
          <p>
            <span class="figure" data-testid="plagiarism-score">{result.plagiarism_score}%</span> of the characters are in sentences with a similar
            source.
          </p>
          <p class="muted">No match is not proof of originality: the check is not exhaustive. Each match needs human review.</p>
          <ol class="items" data-testid="source-matches">
            {matches.map(({ match, index }) => (
              <li key={index} class={live && !live.has(index) ? 'source stale' : 'source'}>
                <button type="button" class="item" onClick={() => void send(tabId, { type: 'reveal', product: 'plagiarism', index }, check.frameId)} title="Show in the page">
                  {match.sentence}
                </button>
                <p class="muted">
                  {Math.round(match.similarity * 100)}% similar to “{match.web_sentence}”
                </p>
                <a href={match.link} target="_blank" rel="noopener noreferrer">
                  {match.link}
                </a>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

function download(name: string, type: string, content: string) {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([content], { type }));
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

export function ReviewPanel() {
  const tabId = useReviewedTab();
  const state = useTabState(tabId);
  const checks = state?.checks ?? {};
  const [keepTerms, setKeepTerms] = useState<string[]>([]);
  const [model, setModel] = useState<HumanizerModel>('cognia');
  const [decisions, setDecisions] = useState<Record<number, Decision>>({});
  const [edits, setEdits] = useState<Record<number, string>>({});
  const rewriteId = checks.humanizer?.operationId;
  useEffect(
    () =>
      void getSettings().then((settings) => {
        setKeepTerms(settings.keepTerms);
        setModel(settings.defaultModel);
      }),
    [],
  );
  const humanizeWith = async (chosen: HumanizerModel) => {
    setModel(chosen);
    await updateSettings({ defaultModel: chosen }); // remembered for the next rewrite
    if (tabId !== undefined) await send(tabId, { type: 'run', product: 'humanizer', targeted: true }, checks.humanizer?.frameId);
  };
  useEffect(() => {
    setDecisions({});
    setEdits({});
  }, [rewriteId]);
  const exportReport = (format: 'json' | 'html') => {
    if (!state) return;
    const report = buildReport(state, decisions, edits);
    if (format === 'json') download('redline-review.json', 'application/json', JSON.stringify(report, null, 2));
    else download('redline-review.html', 'text/html', reportHtml(report));
  };
  const has = (product: ProductName) => checks[product] !== undefined;
  return (
    <main>
      <h1>Review</h1>
      {tabId === undefined || !state || !(has('detector') || has('plagiarism') || has('humanizer')) ? (
        <p class="muted">
          Select text or click into an editor, then use “Check for AI writing” (Alt+Shift+A), “Check sources” (Alt+Shift+S) or “Humanize”
          (Alt+Shift+H) from the context menu or keyboard.
        </p>
      ) : (
        <>
          {checks.detector && <Detection tabId={tabId} check={checks.detector} />}
          {checks.plagiarism && <Sources tabId={tabId} check={checks.plagiarism} />}
          {checks.humanizer && (
            <section aria-labelledby="rewrite-heading">
              <h2 id="rewrite-heading">Rewrite</h2>
              <p class="row">
                <label for="model">Model</label>
                <select id="model" value={model} onChange={(event) => setModel(event.currentTarget.value as HumanizerModel)}>
                  {HUMANIZER_MODELS.map((option) => (
                    <option key={option} value={option}>
                      {option}
                    </option>
                  ))}
                </select>
                <button type="button" onClick={() => void humanizeWith(model)}>
                  Rewrite again
                </button>
              </p>
              <Status check={checks.humanizer} label="Humanizing" />
              <RewriteReview
                tabId={tabId}
                check={checks.humanizer}
                keepTerms={keepTerms}
                decisions={decisions}
                edits={edits}
                onDecide={(index, decision) => setDecisions((current) => ({ ...current, [index]: decision }))}
                onEdit={(index, text) =>
                  setEdits((current) => {
                    const next = { ...current };
                    if (text === undefined) delete next[index];
                    else next[index] = text;
                    return next;
                  })
                }
              />
            </section>
          )}
          <h2>Report</h2>
          <p class="row">
            <button type="button" onClick={() => exportReport('html')}>Export HTML</button>
            <button type="button" onClick={() => exportReport('json')}>Export JSON</button>
          </p>
        </>
      )}
    </main>
  );
}
