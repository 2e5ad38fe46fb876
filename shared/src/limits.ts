/** Limits of the upstream service (upstream-api.md, section 8). */
export const MAX_TEXT_CHARACTERS = 160_000;

export const REST_IDEMPOTENCY_KEY = { min: 8, max: 128 } as const;
export const MCP_IDEMPOTENCY_KEY = { min: 16, max: 128 } as const;

/** A completed response is replayable for this long; then the key answers 410. */
export const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** The MCP transport body limit (1 MiB). REST bodies have no documented limit. */
export const MCP_MAX_BODY_BYTES = 1024 * 1024;
