import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember } from '@redline/bff/members';
import { createLogger } from '@redline/bff/logging';
import { hashSecret } from '@redline/bff/console/sessions';
import { PostgresLedger } from '@redline/bff/storage/postgres';
import { ENDED_SIGN_INS_KEPT_DAYS, scheduleRetention } from '@redline/bff/storage/retention';
import { SqliteLedger } from '@redline/bff/storage/sqlite';
import { discover, redeemCode, refresh, register, SignInError, type Grant, type TeamServer } from '../../extension/lib/team-sign-in.ts';
import { startFaultRelay } from '../fault-relay.ts';
import { POSTGRES_URL, dropSchema, startHarness, type Harness } from './harness.ts';
import { OAuthTestClient, approveWithoutBrowser, mcpStatus as mcpStatusAt } from './oauth-client.ts';
import { CHROME_REDIRECT, USED_LINK_REFUSAL, linkConsole } from './sign-in-links.ts';

// A one-time extension sign-in link presented a second time is refused, and the grant its
// first redemption issued is revoked, as for an authorization code used twice (RFC 6749
// section 4.1.2): the link may have been stolen and redeemed first by someone else, or the
// first redemption's answer lost, leaving a grant nobody holds. The extension's own protocol
// module against a started BFF over real HTTP, on both ledgers. A file of its own: the BFF
// takes 30 link redemptions per address in 15 minutes, and extension-sign-in.test.ts uses most.

let h: Harness;
let server: TeamServer;
let clientId: string;

const OTHER_REDIRECT = 'https://2e7c5a31f0d2a8c4b6e1d9f3a7c0b5e8d4f6a2c1.extensions.allizom.org/';
const DAY = 86_400_000;

const links = linkConsole(() => h);
const { signInAdmin, memberWithLink, signIns, auditEntries, usageStatus } = links;
const mcpStatus = (accessToken: string) => mcpStatusAt(h.bff.url, accessToken);
const redeemRaw = (code: string, client = clientId) => links.redeemRaw(code, client);

/** The retention job run once on a clock `days` ahead (it deletes what ended over ENDED_SIGN_INS_KEPT_DAYS before then). */
async function retentionIn(days: number) {
  const job = scheduleRetention({ ledger: h.bff.ledger, logger: createLogger('info', h.logs), retentionHours: 24, intervalMs: 3600_000, now: () => Date.now() + days * DAY });
  await job.stop();
}

const grantIdOf = (accessToken: string): string => JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString()).gid;

