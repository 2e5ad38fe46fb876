import type { HumanizerModel } from '@redline/shared';

/** The humanizer models as people read them. */
export const MODEL_NAMES: Record<HumanizerModel, string> = {
  cognia: 'Cognia',
  lexi: 'Lexi',
  cognia_v2: 'Cognia v2',
  huma_v2: 'Huma v2',
};

/**
 * What is known about each model, by who rewrites. The analysis service documents only the
 * four names and that Cognia is its default, so nothing more is claimed for it. The BFF's
 * built-in (offline) humanizer is this project's own, and its models are described in
 * `shared/src/analysis/humanizer.ts`.
 */
const SERVICE: Record<HumanizerModel, string> = {
  cognia: 'The service’s default model.',
  lexi: 'One of the service’s four models.',
  cognia_v2: 'A second version of Cognia.',
  huma_v2: 'One of the service’s four models.',
};

const SERVICE_NOTE = 'The service does not say how its models differ: try two on one paragraph and keep the rewrite that reads best.';

const OFFLINE: Record<HumanizerModel, string> = {
  cognia: 'Light clarity edits: wordy phrases shortened, empty openers dropped; your words otherwise stay.',
  lexi: 'Plainer words: Cognia’s edits, and formal words swapped for plain ones.',
  cognia_v2: 'Restructures: Cognia’s edits, and long sentences split where two full clauses meet.',
  huma_v2: 'Strongest change of voice: all of the above, plus contractions and conversational connectives.',
};

/** A model described in words, for the rewrite's source (`upstream`: the analysis service). */
export function describeModel(model: HumanizerModel, source: 'upstream' | 'offline' | undefined): { name: string; description: string; note?: string } {
  if (source === 'offline') return { name: MODEL_NAMES[model], description: OFFLINE[model] };
  return { name: MODEL_NAMES[model], description: SERVICE[model], note: SERVICE_NOTE };
}
