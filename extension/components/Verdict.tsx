import type { JSX } from 'preact';
import { SCORE_BANDS, SIGNALS_NOT_PROOF, scoreBand, type ScoreBand } from '../lib/verdict.ts';
import { formatScore } from '../lib/format.ts';

/** Score bands in the page's colours (light pages) and their dark-scheme twins. */
export const bandStyle = (band: ScoreBand) => ({ '--band-light': band.light, '--band-dark': band.dark }) as JSX.CSSProperties;

/** A sentence's band in words, coloured as its highlight in the page. */
export function BandChip({ score, ai }: { score: number; ai: boolean }) {
  if (!ai) return <span class="band band-none">Not labelled AI</span>;
  const band = scoreBand(score);
  return (
    <span class="band" data-band={band.id} style={bandStyle(band)}>
      {band.label}
    </span>
  );
}

export function ScoreText({ score }: { score: number }) {
  return <span class="score muted">score {formatScore(score)}</span>;
}

/** What each band means: the same bands and colours as the highlights in the page. */
export function BandLegend() {
  return (
    <div class="legend" role="group" aria-labelledby="legend-title" data-testid="legend">
      <p id="legend-title" class="muted">
        Sentence bands (same colours as in the page), by the detector’s score for the sentence:
      </p>
      <ul>
        {SCORE_BANDS.map((band, index) => (
          <li key={band.id}>
            <span class="band" data-band={band.id} style={bandStyle(band)}>
              {band.label}
            </span>{' '}
            <span class="muted">
              {index === 0 ? 'above 0.5' : `from ${SCORE_BANDS[index - 1]!.below}`}
              {band.below === Infinity ? ' up to 1' : ` to ${band.below}`}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function SignalsNote({ extra }: { extra?: string }) {
  return (
    <p class="signals" data-testid="signals-note">
      {SIGNALS_NOT_PROOF}
      {extra}
    </p>
  );
}