describe.each(['sqlite', 'postgres'] as const)('%s ledger', (ledgerKind) => {
  beforeAll(async () => {
    h = await startHarness({ env: { BFF_MEMBER_RATE_LIMIT: '1000' }, ledger: ledgerKind, offline: true, testerRole: 'admin' });
    await signInAdmin();
    server = await discover(`${h.bff.url}/`);
    clientId = await register(server, CHROME_REDIRECT, 'Redline extension');
  });
  afterAll(() => h.close());

  it('a used link presented again is refused as before, and the grant its first redemption issued is revoked (audited, logged without secrets)', async () => {
    const member = await memberWithLink('reuse-alice');
    const { grant } = await redeemCode(server, clientId, member.code);
    expect(await usageStatus(grant.accessToken)).toBe(200);
    expect(await signIns(member.id)).toEqual([grantIdOf(grant.accessToken)]);

    const again = await redeemCode(server, clientId, member.code).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(SignInError);
    expect(again).toMatchObject({ code: 'invalid_grant', message: USED_LINK_REFUSAL });

    const refused = await h.call('/v1/usage', undefined, { token: grant.accessToken });
    expect(refused.status).toBe(401);
    expect(refused.body.error.message).toBe('The access token was revoked. Sign in again.');
    await expect(refresh(server, grant)).rejects.toMatchObject({ code: 'invalid_grant' });
    expect(await signIns(member.id)).toEqual([]);

    const entries = await auditEntries();
    expect(entries.find((entry) => entry.action === 'sign_in_revoked' && entry.target === member.id)).toMatchObject({
      actorId: null,
      detail: { name: 'reuse-alice', grant: grantIdOf(grant.accessToken), reason: 'extension_link_used_again' },
    });
    expect(entries[0]).toMatchObject({ action: 'sign_in_refused', detail: { method: 'extension_link' } });
    expect(h.logs.text).toContain('sign-in link reused; grant revoked');
    const everything = JSON.stringify(entries) + h.logs.text;
    for (const secret of [member.code, grant.accessToken, grant.refreshToken]) expect(everything).not.toContain(secret);

    // A third presentation finds nothing left to revoke: refused, and no second revocation in the log.
    expect((await redeemRaw(member.code)).status).toBe(400);
    expect((await auditEntries()).filter((entry) => entry.action === 'sign_in_revoked' && entry.target === member.id)).toHaveLength(1);
  });

  it("a stolen link redeemed first by another client: the member's redemption is refused and the thief's grant ends", async () => {
    const member = await memberWithLink('reuse-bob');
    const thiefClient = await register(server, OTHER_REDIRECT, 'Not the extension');
    const { grant: stolen } = await redeemCode(server, thiefClient, member.code);
    expect(await usageStatus(stolen.accessToken)).toBe(200);

    await expect(redeemCode(server, clientId, member.code)).rejects.toMatchObject({ code: 'invalid_grant', message: USED_LINK_REFUSAL });
    expect(await usageStatus(stolen.accessToken)).toBe(401);
    await expect(refresh(server, stolen)).rejects.toMatchObject({ code: 'invalid_grant' });
    expect(await signIns(member.id)).toEqual([]);
  });

  it("a link the extension redeemed, typed again on an assistant's consent page: refused there, and the extension's grant ends", async () => {
    const member = await memberWithLink('reuse-dora');
    const { grant } = await redeemCode(server, clientId, member.code);
    const assistant = await OAuthTestClient.register(`${h.bff.url}/mcp`);
    const start = await assistant.start();
    const consent = await approveWithoutBrowser(start.authorizationUrl, member.code);
    expect(consent.status).toBe(401);
    expect(consent.answer).toContain('already used');
    expect(await usageStatus(grant.accessToken)).toBe(401);
    expect(await signIns(member.id)).toEqual([]);
    expect((await auditEntries()).find((entry) => entry.action === 'sign_in_revoked' && entry.target === member.id)).toMatchObject({ detail: { reason: 'extension_link_used_again' } });
  });

  it("a link redeemed on an assistant's consent page, presented again to the extension: refused, and the assistant's grant ends", async () => {
    const member = await memberWithLink('reuse-erin');
    const assistant = await OAuthTestClient.register(`${h.bff.url}/mcp`);
    const start = await assistant.start();
    const consent = await approveWithoutBrowser(start.authorizationUrl, member.code);
    expect(consent.status).toBe(302);
    const tokens = await assistant.exchange(consent.location!, start);
    expect(await mcpStatus(tokens.access_token)).toBe(200);
    expect(await signIns(member.id)).toEqual([grantIdOf(tokens.access_token)]);

    const again = await redeemRaw(member.code);
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({ error: 'invalid_grant', error_description: USED_LINK_REFUSAL });
    expect(await mcpStatus(tokens.access_token)).toBe(401);
    expect((await assistant.refreshRaw(tokens.refresh_token!)).status).toBe(400);
    expect(await signIns(member.id)).toEqual([]);
    const entries = await auditEntries();
    expect(entries.find((entry) => entry.action === 'sign_in_revoked' && entry.target === member.id)).toMatchObject({
      actorId: null,
      detail: { name: 'reuse-erin', grant: grantIdOf(tokens.access_token), reason: 'extension_link_used_again' },
    });
    const everything = JSON.stringify(entries) + h.logs.text;
    for (const secret of [member.code, tokens.access_token, tokens.refresh_token!]) expect(everything).not.toContain(secret);
  });

  it('a link typed again on the consent page before the first sign-in exchanged its code: refused, and that code opens nothing', async () => {
    const member = await memberWithLink('reuse-finn');
    const assistant = await OAuthTestClient.register(`${h.bff.url}/mcp`);
    const first = await assistant.start();
    const consent = await approveWithoutBrowser(first.authorizationUrl, member.code);
    expect(consent.status).toBe(302);
    const code = consent.location!.searchParams.get('code')!;

    const second = await assistant.start();
    const replay = await approveWithoutBrowser(second.authorizationUrl, member.code);
    expect(replay.status).toBe(401);
    expect(replay.answer).toContain('already used');

    const exchanged = await assistant.exchangeRaw(code, first.codeVerifier);
    expect(exchanged.status).toBe(400);
    expect(await exchanged.json()).toMatchObject({ error: 'invalid_grant' });
    expect(await signIns(member.id)).toEqual([]);
    expect((await auditEntries()).find((entry) => entry.action === 'sign_in_revoked' && entry.target === member.id)).toMatchObject({ detail: { reason: 'extension_link_used_again' } });
  });

  it('a redemption whose answer was lost is repeated and refused: no grant is left that the extension does not hold', async () => {
    const member = await memberWithLink('reuse-carol');
    const relay = await startFaultRelay(h.bff.url);
    try {
      relay.fail('/oauth/extension-link', 'drop-answer');
      const lost = await redeemCode({ ...server, as: { ...server.as, issuer: `${relay.url}/` } }, clientId, member.code).catch((error: unknown) => error);
      expect(lost).toMatchObject({ code: 'invalid_grant', message: "The server's answer was lost on the way, and the sign-in link it answered works only once. Ask your administrator for a new one." });
      expect(relay.seen.map((request) => request.fault)).toEqual(['drop-answer', 'pass']);
    } finally {
      await relay.close();
    }
    expect(await signIns(member.id)).toEqual([]);
  });

  it('two redemptions at once: one answered with tokens, the other refused, and no grant is left working', async () => {
    const grantsIssued: number[] = [];
    for (let round = 0; round < 3; round++) {
      const member = await memberWithLink(`reuse-race-${round}`);
      const answers = await Promise.all([redeemRaw(member.code), redeemRaw(member.code)]);
      const bodies = await Promise.all(answers.map((answer) => answer.json()));
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
      expect(bodies.find((body) => body.error)).toEqual({ error: 'invalid_grant', error_description: USED_LINK_REFUSAL });
      const issued = bodies.find((body) => body.access_token)!;
      expect(await usageStatus(issued.access_token)).toBe(401);
      await expect(refresh(server, grantOf(issued))).rejects.toMatchObject({ code: 'invalid_grant' });
      expect(await signIns(member.id)).toEqual([]);
      grantsIssued.push(logLines().filter((line) => line.msg === 'oauth grant issued' && line.member === member.id).length);
    }
    // A real race: in some round both redemptions found the link unused and were given a grant.
    expect(grantsIssued).toContain(2);
  });

  // Last in the file: the retention job on a later clock deletes the console sessions and links of the tests before.
  it('a used link past the keeping period, presented again while its grant lives: the grant is still revoked; once the grant is gone, so is the link', async () => {
    const member = await memberWithLink('reuse-gus');
    const { grant } = await redeemCode(server, clientId, member.code);
    const consentMember = await memberWithLink('reuse-hana');
    const assistant = await OAuthTestClient.register(`${h.bff.url}/mcp`);
    const start = await assistant.start();
    const assistantTokens = await assistant.exchange((await approveWithoutBrowser(start.authorizationUrl, consentMember.code)).location!, start);

    // The links expired a day after they were made; the grants' refresh tokens last 30 days.
    await retentionIn(ENDED_SIGN_INS_KEPT_DAYS + 2);
    await signInAdmin();
    expect(await usageStatus(grant.accessToken)).toBe(200);
    expect(await mcpStatus(assistantTokens.access_token)).toBe(200);

    const again = await redeemRaw(member.code);
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({ error: 'invalid_grant', error_description: USED_LINK_REFUSAL });
    expect(await usageStatus(grant.accessToken)).toBe(401);
    const typedAgain = await approveWithoutBrowser((await assistant.start()).authorizationUrl, consentMember.code);
    expect(typedAgain.status).toBe(401);
    expect(await mcpStatus(assistantTokens.access_token)).toBe(401);
    const revoked = (await auditEntries()).filter((entry) => entry.action === 'sign_in_revoked').map((entry) => entry.detail.grant);
    expect(revoked).toEqual(expect.arrayContaining([grantIdOf(grant.accessToken), grantIdOf(assistantTokens.access_token)]));

    // The grants ended now: deleted after ENDED_SIGN_INS_KEPT_DAYS, and their links with them.
    const store = await h.bff.ledger.consoleStore();
    expect(await store.usedLink(hashSecret(member.code), 'extension')).toMatchObject({ grantId: grantIdOf(grant.accessToken) });
    await retentionIn(ENDED_SIGN_INS_KEPT_DAYS + 2);
    expect(await store.usedLink(hashSecret(member.code), 'extension')).toBeUndefined();
    expect(await store.usedLink(hashSecret(consentMember.code), 'extension')).toBeUndefined();
    expect((await redeemRaw(member.code)).status).toBe(400);
  });
});

