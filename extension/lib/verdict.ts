/**
 * How detector results are put into words: one source for the page highlights, the card, the side
 * panel, the popup and the report, so a band reads the same everywhere.
 */

/**
 * Bands for sentences the detector labelled AI, by its score (above 0.5 is labelled AI). Each
 * band is a tint behind the text plus an underline of its own style, so bands differ by more
 * than colour. Colours are chosen for contrast (test/extension/verdict.test.ts): dark text stays
 * at 4.5:1 or more over the light tints, light text over the dark ones, and each underline is
 * 3:1 or more against a white (light) or near-black (dark) page.
 */
export const SCORE_BANDS = [
  {
    id: 'ai-1', label: 'Somewhat AI-like', from: 0.5, below: 0.7,
    light: 'rgba(255, 170, 0, 0.22)', dark: 'rgba(255, 190, 60, 0.22)',
    underline: { style: 'dotted', light: '#a15c00', dark: '#f5b942' },
  },
  {
    id: 'ai-2', label: 'AI-like', from: 0.7, below: 0.85,
    light: 'rgba(255, 120, 0, 0.32)', dark: 'rgba(255, 140, 40, 0.32)',
    underline: { style: 'dashed', light: '#b83e00', dark: '#ff9a4d' },
  },
  {
    id: 'ai-3', label: 'Very AI-like', from: 0.85, below: Infinity,
    light: 'rgba(235, 80, 0, 0.42)', dark: 'rgba(255, 110, 40, 0.42)',
    underline: { style: 'solid', light: '#8f2a00', dark: '#ff7a3d' },
  },
] as const;

export type ScoreBand = (typeof SCORE_BANDS)[number];

export function scoreBand(score: number): ScoreBand {
  return SCORE_BANDS.find((band) => score < band.below) ?? SCORE_BANDS[SCORE_BANDS.length - 1]!;
}

/** A band's scores in words, for the legend: "scores 0.50 to 0.69". */
export function bandRange(band: ScoreBand): string {
  const upper = band.below === Infinity ? '1' : (band.below - 0.01).toFixed(2);
  return `scores ${band.from.toFixed(2)} to ${upper}`;
}

export const DOCUMENT_VERDICTS = [
  { id: 'human', label: 'Mostly human-written', below: 20 },
  { id: 'mixed', label: 'Mixed', below: 60 },
  { id: 'ai', label: 'Mostly AI-like', below: Infinity },
] as const;

export type DocumentVerdict = (typeof DOCUMENT_VERDICTS)[number];

/** The verdict for a document from the share (0–100) of its characters in sentences labelled AI. */
export function documentVerdict(aiPercentage: number): DocumentVerdict {
  return DOCUMENT_VERDICTS.find((verdict) => aiPercentage < verdict.below) ?? DOCUMENT_VERDICTS[DOCUMENT_VERDICTS.length - 1]!;
}

/**
 * The share in whole percent, never rounded to a certainty it does not have: 0.3 reads
 * "under 1%", 99.7 reads "over 99%", 49.85 reads "50%".
 */
export function roundedShare(aiPercentage: number): string {
  if (aiPercentage <= 0) return '0%';
  if (aiPercentage >= 100) return '100%';
  if (aiPercentage < 1) return 'under 1%';
  if (aiPercentage > 99) return 'over 99%';
  return `${Math.round(aiPercentage)}%`;
}

/** Kept visible beside every verdict. */
export const SIGNALS_NOT_PROOF = 'Detector results are signals, not proof of how a text was written.';
