import { z } from 'zod';
import { DetectorVersion, HumanizerModel } from './requests.ts';

// Response schemas are lenient: unknown fields are dropped, never an error, so an upstream
// that adds fields does not break a client. Offsets are code point offsets (see text.ts).

export const ChunkLabel = z.enum(['AI', 'Human']);
export type ChunkLabel = z.infer<typeof ChunkLabel>;

/** A score above this gets the label `AI`. */
export const AI_LABEL_THRESHOLD = 0.5;

const Offset = z.number().int().nonnegative();
const Words = z.number().int().nonnegative();

export const DetectChunk = z
  .object({
    text: z.string(),
    startChar: Offset,
    endChar: Offset,
    type: ChunkLabel,
    score: z.number().min(0).max(1),
  })
  .refine((chunk) => chunk.endChar >= chunk.startChar, 'endChar must not be before startChar');
export type DetectChunk = z.infer<typeof DetectChunk>;

/** Detector v3 response (upstream-api.md 2.2). */
export const DetectResponseV3 = z.object({
  success: z.boolean(),
  data: z.object({
    details: z.object({
      chunks: z.array(DetectChunk),
      ai_percentage: z.number().min(0).max(100),
    }),
    version: z.string(),
    words_processed: Words,
  }),
});
export type DetectResponseV3 = z.infer<typeof DetectResponseV3>;

/**
 * v1 and v2 responses are not specified. Chosen shape: the v3 envelope, where `chunks` may
 * be missing (only `ai_percentage` is relied on). See shared/CONTRACT.md.
 */
export const DetectResponseLegacy = z.object({
  success: z.boolean(),
  data: z.object({
    details: z.object({
      chunks: z.array(DetectChunk).optional(),
      ai_percentage: z.number().min(0).max(100),
    }),
    version: z.string(),
    words_processed: Words,
  }),
});
export type DetectResponseLegacy = z.infer<typeof DetectResponseLegacy>;

export function detectResponseSchema(version: DetectorVersion) {
  return version === 'v3' ? DetectResponseV3 : DetectResponseLegacy;
}

/** Humanizer response (upstream-api.md 2.4). */
export const HumanizeResponse = z.object({
  humanized_text: z.string(),
  words_processed: Words,
  model_used: HumanizerModel,
});
export type HumanizeResponse = z.infer<typeof HumanizeResponse>;

export const PlagiarismMatch = z.object({
  sentence: z.string(),
  is_plagiarised: z.boolean(),
  web_sentence: z.string(),
  /** Chosen scale (not shown upstream): 0 to 1. */
  similarity: z.number().min(0).max(1),
  link: z.string(),
});
export type PlagiarismMatch = z.infer<typeof PlagiarismMatch>;

/** Plagiarism response (upstream-api.md 2.6). */
export const PlagiarismResponse = z.object({
  result: z.object({
    results: z.array(PlagiarismMatch),
    /** Chosen scale: percentage 0 to 100 of input characters inside flagged sentences. */
    plagiarism_score: z.number().min(0).max(100),
  }),
  words_processed: Words,
});
export type PlagiarismResponse = z.infer<typeof PlagiarismResponse>;
