import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@redline/bff/logging';
import { hashToken } from '@redline/bff/members';
import type { ConsoleStore } from '@redline/bff/storage/console-store';
import type { Ledger } from '@redline/bff/storage/ledger';
import type { OAuthStore } from '@redline/bff/storage/oauth-store';
import { ENDED_SIGN_INS_KEPT_DAYS, scheduleRetention } from '@redline/bff/storage/retention';
import { LogCapture, bothLedgers } from './harness.ts';

// What ended sign-ins leave behind (OAuth grants, codes, refresh tokens; console sessions and
// links) is deleted once it has been over for ENDED_SIGN_INS_KEPT_DAYS; live sign-ins keep
// every row they need, on both ledgers.
const ledgers = bothLedgers('sign_in_purge');

const DAY = 86_400_000;
const NOW = 1_800_000_000_000;
const CUTOFF = NOW - ENDED_SIGN_INS_KEPT_DAYS * DAY;
const LONG_AGO = CUTOFF - DAY;
const LATELY = NOW - DAY;

/** A sign-in exchanged at `at`: its code, its grant, its first refresh token expiring at `refreshExpiresAt`. */
async function signIn(store: OAuthStore, id: string, at: number, refreshExpiresAt: number): Promise<void> {
  await store.saveCode({
    codeHash: `code-${id}`,
    clientId: 'client-1',
    memberId: 'm_1',
    redirectUri: `https://${id}.example/cb`,
    redirectUriSent: true,
    codeChallenge: 'challenge',
    resource: 'http://127.0.0.1:1/mcp',
    scopes: [],
    expiresAt: at + 60_000,
  });
  const grant = { id, clientId: 'client-1', memberId: 'm_1', resource: 'http://127.0.0.1:1/mcp', scopes: [], createdAt: at };
  expect(await store.exchangeCode(`code-${id}`, grant, { tokenHash: `refresh-${id}`, grantId: id, expiresAt: refreshExpiresAt }, at)).toBe(true);
}

const session = (id: string, expiresAt: number) => ({ id, secretHash: `secret-${id}`, memberId: 'm_1', createdAt: expiresAt - DAY, expiresAt, address: '127.0.0.1', userAgent: 'test' });
const link = (id: string, expiresAt: number) => ({ codeHash: `link-${id}`, memberId: 'm_1', purpose: 'extension' as const, createdBy: 'm_1', createdAt: expiresAt - 600_000, expiresAt });

