import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '@redline/bff/members';
import type { Ledger } from '@redline/bff/storage/ledger';
import type { OAuthStore } from '@redline/bff/storage/oauth-store';
import { bothLedgers } from './harness.ts';

// The OAuth storage on both ledgers: the embedded SQLite file and the machine's PostgreSQL.
const ledgers = bothLedgers('oauth_store_test');

const NOW = 1_800_000_000_000;
const code = (codeHash: string, expiresAt = NOW + 60_000) => ({
  codeHash,
  clientId: 'client-1',
  memberId: 'm_1',
  redirectUri: 'https://a.example/cb',
  redirectUriSent: true,
  codeChallenge: 'challenge',
  resource: 'http://127.0.0.1:1/mcp',
  scopes: [],
  expiresAt,
});
const grant = (id: string) => ({ id, clientId: 'client-1', memberId: 'm_1', resource: 'http://127.0.0.1:1/mcp', scopes: ['mcp'], createdAt: NOW });

describe.each(ledgers)('%s', (_name, open) => {
  let ledger: Ledger;
  let store: OAuthStore;
  beforeAll(async () => {
    ledger = await open();
    store = await ledger.oauthStore();
    await ledger.addMember({ id: 'm_1', name: 'ada', tokenHash: hashToken('t1'), tokenPrefix: 'rl_x…', budgets: {} });
  });
  afterAll(() => ledger?.close());

  it('keeps registered clients', async () => {
    await store.saveClient('client-1', { client_id: 'client-1', redirect_uris: ['https://a.example/cb'] });
    expect(await store.getClient('client-1')).toEqual({ client_id: 'client-1', redirect_uris: ['https://a.example/cb'] });
    expect(await store.getClient('nope')).toBeUndefined();
  });

  it('keeps the first signing key', async () => {
    const first = await store.signingKey({ kid: 'k1', privateJwk: { kty: 'EC', d: 'one' } });
    const second = await store.signingKey({ kid: 'k2', privateJwk: { kty: 'EC', d: 'two' } });
    expect(first).toEqual({ kid: 'k1', privateJwk: { kty: 'EC', d: 'one' } });
    expect(second).toEqual(first);
  });

  it('a code is exchanged once, and not after it expires', async () => {
    await store.saveCode(code('code-1'));
    expect(await store.exchangeCode('code-1', grant('g1'), { tokenHash: 'r1', grantId: 'g1', expiresAt: NOW + 1000 }, NOW)).toBe(true);
    expect(await store.exchangeCode('code-1', grant('g1b'), { tokenHash: 'r1b', grantId: 'g1b', expiresAt: NOW + 1000 }, NOW)).toBe(false);
    expect(await store.findCode('code-1')).toMatchObject({ usedAt: NOW, grantId: 'g1' });
    expect(await store.grant('g1b')).toBeUndefined();
    await store.saveCode(code('code-2', NOW - 1));
    expect(await store.exchangeCode('code-2', grant('g2'), { tokenHash: 'r2', grantId: 'g2', expiresAt: NOW + 1000 }, NOW)).toBe(false);
  });

  it('refresh tokens rotate once; a replay revokes the grant', async () => {
    expect(await store.rotateRefreshToken('r1', { tokenHash: 'r1-next', expiresAt: NOW + 1000 }, NOW)).toMatchObject({ kind: 'rotated', grant: { id: 'g1', scopes: ['mcp'] } });
    expect(await store.grantOfRefreshToken('r1-next')).toMatchObject({ id: 'g1', revokedAt: null });
    expect(await store.rotateRefreshToken('r1', { tokenHash: 'r1-other', expiresAt: NOW + 1000 }, NOW + 5)).toMatchObject({ kind: 'reused' });
    expect((await store.grant('g1'))!.revokedAt).toBe(NOW + 5);
    expect(await store.rotateRefreshToken('r1-next', { tokenHash: 'r1-third', expiresAt: NOW + 1000 }, NOW + 6)).toEqual({ kind: 'invalid' });
    expect(await store.rotateRefreshToken('unknown', { tokenHash: 'x', expiresAt: NOW + 1000 }, NOW)).toEqual({ kind: 'invalid' });
  });

  it("revoking a member's grants, and the member itself", async () => {
    await store.saveCode(code('code-3'));
    await store.exchangeCode('code-3', grant('g3'), { tokenHash: 'r3', grantId: 'g3', expiresAt: NOW + 1000 }, NOW);
    expect(await store.activeMember('m_1')).toMatchObject({ id: 'm_1', name: 'ada' });
    expect(await store.revokeMemberGrants('m_1', NOW + 10)).toBe(1);
    expect((await store.grant('g3'))!.revokedAt).toBe(NOW + 10);
    await ledger.revokeMember('m_1');
    expect(await store.activeMember('m_1')).toBeUndefined();
  });
});
