import { z } from 'zod';
import { MAX_TEXT_CHARACTERS } from '../limits.ts';
import { countCharacters, hasVisibleText } from '../text.ts';

export const DETECTOR_VERSIONS = ['v1', 'v2', 'v3'] as const;
export const DetectorVersion = z.enum(DETECTOR_VERSIONS);
export type DetectorVersion = z.infer<typeof DetectorVersion>;
/** The version for new integrations, and the MCP default. */
export const DEFAULT_DETECTOR_VERSION: DetectorVersion = 'v3';

export const HUMANIZER_MODELS = ['cognia', 'lexi', 'cognia_v2', 'huma_v2'] as const;
export const HumanizerModel = z.enum(HUMANIZER_MODELS);
export type HumanizerModel = z.infer<typeof HumanizerModel>;
/** The MCP default model. */
export const DEFAULT_HUMANIZER_MODEL: HumanizerModel = 'cognia';

/**
 * Text accepted by every operation: at least one non-whitespace character (an empty text
 * has nothing to analyse and costs zero words, so it is refused rather than sent), and at
 * most 160,000 characters counted as code points.
 */
export const AnalysableText = z
  .string({ error: 'text must be a string' })
  .refine(hasVisibleText, 'text is empty: give at least one word')
  .refine(
    (text) => countCharacters(text) <= MAX_TEXT_CHARACTERS,
    `text is longer than ${MAX_TEXT_CHARACTERS.toLocaleString('en-US')} characters`,
  );

export const DetectRequest = z.object({ text: AnalysableText, version: DetectorVersion });
export type DetectRequest = z.infer<typeof DetectRequest>;

export const HumanizeRequest = z.object({ text: AnalysableText, model: HumanizerModel });
export type HumanizeRequest = z.infer<typeof HumanizeRequest>;

export const PlagiarismRequest = z.object({ text: AnalysableText });
export type PlagiarismRequest = z.infer<typeof PlagiarismRequest>;
