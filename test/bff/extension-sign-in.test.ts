import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, importJWK, type JWK } from 'jose';
import { discover, finishAuthorization, parseSignInInput, redeemCode, refresh, register, revoke, SignInError, startAuthorization, type Grant, type TeamServer } from '../../extension/lib/team-sign-in.ts';
import { startFaultRelay, type FaultRelay, type RelayFault } from '../fault-relay.ts';
import { newOperationId, startHarness, type Harness } from './harness.ts';
import { OAuthTestClient, approveWithoutBrowser } from './oauth-client.ts';

// The browser extension's sign-in, with the extension's own protocol module
// (extension/lib/team-sign-in.ts) against a started BFF over real HTTP: one-time extension
// links made in the console, redeemed for an OAuth grant bound to the /v1 API, which /v1
// accepts; refresh, sign-out, revocation, wrong-audience and expired tokens refused.

let now = Date.parse('2026-11-20T10:00:00Z');
let h: Harness;
let server: TeamServer;
let clientId: string;
let admin: { cookie: string; csrf: string };

const CHROME_REDIRECT = 'https://ncdggekeiimjacfkplbplnkjenemmgga.chromiumapp.org/';
const FIREFOX_REDIRECT = 'https://2e7c5a31f0d2a8c4b6e1d9f3a7c0b5e8d4f6a2c1.extensions.allizom.org/';

async function memberId(name: string) {
  return (await h.bff.ledger.listMembers()).find((member) => member.name === name)!.id;
}