describe.each(ledgers)('%s', (_name, open) => {
  let ledger: Ledger;
  let oauth: OAuthStore;
  let consoleStore: ConsoleStore;
  beforeAll(async () => {
    ledger = await open();
    oauth = await ledger.oauthStore();
    consoleStore = await ledger.consoleStore();
    await ledger.addMember({ id: 'm_1', name: 'ada', tokenHash: hashToken('t1'), tokenPrefix: 'rl_x…', budgets: {} });
  });
  afterAll(() => ledger?.close());

  it('deletes grants revoked or expired before the cutoff with their codes and tokens, and keeps live and lately ended ones whole', async () => {
    // Live, refreshed long ago and now: its used tokens expired before the cutoff.
    await signIn(oauth, 'live', LONG_AGO - 2 * DAY, LONG_AGO);
    expect(await oauth.rotateRefreshToken('refresh-live', { tokenHash: 'refresh-live-2', expiresAt: NOW + DAY }, LONG_AGO - DAY)).toMatchObject({ kind: 'rotated' });
    await signIn(oauth, 'revoked-long-ago', LONG_AGO - DAY, NOW + DAY);
    await oauth.revokeGrant('revoked-long-ago', LONG_AGO);
    await signIn(oauth, 'revoked-lately', LONG_AGO, NOW + DAY);
    await oauth.revokeGrant('revoked-lately', LATELY);
    await signIn(oauth, 'expired-long-ago', LONG_AGO - DAY, LONG_AGO);
    await signIn(oauth, 'expired-lately', LONG_AGO, LATELY);
    // Codes never exchanged.
    await oauth.saveCode({ ...(await oauth.findCode('code-live'))!, codeHash: 'code-abandoned-long-ago', expiresAt: LONG_AGO });
    await oauth.saveCode({ ...(await oauth.findCode('code-live'))!, codeHash: 'code-abandoned-lately', expiresAt: LATELY });

    // codes: 2 ended grants' + 1 abandoned; tokens: 2 ended grants' + the live grant's used one; grants: 2.
    expect(await oauth.purgeEnded(CUTOFF)).toBe(8);

    for (const ended of ['revoked-long-ago', 'expired-long-ago']) {
      expect(await oauth.grant(ended)).toBeUndefined();
      expect(await oauth.findCode(`code-${ended}`)).toBeUndefined();
      expect(await oauth.grantOfRefreshToken(`refresh-${ended}`)).toBeUndefined();
    }
    expect(await oauth.findCode('code-abandoned-long-ago')).toBeUndefined();
    expect(await oauth.findCode('code-abandoned-lately')).toBeDefined();
    for (const kept of ['revoked-lately', 'expired-lately']) {
      expect(await oauth.grant(kept)).toBeDefined();
      expect(await oauth.findCode(`code-${kept}`)).toMatchObject({ grantId: kept });
    }
    // The live grant: its first (used, expired) token is gone, its current one still rotates,
    // and the console still reads where its code was sent.
    expect(await oauth.grantOfRefreshToken('refresh-live')).toBeUndefined();
    expect(await oauth.activeGrants('m_1', NOW)).toMatchObject([{ id: 'live', redirectUri: 'https://live.example/cb' }]);
    expect(await oauth.rotateRefreshToken('refresh-live-2', { tokenHash: 'refresh-live-3', expiresAt: NOW + 2 * DAY }, NOW)).toMatchObject({ kind: 'rotated', grant: { id: 'live' } });

    expect(await oauth.purgeEnded(CUTOFF)).toBe(0);
  });

  it('deletes console sessions and sign-in links that ended before the cutoff', async () => {
    await consoleStore.createSession(session('expired-long-ago', LONG_AGO));
    await consoleStore.createSession(session('revoked-long-ago', NOW + DAY));
    await consoleStore.revokeSession('revoked-long-ago', LONG_AGO);
    await consoleStore.createSession(session('revoked-lately', NOW + DAY));
    await consoleStore.revokeSession('revoked-lately', LATELY);
    await consoleStore.createSession(session('open', NOW + DAY));
    await consoleStore.createLink(link('expired-long-ago', LONG_AGO));
    await consoleStore.createLink(link('expired-lately', LATELY));
    await consoleStore.createLink(link('open', NOW + 600_000));

    expect(await consoleStore.purgeEnded(CUTOFF)).toBe(3);

    expect(await consoleStore.sessionBySecret('secret-expired-long-ago')).toBeUndefined();
    expect(await consoleStore.sessionBySecret('secret-revoked-long-ago')).toBeUndefined();
    expect((await consoleStore.listSessions(NOW)).map((kept) => kept.id)).toEqual(['open']);
    expect(await consoleStore.linkMember('link-open', NOW, 'extension')).toBe('m_1');
    expect(await consoleStore.purgeEnded(CUTOFF)).toBe(0);
    // The session revoked lately and the link expired lately are still there: they go once their end is past the cutoff.
    expect(await consoleStore.purgeEnded(LATELY + 1)).toBe(2);
  });

  it('keeps a used link while the grant it opened is kept, so that presenting it again still revokes that grant', async () => {
    await signIn(oauth, 'link-live', LONG_AGO - 2 * DAY, NOW + DAY);
    await signIn(oauth, 'link-revoked-lately', LONG_AGO - 2 * DAY, NOW + DAY);
    await oauth.revokeGrant('link-revoked-lately', LATELY);
    await signIn(oauth, 'link-revoked-long-ago', LONG_AGO - 2 * DAY, NOW + DAY);
    await oauth.revokeGrant('link-revoked-long-ago', LONG_AGO);
    // Used long ago: for each grant, with no grant (before the grant was kept with it), for a code never exchanged.
    const used = { 'used-live': 'link-live', 'used-lately': 'link-revoked-lately', 'used-long-ago': 'link-revoked-long-ago', 'used-no-grant': undefined, 'used-never-opened': 'never-exchanged' };
    for (const [id, grantId] of Object.entries(used)) {
      await consoleStore.createLink(link(id, LONG_AGO));
      expect(await consoleStore.consumeLink(`link-${id}`, LONG_AGO - 2 * DAY, 'extension', undefined, grantId)).toBeDefined();
    }

    await oauth.purgeEnded(CUTOFF);
    expect(await consoleStore.purgeEnded(CUTOFF)).toBe(3);
    expect(await consoleStore.usedLink('link-used-live', 'extension')).toEqual({ memberId: 'm_1', grantId: 'link-live' });
    expect(await consoleStore.usedLink('link-used-lately', 'extension')).toEqual({ memberId: 'm_1', grantId: 'link-revoked-lately' });
    for (const gone of ['used-long-ago', 'used-no-grant', 'used-never-opened']) expect(await consoleStore.usedLink(`link-${gone}`, 'extension')).toBeUndefined();

    // The grant revoked lately is deleted once its end is past the cutoff: its link goes with it.
    await oauth.purgeEnded(LATELY + 1);
    expect(await consoleStore.purgeEnded(CUTOFF)).toBe(1);
    expect(await consoleStore.usedLink('link-used-lately', 'extension')).toBeUndefined();
    expect(await consoleStore.usedLink('link-used-live', 'extension')).toBeDefined();
  });

  it('the retention schedule deletes them on its own clock', async () => {
    await signIn(oauth, 'scheduled', LONG_AGO - DAY, LONG_AGO);
    const log = new LogCapture();
    const logger = createLogger('info', log);
    const retention = scheduleRetention({ ledger, logger, retentionHours: 24, intervalMs: 60_000, now: () => NOW });
    await retention.stop();
    expect(await oauth.grant('scheduled')).toBeUndefined();
    expect(log.lines.map((line) => JSON.parse(line) as { msg: string; deleted?: number }).find((line) => line.msg === 'records of ended sign-ins deleted')).toMatchObject({ deleted: 3 });
  });
});
