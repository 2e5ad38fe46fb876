import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMember } from '@redline/bff/members';
import { startHarness, type Harness } from './harness.ts';
import { OAuthTestClient, approveWithoutBrowser } from './oauth-client.ts';

// What a member's token opened ends with it: rotating a token (because it may have leaked)
// ends the member's console sessions and MCP sign-ins, as revoking does; revoking one member
// never touches another; the members CLI never leaves the team without an administrator.

describe.each(['sqlite', 'postgres'] as const)('%s ledger', (ledgerKind) => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness({ ledger: ledgerKind, env: { BFF_MEMBER_RATE_LIMIT: '1000' }, testerRole: 'admin' });
  });
  afterEach(() => h.close());

  const idOf = async (name: string) => (await h.bff.ledger.listMembers()).find((member) => member.name === name)!.id;

  async function consoleSignIn(token: string) {
    const response = await fetch(`${h.bff.url}/console/api/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json', origin: h.bff.url }, body: JSON.stringify({ token }) });
    expect(response.status).toBe(200);
    return { cookie: response.headers.get('set-cookie')!.split(';')[0]!, csrf: (await response.json()).csrfToken as string };
  }

  async function consoleCall(session: { cookie: string; csrf: string }, path: string, body?: unknown) {
    const response = await fetch(`${h.bff.url}/console/api${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { cookie: session.cookie, 'x-redline-csrf': session.csrf, origin: h.bff.url, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }

  async function mcpSignIn(memberToken: string) {
    const client = await OAuthTestClient.register(`${h.bff.url}/mcp`);
    const start = await client.start();
    const { location } = await approveWithoutBrowser(start.authorizationUrl, memberToken);
    return { client, tokens: await client.exchange(location!, start) };
  }

  const mcpStatus = async (accessToken: string) =>
    (
      await fetch(`${h.bff.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      })
    ).status;

  it('rotating a token ends the sessions and sign-ins the old one opened; an administrator rotating their own keeps the session they are in', async () => {
    const admin = await consoleSignIn(h.token);
    const writerToken = await h.addMember('writer');
    const writerId = await idOf('writer');
    const writerSession = await consoleSignIn(writerToken);
    const { client, tokens } = await mcpSignIn(writerToken);
    expect(await mcpStatus(tokens.access_token)).toBe(200);

    const rotated = await consoleCall(admin, `/members/${writerId}/rotate`, {});
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ grants: 1, sessions: 1 });
    expect((await consoleCall(writerSession, '/session')).status).toBe(401);
    expect(await mcpStatus(tokens.access_token)).toBe(401);
    await expect(client.refresh(tokens.refresh_token!)).rejects.toThrow();
    expect((await h.call('/v1/usage', undefined, { token: rotated.body.token })).status).toBe(200);

    const otherAdminSession = await consoleSignIn(h.token);
    const own = await consoleCall(admin, `/members/${await idOf('tester')}/rotate`, {});
    expect(own.body).toMatchObject({ sessions: 1 });
    expect((await consoleCall(admin, '/session')).status).toBe(200);
    expect((await consoleCall(otherAdminSession, '/session')).status).toBe(401);
  });

  it("an administrator lists a member's assistant sign-ins and ends one, without the token or the other sign-ins; audited", async () => {
    const admin = await consoleSignIn(h.token);
    const writerToken = await h.addMember('writer');
    const writerId = await idOf('writer');
    const first = await mcpSignIn(writerToken);
    const second = await mcpSignIn(writerToken);
    await mcpSignIn(h.token);

    const listed = await consoleCall(admin, `/members/${writerId}/sign-ins`);
    expect(listed.status).toBe(200);
    expect(listed.body.signIns).toHaveLength(2);
    expect(listed.body.signIns[0]).toEqual({
      id: expect.any(String),
      clientId: second.client.client.client_id,
      clientName: 'Test assistant',
      redirectHost: '127.0.0.1:7777',
      resource: `${h.bff.url}/mcp`,
      scopes: ['detect', 'humanize', 'sources'],
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
    });
    expect(JSON.stringify(listed.body)).not.toContain(first.tokens.refresh_token!);

    const ended = listed.body.signIns.find((signIn: { clientId: string }) => signIn.clientId === first.client.client.client_id);
    expect((await consoleCall(admin, `/members/${writerId}/sign-ins/${ended.id}/revoke`, {})).status).toBe(200);
    expect(await mcpStatus(first.tokens.access_token)).toBe(401);
    expect(await mcpStatus(second.tokens.access_token)).toBe(200);
    expect((await h.call('/v1/usage', undefined, { token: writerToken })).status).toBe(200);
    expect((await consoleCall(admin, `/members/${writerId}/sign-ins`)).body.signIns.map((signIn: { id: string }) => signIn.id)).not.toContain(ended.id);

    // Ended already, or another member's: not found, nothing changed.
    expect((await consoleCall(admin, `/members/${writerId}/sign-ins/${ended.id}/revoke`, {})).status).toBe(404);
    const testerSignIn = (await consoleCall(admin, `/members/${await idOf('tester')}/sign-ins`)).body.signIns[0];
    expect((await consoleCall(admin, `/members/${writerId}/sign-ins/${testerSignIn.id}/revoke`, {})).status).toBe(404);

    const audit = (await consoleCall(admin, '/audit')).body.entries.find((entry: { action: string }) => entry.action === 'sign_in_revoked');
    expect(audit).toMatchObject({ target: writerId, detail: { grant: ended.id, client: 'Test assistant', resource: `${h.bff.url}/mcp` } });

    const writerSession = await consoleSignIn(writerToken);
    expect((await consoleCall(writerSession, `/members/${writerId}/sign-ins`)).status).toBe(403);
  });

  it('a member name cannot look like a member id, so revoking by id never revokes another member', async () => {
    const writer = await createMember(h.bff.ledger, 'frank');
    await expect(createMember(h.bff.ledger, writer.member.id)).rejects.toThrow(/cannot look like a member id/);
    const admin = await consoleSignIn(h.token);
    const named = await consoleCall(admin, '/members', { name: 'm_0123456789ab' });
    expect(named.status).toBe(400);
    expect(named.body.error.message).toMatch(/cannot look like a member id/);
  });
});

describe('the members CLI', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness({ offline: true });
  });
  afterEach(() => h.close());

  const members = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'bff/src/cli.ts', ...args], { env: { ...process.env, BFF_DATA_DIR: h.dataDir }, encoding: 'utf8' });

  it('refuses to revoke the last administrator, and audits what it does', async () => {
    const store = await h.bff.ledger.consoleStore();
    const tester = (await h.bff.ledger.listMembers()).find((member) => member.name === 'tester')!;
    await store.setRole(tester.id, 'admin');
    const refused = members('revoke', 'tester');
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/last administrator/);
    expect((await h.call('/v1/usage')).status).toBe(200);

    expect(members('add', 'second').status).toBe(0);
    const revoked = members('revoke', 'second');
    expect(revoked.status, revoked.stderr).toBe(0);
    const actions = (await store.auditLog(10)).map((entry) => entry.action);
    expect(actions).toEqual(expect.arrayContaining(['member_added', 'member_revoked']));
  });

  it('role makes a member an administrator or a member, never leaving the team without one', async () => {
    const roleOf = async (name: string) => (await h.bff.ledger.listMembers()).find((member) => member.name === name)!.role;
    const promoted = members('role', 'tester', 'admin');
    expect(promoted.status, promoted.stderr).toBe(0);
    expect(promoted.stdout).toMatch(/"tester" .* is now an administrator/);
    expect(await roleOf('tester')).toBe('admin');
    const admins = (await h.bff.ledger.listMembers()).filter((member) => member.role === 'admin' && !member.revokedAt);
    for (const other of admins.filter((member) => member.name !== 'tester')) expect(members('role', other.id, 'member').status).toBe(0);

    const refused = members('role', 'tester', 'member');
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/last administrator/);
    expect(await roleOf('tester')).toBe('admin');
    expect(members('role', 'tester', 'owner').stderr).toMatch(/"admin" or "member"/);
    expect((await (await h.bff.ledger.consoleStore()).auditLog(10)).map((entry) => entry.action)).toContain('role_changed');
  });
});
