import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';
import { ConsoleClient } from './console-client.ts';
import { countWords } from '@redline/shared';
import { MIXED_TEXT } from '../upstream/fixtures.ts';
import { connectMcp, newToolKey, toolSummary } from './mcp-client.ts';
import { OAuthTestClient, approveWithoutBrowser } from './oauth-client.ts';

// An outside tester's probe of the team console and the MCP server (2026-11-29): what an administrator is told must
// be what the ledger did, read back, and odd input gets a clear refusal, not a 500. Real HTTP
// against a started BFF, on SQLite and on PostgreSQL.

const SECRET_KEY = Buffer.alloc(32, 7).toString('base64');
let now = Date.parse('2026-11-20T10:00:00Z');
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function adminConsole(ledger: 'sqlite' | 'postgres'): Promise<{ h: Harness; admin: ConsoleClient }> {
  now = Date.parse('2026-11-20T10:00:00Z');
  h = await startHarness({ ledger, now: () => now, env: { BFF_MEMBER_RATE_LIMIT: '1000', BFF_SECRET_KEY: SECRET_KEY }, testerRole: 'admin' });
  return { h, admin: await ConsoleClient.signIn(h.bff.url, h.token) };
}

const unexpectedErrors = (h: Harness) => h.logs.lines.filter((line) => line.includes('unexpected error'));

