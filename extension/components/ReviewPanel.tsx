import { useEffect, useState } from 'preact/hooks';
import type { BffHumanizeResponse } from '@redline/shared';
import type { ProductName } from '../lib/messages.ts';
import { describeModel, MODEL_NAMES } from '../lib/models.ts';
import { buildReport, reportHtml, type Decision } from '../lib/report.ts';
import { HUMANIZER_MODELS, type HumanizerModel } from '@redline/shared';
import { getSettings, updateSettings } from '../lib/settings.ts';
import { CheckButtons } from './CheckButtons.tsx';
import { send } from './commands.ts';
import { Detection } from './Detection.tsx';
import { History } from './History.tsx';
import { RewriteReview } from './RewriteReview.tsx';
import { Sources } from './Sources.tsx';
import { Status } from './Status.tsx';
import { useReviewedTab, useTabState } from './useTabState.ts';

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
  const rewrite = checks.humanizer?.response as BffHumanizeResponse | undefined;
  const chosen = describeModel(model, rewrite?.source);
  const used = rewrite && describeModel(rewrite.result.model_used, rewrite.source);
  // Another model's rewrite of the same text that came out the same: said, or "Rewrite again" looks broken.
  const earlier = state?.previous?.humanizer;
  const earlierRewrite = earlier?.status === 'done' ? (earlier.response as BffHumanizeResponse | undefined) : undefined;
  const sameAsEarlier =
    rewrite && earlierRewrite && earlier!.text === checks.humanizer!.text && earlierRewrite.result.model_used !== rewrite.result.model_used && earlierRewrite.result.humanized_text === rewrite.result.humanized_text
      ? describeModel(earlierRewrite.result.model_used, earlierRewrite.source)
      : undefined;
  const frameId = (checks.detector ?? checks.humanizer ?? checks.plagiarism)?.frameId;
  return (
    <main>
      <h1>Review</h1>
      <CheckButtons tabId={tabId} frameId={frameId} />
      {tabId === undefined || !state || !(has('detector') || has('plagiarism') || has('humanizer')) ? (
        <p class="muted">
          Click into an editor or select text in the page, then choose a check above, or use “Check for AI writing” (Alt+Shift+A), “Check sources”
          (Alt+Shift+S) or “Humanize” (Alt+Shift+H) from the context menu or keyboard.
        </p>
      ) : (
        <>
          {checks.detector && <Detection tabId={tabId} check={checks.detector} previous={state.previous?.detector} focus={state.focus} />}
          {checks.plagiarism && <Sources tabId={tabId} check={checks.plagiarism} focus={state.focus} />}
          {checks.humanizer && (
            <section aria-labelledby="rewrite-heading">
              <h2 id="rewrite-heading">Rewrite</h2>
              {used && (
                <p data-testid="model-used">
                  Rewritten by <strong>{used.name}</strong>: {used.description}
                </p>
              )}
              {sameAsEarlier && used && (
                <p class="muted" data-testid="same-rewrite">
                  {used.name} made the same suggestions as {sameAsEarlier.name} for this text: both make only these edits here. Another model may change more.
                </p>
              )}
              <p class="row">
                <label for="model">Model</label>
                <select id="model" value={model} aria-describedby="model-description" onChange={(event) => setModel(event.currentTarget.value as HumanizerModel)}>
                  {HUMANIZER_MODELS.map((option) => (
                    <option key={option} value={option}>
                      {MODEL_NAMES[option]}
                    </option>
                  ))}
                </select>
                <button type="button" onClick={() => void humanizeWith(model)}>
                  Rewrite again
                </button>
              </p>
              <p class="muted" id="model-description" data-testid="model-description">
                {chosen.name}: {chosen.description}
                {chosen.note ? ` ${chosen.note}` : ''}
              </p>
              <Status check={checks.humanizer} label="Humanizing" />
              <RewriteReview
                tabId={tabId}
                check={checks.humanizer}
                keepTerms={keepTerms}
                hasEarlierCheck={checks.detector?.status === 'done'}
                decisions={decisions}
                edits={edits}
                onDecide={(decided) => setDecisions((current) => ({ ...current, ...decided }))}
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
      <History currentUrl={state?.url} />
    </main>
  );
}
