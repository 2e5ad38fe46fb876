import { createHmac } from 'node:crypto';

/** The operation an upstream Idempotency-Key is derived for. */
export interface KeyedOperation {
  memberId: string;
  operationId: string;
  /** sha256 of product, version or model, and text (engine.ts). */
  fingerprint: string;
}

/**
 * The upstream Idempotency-Key of an operation: an HMAC of the member, the operation id and
 * the fingerprint of its work under the ledger's own secret, as 32 base64url characters (valid
 * for REST and MCP alike). The upstream cannot tell it from a random value, and each ledger's
 * keys are its own. Because the key follows from the operation, a repeat after the ledger lost
 * the operation (a power cut before its commit reached the disk) sends the same key, and the
 * upstream replays the call it already charged instead of charging it again; so the ledger's
 * commits need not wait for the disk before the call goes upstream.
 */
export function deriveIdempotencyKey(secret: Buffer, { memberId, operationId, fingerprint }: KeyedOperation): string {
  return createHmac('sha256', secret).update(JSON.stringify([memberId, operationId, fingerprint])).digest().subarray(0, 24).toString('base64url');
}

/**
 * Where a ledger keeps that secret: made by the ledger's migration, once, in the database
 * (at least 244 random bits, as hex), so every instance on the ledger derives the same keys.
 */
export const KEY_SECRET_QUERY = "SELECT value FROM ledger_secrets WHERE name = 'idempotency_keys'";
