/**
 * How detector results are put into words: one source for the page highlights, the card, the side
 * panel, the popup and the report, so a band reads the same everywhere.
 */

/** Bands for sentences the detector labelled AI, by its score (above 0.5 is labelled AI). */
export const SCORE_BANDS = [
  { id: 'ai-1', label: 'Somewhat AI-like', below: 0.7, light: 'rgba(255, 153, 0, 0.22)', dark: 'rgba(255, 170, 60, 0.30)' },
  { id: 'ai-2', label: 'AI-like', below: 0.85, light: 'rgba(255, 120, 0, 0.36)', dark: 'rgba(255, 140, 40, 0.45)' },
  { id: 'ai-3', label: 'Very AI-like', below: Infinity, light: 'rgba(235, 80, 0, 0.5)', dark: 'rgba(255, 110, 40, 0.6)' },
] as const;

export type ScoreBand = (typeof SCORE_BANDS)[number];

export function scoreBand(score: number): ScoreBand {
  return SCORE_BANDS.find((band) => score < band.below) ?? SCORE_BANDS[SCORE_BANDS.length - 1]!;
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