describe.each(['sqlite', 'postgres'] as const)('%s ledger', (ledger) => {
  it('an id in the address with a NUL or other character no id has: 404 saying there is no such item, not a 500', async () => {
    const { h, admin } = await adminConsole(ledger);
    const memberId = (await admin.post('/members', { name: 'dana' })).body.member.id as string;
    const writes = ['rotate', 'revoke', 'link', 'extension-link', 'budgets', 'rate-limit', 'role'];
    const bodies: Record<string, unknown> = { budgets: { detector: 5 }, 'rate-limit': { requests: 5 }, role: { role: 'admin' } };
    for (const bad of ['%00', `${memberId}%00`, 'm_%C3%A9']) {
      for (const action of writes) {
        const answer = await admin.post(`/members/${bad}/${action}`, bodies[action] ?? {});
        expect(answer.status, `${bad} ${action}: ${answer.raw}`).toBe(404);
        expect(answer.body.error.message).toMatch(/no active member/);
      }
      const signIns = await admin.get(`/members/${bad}/sign-ins`);
      expect(signIns.status, signIns.raw).toBe(404);
      const grant = await admin.post(`/members/${memberId}/sign-ins/${bad}/revoke`);
      expect(grant.status, grant.raw).toBe(404);
      expect(grant.body.error.message).toMatch(/no active sign-in/);
      const session = await admin.post(`/sessions/${bad}/revoke`);
      expect(session.status, session.raw).toBe(404);
      expect(session.body.error.message).toMatch(/no open session/);
      for (const action of ['test', 'saved', 'activate', 'remove']) {
        const key = await admin.post(`/upstream-keys/${bad}/${action}`);
        expect(key.status, `${bad} ${action}: ${key.raw}`).toBe(404);
        expect(key.body.error.message).toMatch(/no upstream key/);
      }
    }
    // Nothing changed: the member is there, with no budget and its token.
    const dana = (await admin.get('/members')).body.members.find((member: { id: string }) => member.id === memberId);
    expect(dana.revokedAt).toBeNull();
    expect(dana.products.detector.budget).toBeUndefined();
    expect(unexpectedErrors(h)).toEqual([]);
  });

  it('a broken percent-escape in the address is refused as the address, not blamed on the request body', async () => {
    const { admin } = await adminConsole(ledger);
    for (const answer of [await admin.get('/members/%E0%A4%A/sign-ins'), await admin.post('/members/%/rotate'), await admin.post('/members/%ZZ/budgets', { detector: 1 })]) {
      expect(answer.status, answer.raw).toBe(400);
      expect(answer.body.error.code).toBe('invalid_request');
      expect(answer.body.error.message).not.toMatch(/body/);
      expect(answer.body.error.message).toMatch(/address/);
    }
  });

  it('an upstream key label with a NUL, a control or a direction character is refused naming it; nothing is stored', async () => {
    const { h, admin } = await adminConsole(ledger);
    for (const [label, code] of [['ops\u0000key', 'U+0000'], ['\u202Eyek-pu', 'U+202E'], ['line\nbreak', 'U+000A'], ['zero\u200Bwidth', 'U+200B']] as const) {
      const answer = await admin.post('/upstream-keys', { label, key: 'demo-key-secondary' });
      expect(answer.status, answer.raw).toBe(400);
      expect(answer.body.error.code).toBe('invalid_request');
      expect(answer.body.error.message).toContain(code);
    }
    expect((await admin.get('/upstream-keys')).body.keys).toEqual([]);
    expect((await admin.post('/upstream-keys', { label: 'Clé de secours', key: 'demo-key-secondary' })).status).toBe(201);
    expect(unexpectedErrors(h)).toEqual([]);
  });

  it('revoking or rotating a member reports and audits only the console sessions it ended, not ones already expired', async () => {
    const { h, admin } = await adminConsole(ledger);
    const added = await admin.post('/members', { name: 'erin' });
    const erinToken = added.body.token as string;
    const erinId = added.body.member.id as string;
    await ConsoleClient.signIn(h.bff.url, erinToken); // left idle: ended after 30 minutes
    now += 31 * 60_000;
    const admin2 = await ConsoleClient.signIn(h.bff.url, h.token);
    const rotated = await admin2.post(`/members/${erinId}/rotate`);
    expect(rotated.status, rotated.raw).toBe(200);
    expect(rotated.body.sessions).toBe(0);
    await ConsoleClient.signIn(h.bff.url, rotated.body.token); // ended after 30 idle minutes too
    now += 31 * 60_000;
    const open = await ConsoleClient.signIn(h.bff.url, rotated.body.token);
    const admin3 = await ConsoleClient.signIn(h.bff.url, h.token);
    const revoked = await admin3.post(`/members/${erinId}/revoke`);
    expect(revoked.status, revoked.raw).toBe(200);
    expect(revoked.body.sessions).toBe(1); // the open one, not the expired one beside it
    expect((await open.get('/session')).status).toBe(401);
    const audit = (await admin3.get('/audit')).body.entries as { action: string; detail: { sessions?: number } }[];
    expect(audit.find((entry) => entry.action === 'member_revoked')!.detail.sessions).toBe(1);
    expect(audit.find((entry) => entry.action === 'token_rotated')!.detail.sessions).toBe(0);
  });

  it('ending a session that expired meanwhile (a page left open in another tab) says it had already ended; nothing is audited as ended', async () => {
    const { h, admin } = await adminConsole(ledger);
    const erin = await admin.post('/members', { name: 'erin' });
    await ConsoleClient.signIn(h.bff.url, erin.body.token);
    const listed = (await admin.get('/sessions')).body.sessions as { id: string; memberName: string }[];
    const erinSession = listed.find((session) => session.memberName === 'erin')!.id;
    now += 31 * 60_000; // erin's session ends idle; the administrator's page still lists it
    const again = await ConsoleClient.signIn(h.bff.url, h.token);
    const answer = await again.post(`/sessions/${erinSession}/revoke`);
    expect(answer.status, answer.raw).toBe(404);
    expect(answer.body.error.message).toMatch(/no open session/);
    const audit = (await again.get('/audit')).body.entries as { action: string }[];
    expect(audit.map((entry) => entry.action)).not.toContain('session_revoked');
    // An open one is still ended, and audited.
    const open = await ConsoleClient.signIn(h.bff.url, erin.body.token);
    const openId = ((await again.get('/sessions')).body.sessions as { id: string; memberName: string }[]).find((session) => session.memberName === 'erin')!.id;
    expect((await again.post(`/sessions/${openId}/revoke`)).status).toBe(200);
    expect((await open.get('/session')).status).toBe(401);
    expect(((await again.get('/audit')).body.entries as { action: string }[]).map((entry) => entry.action)).toContain('session_revoked');
  });

  it('a name that reads as an existing member\'s (another case, fullwidth or look-alike letters) is refused naming that member; a revoked one says so', async () => {
    const { h, admin } = await adminConsole(ledger);
    expect((await admin.post('/members', { name: 'bob' })).status).toBe(201);
    // Fullwidth "ｂｏｂ", and "bоb" with a Cyrillic о.
    for (const name of ['Bob', 'BOB', '\uFF42\uFF4F\uFF42', 'b\u043Eb']) {
      const answer = await admin.post('/members', { name });
      expect(answer.status, `${name}: ${answer.raw}`).toBe(400);
      expect(answer.body.error.message).toContain('"bob"');
    }
    const carol = await admin.post('/members', { name: 'carol' });
    expect((await admin.post(`/members/${carol.body.member.id}/revoke`)).status).toBe(200);
    const again = await admin.post('/members', { name: 'Carol' });
    expect(again.status, again.raw).toBe(400);
    expect(again.body.error.message).toMatch(/revoked member .*"carol"/);
    expect((await h.bff.ledger.listMembers()).map((member) => member.name).sort()).toEqual(['bob', 'carol', 'tester']);
    expect((await admin.post('/members', { name: 'bobby' })).status).toBe(201);
    // Digits and accents make names of their own.
    expect((await admin.post('/members', { name: 'bob2' })).status).toBe(201);
    expect((await admin.post('/members', { name: 'böb' })).status).toBe(201);
  });

  it('revoking a member counts the sign-ins it ended, not ones whose refresh token had already expired (the Sign-ins list showed none)', async () => {
    const { h } = await adminConsole(ledger);
    now = Date.now(); // the OAuth sign-in runs on the real clock
    const admin = await ConsoleClient.signIn(h.bff.url, h.token);
    const added = await admin.post('/members', { name: 'frank' });
    const frankId = added.body.member.id as string;
    const client = await OAuthTestClient.register(`${h.bff.url}/mcp`);
    const start = await client.start();
    const { location } = await approveWithoutBrowser(start.authorizationUrl, added.body.token);
    await client.exchange(location!, start);
    const later = await ConsoleClient.signIn(h.bff.url, h.token);
    expect((await later.get(`/members/${frankId}/sign-ins`)).body.signIns).toHaveLength(1);
    now += 400 * 86_400_000; // past the refresh token's expiry: the sign-in has ended
    const admin2 = await ConsoleClient.signIn(h.bff.url, h.token);
    expect((await admin2.get(`/members/${frankId}/sign-ins`)).body.signIns).toEqual([]);
    const revoked = await admin2.post(`/members/${frankId}/revoke`);
    expect(revoked.status, revoked.raw).toBe(200);
    expect(revoked.body.grants).toBe(0);
    const audit = (await admin2.get('/audit')).body.entries as { action: string; detail: { grants?: number } }[];
    expect(audit.find((entry) => entry.action === 'member_revoked')!.detail.grants).toBe(0);
  });

  it('revoking a member counts a live sign-in as ended, and its access token stops', async () => {
    const { h } = await adminConsole(ledger);
    now = Date.now();
    const admin = await ConsoleClient.signIn(h.bff.url, h.token);
    const added = await admin.post('/members', { name: 'gwen' });
    const client = await OAuthTestClient.register(`${h.bff.url}/mcp`);
    const start = await client.start();
    const { location } = await approveWithoutBrowser(start.authorizationUrl, added.body.token);
    const tokens = await client.exchange(location!, start);
    const admin2 = await ConsoleClient.signIn(h.bff.url, h.token);
    const revoked = await admin2.post(`/members/${added.body.member.id}/revoke`);
    expect(revoked.body.grants).toBe(1);
    const call = await fetch(`${h.bff.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(call.status).toBe(401);
  });
});

describe('MCP: a retry after a dropped connection', () => {
  it("the retry's summary says what the call charged (once), not only that nothing was charged again", async () => {
    h = await startHarness({ env: { BFF_MEMBER_RATE_LIMIT: '1000' } });
    const client = await connectMcp(h.bff.url, h.token);
    try {
      const before = await h.control.account('demo');
      await h.control.addFaults([{ fault: { kind: 'delay', delayMs: 600 } }]);
      const idempotency_key = newToolKey();
      const abort = new AbortController();
      const first = client.callTool({ name: 'detect_ai_text', arguments: { text: MIXED_TEXT, idempotency_key } }, undefined, { signal: abort.signal });
      const received = (await h.control.received()).length;
      for (let i = 0; i < 100 && (await h.control.received()).length === received; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      abort.abort();
      await expect(first).rejects.toThrow();
      // The only answer the assistant gets for this operation.
      const retry = await client.callTool({ name: 'detect_ai_text', arguments: { text: MIXED_TEXT, idempotency_key } });
      expect(retry.isError).toBeFalsy();
      const words = countWords(MIXED_TEXT);
      expect(retry.structuredContent).toMatchObject({ replayed: true, wordsCharged: words });
      expect(toolSummary(retry)).toContain(`${words} words charged`);
      expect(toolSummary(retry)).toMatch(/once|not charged again|nothing charged again/);
      const after = await h.control.account('demo');
      expect(after.charged.detector - before.charged.detector).toBe(words);
    } finally {
      await client.close();
    }
  });
});