const logLines = (): Record<string, unknown>[] => h.logs.text.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));

/** The extension's Grant for a raw redemption's answer. */
const grantOf = (body: { access_token: string; refresh_token: string }): Grant => ({
  server: server.url,
  clientId,
  accessToken: body.access_token,
  refreshToken: body.refresh_token,
  expiresAt: Date.now() + 60_000,
});

// The fifth console migration adds console_links.grant_id to a ledger made before it: links
// used before it have no grant to revoke; links used after it keep theirs.
describe.each(['sqlite', 'postgres'] as const)('the link grant migration (%s)', (kind) => {
  it('an existing ledger gains the column; a link used before it has no grant, one used after it has its own', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'redline-link-grant-'));
    const schema = `link_grant_migration_${process.pid}`;
    const open = () => (kind === 'sqlite' ? Promise.resolve(new SqliteLedger(path.join(folder, 'bff.sqlite'))) : PostgresLedger.open(POSTGRES_URL, schema));
    const link = (codeHash: string, memberId: string) => ({ codeHash, memberId, purpose: 'extension' as const, createdBy: memberId, createdAt: Date.now(), expiresAt: Date.now() + 3600_000 });
    try {
      const before = await open();
      const { id } = (await createMember(before, 'migrated')).member;
      const oldStore = await before.consoleStore();
      await oldStore.createLink(link('old-link', id));
      await oldStore.consumeLink('old-link', Date.now(), 'extension');
      await before.close();
      // Back to the console schema before the column, one version lower.
      const undo = 'ALTER TABLE console_links DROP COLUMN grant_id; UPDATE console_schema SET version = version - 1';
      if (kind === 'sqlite') {
        const db = new Database(path.join(folder, 'bff.sqlite'));
        db.exec(undo);
        db.close();
      } else {
        const client = new pg.Client({ connectionString: POSTGRES_URL });
        await client.connect();
        await client.query(`SET search_path TO ${schema}; ${undo}`);
        await client.end();
      }

      const migrated = await open();
      const store = await migrated.consoleStore();
      expect(await store.usedLink('old-link', 'extension')).toEqual({ memberId: id, grantId: null });
      await store.createLink(link('new-link', id));
      expect(await store.usedLink('new-link', 'extension')).toBeUndefined();
      expect(await store.consumeLink('new-link', Date.now(), 'extension', undefined, 'grant-1')).toEqual({ memberId: id, purpose: 'extension' });
      expect(await store.usedLink('new-link', 'extension')).toEqual({ memberId: id, grantId: 'grant-1' });
      expect(await store.usedLink('new-link', 'console')).toBeUndefined();
      await migrated.close();
    } finally {
      rmSync(folder, { recursive: true, force: true });
      if (kind === 'postgres') await dropSchema(schema);
    }
  });
});
