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

  it('refresh tokens rotate once; a replay after its successor was used revokes the grant', async () => {
    expect(await store.rotateRefreshToken('r1', { tokenHash: 'r1-next', expiresAt: NOW + 100_000 }, NOW)).toMatchObject({ kind: 'rotated', grant: { id: 'g1', scopes: ['mcp'] } });
    expect(await store.grantOfRefreshToken('r1-next')).toMatchObject({ id: 'g1', revokedAt: null });
    expect(await store.rotateRefreshToken('r1-next', { tokenHash: 'r1-third', expiresAt: NOW + 100_000 }, NOW + 5)).toMatchObject({ kind: 'rotated' });
    expect(await store.rotateRefreshToken('r1', { tokenHash: 'r1-other', expiresAt: NOW + 100_000 }, NOW + 6)).toMatchObject({ kind: 'reused' });
    expect((await store.grant('g1'))!.revokedAt).toBe(NOW + 6);
    expect(await store.rotateRefreshToken('r1-third', { tokenHash: 'r1-fourth', expiresAt: NOW + 100_000 }, NOW + 7)).toEqual({ kind: 'invalid' });
    expect(await store.rotateRefreshToken('unknown', { tokenHash: 'x', expiresAt: NOW + 1000 }, NOW)).toEqual({ kind: 'invalid' });
  });

  it('a refresh repeated by its client (the answer lost) rotates again within the grace; the successor it never got then counts as used', async () => {
    await store.saveCode(code('code-lost'));
    await store.exchangeCode('code-lost', grant('g-lost'), { tokenHash: 'l1', grantId: 'g-lost', expiresAt: NOW + 100_000 }, NOW);
    expect(await store.rotateRefreshToken('l1', { tokenHash: 'l1-lost', expiresAt: NOW + 100_000 }, NOW)).toMatchObject({ kind: 'rotated', repeated: false });
    // Twice: the answer of the first repeat was lost too.
    expect(await store.rotateRefreshToken('l1', { tokenHash: 'l1-lost-again', expiresAt: NOW + 100_000 }, NOW + 1_000)).toMatchObject({ kind: 'rotated', grant: { id: 'g-lost' }, repeated: true });
    expect(await store.rotateRefreshToken('l1', { tokenHash: 'l1-kept', expiresAt: NOW + 100_000 }, NOW + 2_000)).toMatchObject({ kind: 'rotated', grant: { id: 'g-lost' } });
    expect((await store.grant('g-lost'))!.revokedAt).toBeNull();
    expect(await store.rotateRefreshToken('l1-kept', { tokenHash: 'l1-next', expiresAt: NOW + 100_000 }, NOW + 3_000)).toMatchObject({ kind: 'rotated' });
    // A successor whose answer was lost, presented later (someone else held it): a replay.
    expect(await store.rotateRefreshToken('l1-lost', { tokenHash: 'x1', expiresAt: NOW + 100_000 }, NOW + 4_000)).toMatchObject({ kind: 'reused' });
    expect((await store.grant('g-lost'))!.revokedAt).toBe(NOW + 4_000);
  });

  it('the grace counts from the first use, and ends once the successor is used', async () => {
    await store.saveCode(code('code-late'));
    await store.exchangeCode('code-late', grant('g-late'), { tokenHash: 'k1', grantId: 'g-late', expiresAt: NOW + 500_000 }, NOW);
    await store.rotateRefreshToken('k1', { tokenHash: 'k2', expiresAt: NOW + 500_000 }, NOW);
    expect(await store.rotateRefreshToken('k1', { tokenHash: 'k2b', expiresAt: NOW + 500_000 }, NOW + 50_000)).toMatchObject({ kind: 'rotated' });
    expect(await store.rotateRefreshToken('k1', { tokenHash: 'k2c', expiresAt: NOW + 500_000 }, NOW + 60_001)).toMatchObject({ kind: 'reused' });
    expect((await store.grant('g-late'))!.revokedAt).toBe(NOW + 60_001);

    await store.saveCode(code('code-used'));
    await store.exchangeCode('code-used', grant('g-used'), { tokenHash: 'u1', grantId: 'g-used', expiresAt: NOW + 500_000 }, NOW);
    await store.rotateRefreshToken('u1', { tokenHash: 'u2', expiresAt: NOW + 500_000 }, NOW);
    await store.rotateRefreshToken('u2', { tokenHash: 'u3', expiresAt: NOW + 500_000 }, NOW + 10);
    expect(await store.rotateRefreshToken('u1', { tokenHash: 'u2b', expiresAt: NOW + 500_000 }, NOW + 20)).toMatchObject({ kind: 'reused' });
    expect((await store.grant('g-used'))!.revokedAt).toBe(NOW + 20);
  });

  it('a code names the grant it opens: revoking that grant before the exchange withdraws the code, after it ends the grant', async () => {
    await store.saveCode({ ...code('code-named'), grantId: 'g-named' });
    expect(await store.findCode('code-named')).toMatchObject({ usedAt: null, grantId: 'g-named' });
    expect(await store.revokeGrant('g-named', NOW)).toBe(true);
    expect(await store.findCode('code-named')).toMatchObject({ usedAt: null, expiresAt: 0 });
    expect(await store.exchangeCode('code-named', grant('g-named'), { tokenHash: 'n1', grantId: 'g-named', expiresAt: NOW + 1000 }, NOW)).toBe(false);
    expect(await store.grant('g-named')).toBeUndefined();
    expect(await store.revokeGrant('g-named', NOW + 1)).toBe(false);

    await store.saveCode({ ...code('code-named-2'), grantId: 'g-named-2' });
    expect(await store.exchangeCode('code-named-2', grant('g-named-2'), { tokenHash: 'n2', grantId: 'g-named-2', expiresAt: NOW + 1000 }, NOW)).toBe(true);
    expect(await store.revokeGrant('g-named-2', NOW + 2)).toBe(true);
    expect(await store.grant('g-named-2')).toMatchObject({ revokedAt: NOW + 2 });
    expect(await store.findCode('code-named-2')).toMatchObject({ usedAt: NOW, expiresAt: NOW + 60_000 });
    expect(await store.revokeGrant('g-named-2', NOW + 3)).toBe(false);
    expect(await store.revokeGrant('unknown', NOW)).toBe(false);
  });

  it('a withdrawn code is not exchanged by an exchange that read the clock earlier (or on another instance, whose clock is behind)', async () => {
    await store.saveCode({ ...code('code-raced'), grantId: 'g-raced' });
    expect(await store.revokeGrant('g-raced', NOW + 5)).toBe(true);
    expect(await store.exchangeCode('code-raced', grant('g-raced'), { tokenHash: 'raced', grantId: 'g-raced', expiresAt: NOW + 1000 }, NOW)).toBe(false);
    expect(await store.grant('g-raced')).toBeUndefined();
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
