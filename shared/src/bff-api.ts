import { z } from 'zod';
import { RestIdempotencyKey } from './idempotency.ts';
import { PRODUCTS } from './upstream/products.ts';
import { DEFAULT_DETECTOR_VERSION, DetectorVersion, HumanizerModel } from './upstream/requests.ts';
import { DetectResponseLegacy, HumanizeResponse, PlagiarismResponse } from './upstream/responses.ts';

/**
 * The BFF's own API (`/v1/...`), used by the extension and any other client. The upstream
 * contract is in ./upstream; this file describes what the BFF adds around it.
 */

export const BFF_PATHS = {
  detector: '/v1/detect',
  humanizer: '/v1/humanize',
  plagiarism: '/v1/plagiarism',
  usage: '/v1/usage',
  cost: '/v1/cost',
  openapi: '/openapi.json',
  health: '/healthz',
  ready: '/readyz',
  metrics: '/metrics',
} as const;

/**
 * The Chrome extension id of the extension built from this repository (its manifest key is
 * fixed in extension/wxt.config.ts). A BFF without BFF_ALLOWED_ORIGINS allows this origin.
 */
export const OWN_CHROME_EXTENSION_ORIGIN = 'chrome-extension://ncdggekeiimjacfkplbplnkjenemmgga';

/** A client's id for one logical operation, kept across its own retries. */
export const OperationId = RestIdempotencyKey;

const DocumentText = z.string({ error: 'text must be a string' });

export const BffDetectRequest = z.object({
  operationId: OperationId,
  text: DocumentText,
  version: DetectorVersion.default(DEFAULT_DETECTOR_VERSION),
});
export type BffDetectRequest = z.input<typeof BffDetectRequest>;

export const BffHumanizeRequest = z.object({ operationId: OperationId, text: DocumentText, model: HumanizerModel });
export type BffHumanizeRequest = z.input<typeof BffHumanizeRequest>;

export const BffPlagiarismRequest = z.object({ operationId: OperationId, text: DocumentText });
export type BffPlagiarismRequest = z.input<typeof BffPlagiarismRequest>;

export const ResultSource = z.enum(['upstream', 'offline']);
export type ResultSource = z.infer<typeof ResultSource>;

function envelope<T extends z.ZodType>(product: (typeof PRODUCTS)[number], result: T) {
  return z.object({
    operationId: OperationId,
    product: z.literal(product),
    /** `offline` when the BFF's built-in analyzers answered instead of the upstream. */
    source: ResultSource,
    /** True when this answer is a stored result of an earlier request with this operation id. */
    replayed: z.boolean(),
    wordsCharged: z.number().int().nonnegative(),
    /** How many upstream operations the text needed (more than one for a large document). */
    parts: z.number().int().positive(),
    result,
  });
}

export const BffDetectResponse = envelope('detector', DetectResponseLegacy);
export type BffDetectResponse = z.infer<typeof BffDetectResponse>;
export const BffHumanizeResponse = envelope('humanizer', HumanizeResponse);
export type BffHumanizeResponse = z.infer<typeof BffHumanizeResponse>;
export const BffPlagiarismResponse = envelope('plagiarism', PlagiarismResponse);
export type BffPlagiarismResponse = z.infer<typeof BffPlagiarismResponse>;

export const BffCostRequest = z.object({ text: DocumentText });
export const BffCostResponse = z.object({
  words: z.number().int().nonnegative(),
  characters: z.number().int().nonnegative(),
  parts: z.number().int().nonnegative(),
});
export type BffCostResponse = z.infer<typeof BffCostResponse>;

export const ProductUsage = z.object({
  wordsCharged: z.number().int().nonnegative(),
  /** The member's word budget for the product; absent when unlimited. */
  budget: z.number().int().nonnegative().optional(),
  remaining: z.number().int().nonnegative().optional(),
});
/**
 * An operation of the member's held pending: it may have been charged upstream, and the upstream
 * then refused the BFF's key or account (or the BFF's upstream address is wrong), so its answer
 * could not be fetched. Its words are counted once it is; resumed at `resumeAfter`, when the BFF
 * restarts, or when the member repeats its operation id.
 */
export const HeldOperation = z.object({
  operationId: z.string(),
  product: z.enum(PRODUCTS),
  code: z.string(),
  message: z.string(),
  heldResumes: z.number().int().nonnegative(),
  resumeAfter: z.string(),
});
export const BffUsageResponse = z.object({
  member: z.object({ id: z.string(), name: z.string() }),
  mode: ResultSource,
  products: z.object({ detector: ProductUsage, humanizer: ProductUsage, plagiarism: ProductUsage }),
  /** Operations held pending (see HeldOperation); absent when there are none. */
  heldOperations: z.array(HeldOperation).optional(),
});
export type BffUsageResponse = z.infer<typeof BffUsageResponse>;

/**
 * Every error the BFF answers with. Codes are stable; clients switch on them. `message` is
 * plain text for people; `retryAfterSeconds` is set where waiting helps.
 */
export const BFF_ERROR_CODES = [
  'invalid_request',
  'empty_text',
  'text_too_long',
  'unknown_version',
  'unknown_model',
  'invalid_operation_id',
  'malformed_json',
  'unsupported_content_type',
  'unsupported_content_encoding',
  'invalid_content_encoding',
  'incomplete_body',
  'body_too_large',
  'unauthorized',
  'origin_not_allowed',
  'insufficient_scope',
  'rate_limited',
  'member_budget_exceeded',
  'operation_id_reused',
  'quota_exceeded',
  'no_subscription',
  'busy',
  'provider_aborted',
  'usage_recording_unavailable',
  'result_expired',
  'upstream_key_rejected',
  'upstream_key_missing',
  'upstream_unreachable',
  'upstream_invalid_response',
  'shutting_down',
  'ledger_unavailable',
  'sources_unavailable',
  'not_found',
  'method_not_allowed',
  'internal_error',
] as const;
export const BffErrorCode = z.enum(BFF_ERROR_CODES);
export type BffErrorCode = z.infer<typeof BffErrorCode>;

export const BffErrorBody = z.object({
  error: z.object({
    code: BffErrorCode,
    message: z.string(),
    retryAfterSeconds: z.number().int().nonnegative().optional(),
    /** Words left, on quota_exceeded and member_budget_exceeded. */
    remainingWords: z.number().int().nonnegative().optional(),
    requiredWords: z.number().int().nonnegative().optional(),
    product: z.enum(PRODUCTS).optional(),
    /** Which request fields to fix, on invalid input. */
    fields: z.record(z.string(), z.string()).optional(),
    operationId: z.string().optional(),
  }),
});
export type BffErrorBody = z.infer<typeof BffErrorBody>;
export type BffError = BffErrorBody['error'];
