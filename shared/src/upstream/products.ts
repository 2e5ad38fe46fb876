/** The three metered products. Each has its own word balance (upstream-api.md 8, rule 2). */
export const PRODUCTS = ['detector', 'humanizer', 'plagiarism'] as const;
export type Product = (typeof PRODUCTS)[number];

/** REST paths. Paths carry no version segment and end with a slash. */
export const UPSTREAM_PATHS = {
  detector: '/api/detect/',
  humanizer: '/api/humanize/',
  plagiarism: '/api/plagiarism/',
} as const satisfies Record<Product, string>;

export const UPSTREAM_MCP_PATH = '/api/mcp';

export const UPSTREAM_HEADERS = {
  apiKey: 'X-API-Key',
  idempotencyKey: 'Idempotency-Key',
  acceptedIdempotencyKey: 'X-Idempotency-Key',
  idempotencyKeySource: 'X-Idempotency-Key-Source',
  retryAfter: 'Retry-After',
} as const;

/** Value of X-Idempotency-Key-Source when a legacy request omitted Idempotency-Key. */
export const SERVER_GENERATED_KEY_SOURCE = 'server-generated';
