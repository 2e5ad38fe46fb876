import type { BffDetectResponse } from '@redline/shared';
import { compareDetections, type ScoredSentence } from '../lib/compare.ts';
import type { TabCheck, TabState } from '../lib/tab-state.ts';
import { documentVerdict, roundedShare } from '../lib/verdict.ts';
import { send } from './commands.ts';
import { Status } from './Status.tsx';
import { usePanelFocus } from './usePanelFocus.ts';
import { BandChip, BandLegend, ScoreText, SignalsNote } from './Verdict.tsx';

/** The offline detector labels a sentence AI only when its two scorers agree (README, "Detector: how good it is"). */
const OFFLINE_DETECTOR_NOTE =
  ' Checked by your team server’s built-in analyzer (offline mode): a rough first pass that labels a sentence AI only when two checks agree, so it rarely flags human writing but misses much machine writing, especially outside chat-assistant prose. Treat its labels as hints.';

const inWords = (share: number) => `${documentVerdict(share).label} (${roundedShare(share)})`;

function Sentence({ sentence }: { sentence: ScoredSentence }) {
  return (
    <>
      <BandChip score={sentence.score} ai={sentence.ai} /> <ScoreText score={sentence.score} /> <span class="sentence">{sentence.text}</span>
    </>
  );
}

/** The document and its changed sentences, before and after: shown after a re-check. */
function Comparison({ before, after }: { before: TabCheck; after: TabCheck }) {
  const comparison = compareDetections(before.response as BffDetectResponse, after.response as BffDetectResponse);
  return (
    <div class="comparison" data-testid="comparison">
      <h3>Before and after</h3>
      <p data-testid="compare-document">
        Before: <strong>{inWords(comparison.before)}</strong> → now: <strong>{inWords(comparison.after)}</strong>
      </p>
      <p class="muted">
        Compared with the check at {new Date(before.finishedAt ?? before.startedAt).toLocaleTimeString()}.{' '}
        {comparison.changes.length === 0 ? 'No sentence changed.' : `${comparison.changes.length} changed, ${comparison.unchanged} unchanged.`}
      </p>
      {comparison.changes.length > 0 && (
        <ol class="changes" data-testid="compare-sentences">
          {comparison.changes.map((change, index) => (
            <li key={index}>
              <p class="before">
                <span class="muted">Before: </span>
                {change.before.length ? change.before.map((sentence, k) => <Sentence key={k} sentence={sentence} />) : <span class="muted">(new text)</span>}
              </p>
              <p class="after">
                <span class="muted">Now: </span>
                {change.after.length ? change.after.map((sentence, k) => <Sentence key={k} sentence={sentence} />) : <span class="muted">(removed)</span>}
              </p>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

export function Detection({ tabId, check, previous, focus }: { tabId: number; check: TabCheck; previous?: TabCheck; focus?: TabState['focus'] }) {
  usePanelFocus(focus, 'detector');
  const response = check.response as BffDetectResponse | undefined;
  const details = response?.result.data.details;
  const flagged = (details?.chunks ?? []).map((chunk, index) => ({ chunk, index })).filter(({ chunk }) => chunk.type === 'AI');
  const live = check.live && new Set(check.live);
  const ignored = new Set(check.ignored ?? []);
  const share = details?.ai_percentage;
  return (
    <section aria-labelledby="ai-heading">
      <h2 id="ai-heading">AI writing</h2>
      <Status check={check} label="Checking" />
      {details && share !== undefined && (
        <>
          <p class="verdict" data-testid="verdict">
            {documentVerdict(share).label}
          </p>
          <p data-testid="share">{roundedShare(share)} of the text is in sentences labelled AI.</p>
          <details class="exact">
            <summary>Exact figure</summary>
            <p>
              <span class="exact-figure" data-testid="ai-percentage">
                {share}%
              </span>{' '}
              of the characters are in sentences labelled AI (the detector’s own figure). It is a share of characters, not an average of the sentence
              scores.
            </p>
          </details>
          <SignalsNote extra={response.source === 'offline' ? OFFLINE_DETECTOR_NOTE : undefined} />
          {previous?.status === 'done' && check.status === 'done' && <Comparison before={previous} after={check} />}
          {!details.chunks?.length ? (
            <p data-testid="no-sentence-labels">
              This result has no per-sentence labels: the figure is for the whole text, and nothing is highlighted.
            </p>
          ) : (
            <>
              <h3 data-testid="flagged-heading">
                {flagged.length === 0
                  ? 'No sentence is labelled AI.'
                  : live && live.size < flagged.length
                    ? `Sentences labelled AI (${flagged.filter(({ index }) => live.has(index)).length} of ${flagged.length} unchanged since the check)`
                    : `Sentences labelled AI (${flagged.length})`}
              </h3>
              {flagged.length > 0 && <BandLegend />}
            </>
          )}
          <ol class="items" data-testid="flagged-sentences">
            {flagged.map(({ chunk, index }) => (
              <li key={index} class={live && !live.has(index) ? 'stale' : undefined} data-product="detector" data-index={index} data-ignored={ignored.has(index) || undefined}>
                <button type="button" class="item" onClick={() => void send(tabId, { type: 'reveal', product: 'detector', index }, check.frameId)} title="Show in the page">
                  <BandChip score={chunk.score} ai /> <ScoreText score={chunk.score} />
                  <span class="sentence">{chunk.text}</span>
                  {ignored.has(index) ? (
                    <span class="muted"> (ignored on this page)</span>
                  ) : (
                    live && !live.has(index) && <span class="muted"> (changed since the check)</span>
                  )}
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
