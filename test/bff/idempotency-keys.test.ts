import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { McpIdempotencyKey, RestIdempotencyKey } from '@redline/shared';
import { deriveIdempotencyKey, type KeyedOperation } from '../../bff/src/storage/idempotency-keys.ts';

const secret = Buffer.from('a'.repeat(64), 'hex');
const operation: KeyedOperation = { memberId: 'm_1', operationId: 'op-1', fingerprint: 'f'.repeat(64) };

describe('derived idempotency keys', () => {
  it('gives an operation the same key every time, valid for REST and MCP', () => {
    const key = deriveIdempotencyKey(secret, operation);
    expect(deriveIdempotencyKey(Buffer.from(secret), { ...operation })).toBe(key);
    expect(key).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(RestIdempotencyKey.safeParse(key).success).toBe(true);
    expect(McpIdempotencyKey.safeParse(key).success).toBe(true);
  });

  it('gives another member, operation id, fingerprint or ledger secret another key', () => {
    const key = deriveIdempotencyKey(secret, operation);
    expect(deriveIdempotencyKey(secret, { ...operation, memberId: 'm_2' })).not.toBe(key);
    expect(deriveIdempotencyKey(secret, { ...operation, operationId: 'op-2' })).not.toBe(key);
    expect(deriveIdempotencyKey(secret, { ...operation, fingerprint: 'e'.repeat(64) })).not.toBe(key);
    expect(deriveIdempotencyKey(Buffer.from('b'.repeat(64), 'hex'), operation)).not.toBe(key);
  });

  it('never gives two different operations one key, however their fields are cut (property)', () => {
    // Fields that share characters across their boundary ("ab" + "c" against "a" + "bc") must not collide.
    const field = fc.string({ unit: fc.constantFrom('a', 'b', '\n', '"', ',', '[', '#'), maxLength: 6 });
    const keyed = fc.record({ memberId: field, operationId: field, fingerprint: field });
    fc.assert(
      fc.property(keyed, keyed, (a, b) => {
        const same = a.memberId === b.memberId && a.operationId === b.operationId && a.fingerprint === b.fingerprint;
        expect(deriveIdempotencyKey(secret, a) === deriveIdempotencyKey(secret, b)).toBe(same);
      }),
      { numRuns: 2000 },
    );
  });
});