async function consolePost(path: string, body: unknown = {}, session = admin) {
  const response = await fetch(`${h.bff.url}/console/api${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: session.cookie, 'x-redline-csrf': session.csrf, origin: h.bff.url },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

async function consoleSignIn(token: string) {
  const response = await fetch(`${h.bff.url}/console/api/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json', origin: h.bff.url }, body: JSON.stringify({ token }) });
  expect(response.status).toBe(200);
  return { cookie: response.headers.get('set-cookie')!.split(';')[0]!, csrf: (await response.json()).csrfToken as string };
}

async function extensionLink(name: string): Promise<string> {
  const answer = await consolePost(`/members/${await memberId(name)}/extension-link`);
  expect(answer.status).toBe(201);
  return answer.body.url;
}

/** The server, its token endpoint reached through `relay`. */
const throughRelay = (relay: FaultRelay): TeamServer => ({ ...server, as: { ...server.as, token_endpoint: server.as.token_endpoint!.replace(h.bff.url, relay.url) } });

const v1 = (path: string, accessToken: string, body?: unknown) =>
  h.call(path, body, { token: accessToken });

async function signInWithLink(name = 'tester') {
  const link = parseSignInInput(await extensionLink(name))!;
  return redeemCode(server, clientId, link.code);
}

describe.each(['sqlite', 'postgres'] as const)('%s ledger', (ledgerKind) => {
  beforeAll(async () => {
    h = await startHarness({ now: () => now, env: { BFF_MEMBER_RATE_LIMIT: '1000' }, ledger: ledgerKind, testerRole: 'admin' });
    admin = await consoleSignIn(h.token);
    server = await discover(`${h.bff.url}/`);
    clientId = await register(server, CHROME_REDIRECT, 'Redline extension');
  });
  afterAll(() => h.close());

  describe('discovery and registration', () => {
    it('the /v1 API is a protected resource whose authorization server is the BFF', async () => {
      expect(server.resource).toBe(`${h.bff.url}/v1`);
      expect(server.as.issuer).toBe(`${h.bff.url}/`);
      const refused = await h.call('/v1/usage', undefined, { token: null });
      expect(refused.headers.get('www-authenticate')).toBe(`Bearer scope="detect humanize sources", resource_metadata="${h.bff.url}/.well-known/oauth-protected-resource/v1"`);
    });

    it("Chrome's and Firefox's extension redirect URLs are accepted by dynamic registration", async () => {
      expect(clientId).toMatch(/.+/);
      expect(await register(server, FIREFOX_REDIRECT, 'Redline extension (Firefox)')).toMatch(/.+/);
      await expect(register(server, 'chrome-extension://ncdggekeiimjacfkplbplnkjenemmgga/callback', 'x')).rejects.toThrow(/must use https/);
    });
  });

  describe('sign-in links', () => {
    it('the link (or its bare code) carries the server and a code; the page it opens says what to do', async () => {
      const url = await extensionLink('tester');
      expect(url).toMatch(new RegExp(`^${h.bff.url}/connect#code=[A-Za-z0-9_-]{43}$`));
      const parsed = parseSignInInput(url)!;
      expect(parsed.server).toBe(h.bff.url);
      expect(parseSignInInput(parsed.code)).toEqual({ code: parsed.code });
      expect(parseSignInInput('hello there')).toBeUndefined();
      const page = await fetch(`${h.bff.url}/connect`);
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/paste it/);
    });

    it('a link is redeemed once for a grant that /v1 accepts, as the member it was made for', async () => {
      const bob = await h.addMember('ext-bob');
      expect(bob).toMatch(/^rl_/);
      const link = parseSignInInput(await extensionLink('ext-bob'))!;
      const { grant, memberName } = await redeemCode(server, clientId, link.code);
      expect(memberName).toBe('ext-bob');
      expect(grant.accessToken).not.toMatch(/^rl_/);

      const usage = await v1('/v1/usage', grant.accessToken);
      expect(usage.status).toBe(200);
      expect(usage.body.member.name).toBe('ext-bob');
      const check = await v1('/v1/detect', grant.accessToken, { operationId: newOperationId(), text: 'Moreover, it is important to note that this landscape is ever-evolving.' });
      expect(check.status, check.raw).toBe(200);
      expect(check.body.result.data.details.chunks.length).toBeGreaterThan(0);

      const again = redeemCode(server, clientId, link.code);
      await expect(again).rejects.toThrow(/already used, has expired or is unknown/);
      await expect(again).rejects.toMatchObject({ code: 'invalid_grant' });
    });

    it('a link expires after 24 hours', async () => {
      const link = parseSignInInput(await extensionLink('tester'))!;
      now += 24 * 3600_000 + 1000;
      try {
        await expect(redeemCode(server, clientId, link.code)).rejects.toThrow(/already used, has expired/);
      } finally {
        now -= 24 * 3600_000 + 1000;
      }
    });

    it('console and extension links are not interchangeable', async () => {
      const consoleLink = (await consolePost(`/members/${await memberId('tester')}/link`)).body.url as string;
      const consoleCode = new URLSearchParams(new URL(consoleLink).hash.slice(1)).get('link')!;
      await expect(redeemCode(server, clientId, consoleCode)).rejects.toMatchObject({ code: 'invalid_grant' });

      const extensionCode = parseSignInInput(await extensionLink('tester'))!.code;
      const asConsole = await fetch(`${h.bff.url}/console/api/sign-in/link`, { method: 'POST', headers: { 'content-type': 'application/json', origin: h.bff.url }, body: JSON.stringify({ code: extensionCode }) });
      expect(asConsole.status).toBe(401);
      // The refused console attempt did not use it up.
      expect((await redeemCode(server, clientId, extensionCode)).memberName).toBe('tester');
    });

    it('an unregistered client is told to register again; a member can make a link for themselves', async () => {
      const code = parseSignInInput(await extensionLink('tester'))!.code;
      await expect(redeemCode(server, 'no-such-client', code)).rejects.toMatchObject({ code: 'invalid_client' });

      const carolToken = await h.addMember('ext-carol');
      const carol = await consoleSignIn(carolToken);
      const own = await consolePost('/me/extension-link', {}, carol);
      expect(own.status).toBe(201);
      expect((await redeemCode(server, clientId, parseSignInInput(own.body.url)!.code)).memberName).toBe('ext-carol');
      // A member cannot make links for others.
      expect((await consolePost(`/members/${await memberId('tester')}/extension-link`, {}, carol)).status).toBe(403);
    });

    it('a client registered without a redirect URI (before one was required) is told to register again, and the link stays unused', async () => {
      await (await h.bff.ledger.oauthStore()).saveClient('no-redirect-client', { client_id: 'no-redirect-client', redirect_uris: [], token_endpoint_auth_method: 'none' });
      const { code } = parseSignInInput(await extensionLink('tester'))!;
      await expect(redeemCode(server, 'no-redirect-client', code)).rejects.toMatchObject({ code: 'invalid_client', message: expect.stringMatching(/without a redirect URI/) });
      expect((await redeemCode(server, clientId, code)).memberName).toBe('tester');
    });

    it('a client_id that is not printable ASCII is an unknown client, not a server error', async () => {
      const clientId = 'client\u0000id';
      const form = (fields: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
      const token = await fetch(`${h.bff.url}/token`, form({ grant_type: 'refresh_token', refresh_token: 'x'.repeat(43), client_id: clientId }));
      expect(token.status).toBe(400);
      expect((await token.json()).error).toBe('invalid_client');
      const revocation = await fetch(`${h.bff.url}/revoke`, form({ token: 'x'.repeat(43), client_id: clientId }));
      expect(revocation.status).toBe(400);
      expect((await revocation.json()).error).toBe('invalid_client');
      const authorization = await fetch(`${h.bff.url}/authorize?${new URLSearchParams({ client_id: clientId, response_type: 'code' })}`, { redirect: 'manual' });
      expect(authorization.status).toBe(400);
      await expect(redeemCode(server, clientId, 'x'.repeat(43))).rejects.toMatchObject({ code: 'invalid_client' });
    });

    it('the audit log records links made and redeemed, and refusals, never a code or token', async () => {
      const url = await extensionLink('tester');
      const { code } = parseSignInInput(url)!;
      const { grant } = await redeemCode(server, clientId, code);
      await redeemCode(server, clientId, code).catch(() => undefined);
      const audit = await (await fetch(`${h.bff.url}/console/api/audit`, { headers: { cookie: admin.cookie } })).json();
      const actions = audit.entries.map((entry: { action: string }) => entry.action);
      expect(actions).toEqual(expect.arrayContaining(['extension_link_created', 'extension_signed_in', 'sign_in_refused']));
      const everything = JSON.stringify(audit) + h.logs.text;
      for (const secret of [code, grant.accessToken, grant.refreshToken, h.token]) expect(everything).not.toContain(secret);
    });
  });

  describe('tokens at /v1', () => {
    it('a refresh gives a working access token; the old refresh token, once its successor was used, ends the grant', async () => {
      const { grant } = await signInWithLink();
      const renewed = await refresh(server, grant);
      expect(renewed.refreshToken).not.toBe(grant.refreshToken);
      expect((await v1('/v1/usage', renewed.accessToken)).status).toBe(200);
      const again = await refresh(server, renewed);
      await expect(refresh(server, grant)).rejects.toMatchObject({ code: 'invalid_grant' });
      const after = await v1('/v1/usage', again.accessToken);
      expect(after.status).toBe(401);
      expect(after.body.error.message).toMatch(/revoked/);
    });

    // The server answers a repeated refresh token only within its grace (60 s); the extension
    // renews lazily, at its next call, which may come minutes later: refresh() repeats at once.
    it.each<RelayFault[]>([['drop-answer'], ['cut-body'], ['gateway-502'], ['refuse'], ['drop-answer', 'gateway-502']])('a refresh whose answer is lost on the way (%s) is repeated at once with the same refresh token, and the sign-in goes on', async (...faults) => {
      const { grant } = await signInWithLink();
      const relay = await startFaultRelay(h.bff.url);
      try {
        relay.fail('/token', ...faults);
        const renewed = await refresh(throughRelay(relay), grant);
        expect(relay.seen.map((request) => request.fault)).toEqual([...faults, 'pass']);
        expect((await v1('/v1/usage', renewed.accessToken)).status).toBe(200);
        const next = await refresh(server, renewed);
        expect((await v1('/v1/usage', next.accessToken)).status).toBe(200);
      } finally {
        await relay.close();
      }
    });

    it('a refresh that finds no answer three times says the server could not be reached and keeps the grant usable', async () => {
      const { grant } = await signInWithLink();
      const relay = await startFaultRelay(h.bff.url);
      try {
        relay.fail('/token', 'drop-answer', 'drop-answer', 'drop-answer');
        const lost = await refresh(throughRelay(relay), grant).catch((error: unknown) => error);
        expect(lost).toBeInstanceOf(SignInError);
        expect((lost as SignInError).code).toBeUndefined();
        expect((lost as SignInError).message).toMatch(/could not be reached/);
        expect(relay.seen.map((request) => request.fault)).toEqual(['drop-answer', 'drop-answer', 'drop-answer']);
      } finally {
        await relay.close();
      }
      // Within the grace, the extension's next renewal with the grant it kept is answered.
      const renewed = await refresh(server, grant);
      expect((await v1('/v1/usage', renewed.accessToken)).status).toBe(200);
    });

    // One fault each way: the server takes 30 link redemptions per address in 15 minutes, and this file uses most.
    it.each<RelayFault[]>([['drop-answer']])('a link redeemed but whose answer is lost (%s): the repeat is refused and the member is told the link is used up', async (...faults) => {
      const relay = await startFaultRelay(h.bff.url);
      try {
        relay.fail('/oauth/extension-link', ...faults);
        const link = parseSignInInput(await extensionLink('tester'))!;
        const lost = await redeemCode({ ...server, as: { ...server.as, issuer: `${relay.url}/` } }, clientId, link.code).catch((error: unknown) => error);
        expect(lost).toBeInstanceOf(SignInError);
        expect((lost as SignInError).code).toBe('invalid_grant');
        expect((lost as SignInError).message).toBe("The server's answer was lost on the way, and the sign-in link it answered works only once. Ask your administrator for a new one.");
        expect(relay.seen.map((request) => request.fault)).toEqual([...faults, 'pass']);
      } finally {
        await relay.close();
      }
    });

    it.each<RelayFault>(['gateway-502'])('a link redemption that never reached the server (%s) is repeated and signs in', async (fault) => {
      const relay = await startFaultRelay(h.bff.url);
      try {
        relay.fail('/oauth/extension-link', fault);
        const link = parseSignInInput(await extensionLink('tester'))!;
        const { grant } = await redeemCode({ ...server, as: { ...server.as, issuer: `${relay.url}/` } }, clientId, link.code);
        expect(relay.seen.map((request) => request.fault)).toEqual([fault, 'pass']);
        expect((await v1('/v1/usage', grant.accessToken)).status).toBe(200);
      } finally {
        await relay.close();
      }
    });

    // The sign-in window's code exchanged at the token endpoint (the browser's window itself is
    // the e2e's): a code works once, so an exchange the server answered but whose answer was
    // lost cannot be completed; the repeat is refused and the member told to sign in again.
    const exchangeThrough = async (relay: FaultRelay) => {
      const start = await startAuthorization(server, clientId, CHROME_REDIRECT);
      const { location } = await approveWithoutBrowser(start.url, h.token);
      return finishAuthorization(throughRelay(relay), clientId, CHROME_REDIRECT, location!, start);
    };

    it.each<RelayFault>(['drop-answer', 'cut-body'])('a code exchange the server answered but whose answer is lost (%s): the repeat is refused and the member is told to sign in again', async (fault) => {
      const relay = await startFaultRelay(h.bff.url);
      try {
        relay.fail('/token', fault);
        const lost = await exchangeThrough(relay).catch((error: unknown) => error);
        expect(lost).toBeInstanceOf(SignInError);
        expect((lost as SignInError).code).toBe('invalid_grant');
        expect((lost as SignInError).message).toBe("Sign-in did not complete: the server's answer was lost on the way, and the sign-in it answered cannot be used twice. Sign in again.");
        expect(relay.seen.map((request) => request.fault)).toEqual([fault, 'pass']);
        // Signing in again works.
        const grant = await exchangeThrough(relay);
        expect((await v1('/v1/usage', grant.accessToken)).status).toBe(200);
      } finally {
        await relay.close();
      }
    });

    it.each<RelayFault>(['refuse', 'gateway-502'])('a code exchange that never reached the server (%s) is repeated and signs in', async (fault) => {
      const relay = await startFaultRelay(h.bff.url);
      try {
        relay.fail('/token', fault);
        const grant = await exchangeThrough(relay);
        expect(relay.seen.map((request) => request.fault)).toEqual([fault, 'pass']);
        expect((await v1('/v1/usage', grant.accessToken)).status).toBe(200);
      } finally {
        await relay.close();
      }
    });

    it("the server's own refusal of a refresh is not repeated", async () => {
      const { grant } = await signInWithLink();
      const relay = await startFaultRelay(h.bff.url);
      try {
        await expect(refresh(throughRelay(relay), { ...grant, refreshToken: 'not-a-refresh-token' })).rejects.toMatchObject({ code: 'invalid_grant' });
        expect(relay.seen.map((request) => request.fault)).toEqual(['pass']);
      } finally {
        await relay.close();
      }
    });

    it('signing out revokes the grant: its access and refresh tokens are refused', async () => {
      const { grant } = await signInWithLink();
      expect((await v1('/v1/usage', grant.accessToken)).status).toBe(200);
      await revoke(server, grant);
      const refused = await v1('/v1/usage', grant.accessToken);
      expect(refused.status).toBe(401);
      expect(refused.body.error).toMatchObject({ code: 'unauthorized', message: 'The access token was revoked. Sign in again.' });
      // The same challenge as the MCP endpoint's: the reason in error_description (RFC 6750 section 3).
      expect(refused.headers.get('www-authenticate')).toBe(
        `Bearer error="invalid_token", error_description="The access token was revoked. Sign in again.", scope="detect humanize sources", resource_metadata="${h.bff.url}/.well-known/oauth-protected-resource/v1"`,
      );
      await expect(refresh(server, grant)).rejects.toBeInstanceOf(SignInError);
    });

    it('revoking the member in the console refuses the extension at once, with a clear message', async () => {
      await h.addMember('ext-leaver');
      const { grant } = await signInWithLink('ext-leaver');
      expect((await v1('/v1/usage', grant.accessToken)).status).toBe(200);
      expect((await consolePost(`/members/${await memberId('ext-leaver')}/revoke`)).status).toBe(200);
      const refused = await v1('/v1/detect', grant.accessToken, { operationId: newOperationId(), text: 'Some text to check.' });
      expect(refused.status).toBe(401);
      // Not "sign in again": the console revoked the member's grants too, but the member is the reason.
      expect(refused.body.error.message).toBe('The member was revoked. Ask your administrator.');
      await expect(refresh(server, grant)).rejects.toMatchObject({ code: 'invalid_grant' });
    });

    it('a link made for a member who is revoked before it is used is refused', async () => {
      await h.addMember('ext-late');
      const { code } = parseSignInInput(await extensionLink('ext-late'))!;
      await consolePost(`/members/${await memberId('ext-late')}/revoke`);
      await expect(redeemCode(server, clientId, code)).rejects.toMatchObject({ code: 'invalid_grant' });
    });

    it('wrong audience: an MCP token is refused at /v1, and an extension token at /mcp', async () => {
      const mcpClient = await OAuthTestClient.register(`${h.bff.url}/mcp`);
      const start = await mcpClient.start();
      const { location } = await approveWithoutBrowser(start.authorizationUrl, h.token);
      const mcpTokens = await mcpClient.exchange(location!, start);
      const atV1 = await v1('/v1/usage', mcpTokens.access_token);
      expect(atV1.status).toBe(401);
      expect(atV1.body.error.message).toMatch(/issued for another resource/);

      const { grant } = await signInWithLink();
      const atMcp = await fetch(`${h.bff.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${grant.accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      expect(atMcp.status).toBe(401);
      expect(atMcp.headers.get('www-authenticate')).toMatch(/issued for another resource/);
    });

    it('an expired access token is refused (signed by this server, expiry in the past)', async () => {
      const { grant } = await signInWithLink();
      const forged = await resign(grant, { exp: Math.floor(Date.now() / 1000) - 60 });
      const refused = await v1('/v1/usage', forged);
      expect(refused.status).toBe(401);
      expect(refused.body.error.message).toMatch(/expired/);
      // The same claims with a live expiry pass: the refusal is the expiry's alone.
      expect((await v1('/v1/usage', await resign(grant, {}))).status).toBe(200);
    });
  });
});

/** The grant's access token with some claims changed, signed with the server's own key. */
async function resign(grant: Grant, changes: Record<string, unknown>): Promise<string> {
  const claims = JSON.parse(Buffer.from(grant.accessToken.split('.')[1]!, 'base64url').toString());
  const stored = await (await h.bff.ledger.oauthStore()).signingKey({ kid: 'unused', privateJwk: {} });
  const key = await importJWK(stored.privateJwk as JWK, 'ES256');
  return new SignJWT({ ...claims, ...changes }).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: stored.kid }).sign(key);
}

it('a redemption that is the server’s very first request is answered by the authorization server (built on demand)', async () => {
  const fresh = await startHarness({ offline: true });
  try {
    const response = await fetch(`${fresh.bff.url}/oauth/extension-link`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: 'x'.repeat(43), client_id: 'unknown' }) });
    expect(response.status).toBe(401);
    expect((await response.json()).error).toBe('invalid_client');
  } finally {
    await fresh.close();
  }
});
