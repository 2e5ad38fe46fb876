import { z } from 'zod';
import { MCP_IDEMPOTENCY_KEY, REST_IDEMPOTENCY_KEY } from './limits.ts';

/** URL-safe: the base64url alphabet (RFC 4648 section 5), without padding. */
const URL_SAFE = /^[A-Za-z0-9_-]+$/;

function keySchema({ min, max }: { min: number; max: number }) {
  return z
    .string()
    .min(min, `must be at least ${min} characters`)
    .max(max, `must be at most ${max} characters`)
    .regex(URL_SAFE, 'may contain only letters, digits, "-" and "_"');
}

/** The REST `Idempotency-Key` header: 8 to 128 URL-safe characters. */
export const RestIdempotencyKey = keySchema(REST_IDEMPOTENCY_KEY);
/** The MCP tools' `idempotency_key` argument: 16 to 128 URL-safe characters. */
export const McpIdempotencyKey = keySchema(MCP_IDEMPOTENCY_KEY);

/**
 * A fresh random key, valid for both REST and MCP: 32 base64url characters (192 bits).
 * Uses Web Crypto, which Node and browsers both provide.
 */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_');
}
