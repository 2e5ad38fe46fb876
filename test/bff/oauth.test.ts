import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, importJWK, type JWK } from 'jose';
import { MIXED_TEXT } from '../upstream/fixtures.ts';
import { Writable } from 'node:stream';
import type express from 'express';
import { createExtensionLink } from '../../bff/src/auth/extension-link.ts';
import { MemberAuthorizationServer } from '../../bff/src/auth/provider.ts';
import { createLogger } from '../../bff/src/logging.ts';
import { authenticate } from '../../bff/src/members.ts';
import { startHarness, type Harness } from './harness.ts';
import { connectMcp, newToolKey } from './mcp-client.ts';
import { OAuthTestClient, approveWithoutBrowser } from './oauth-client.ts';

// The BFF as an OAuth 2.1 authorization server for its members, for hosted MCP clients:
// discovery, registration, PKCE, consent, tokens bound to the MCP URL, refresh rotation,
// revocation. The member's part on the consent page is played with fetch here; the browser
// flow is test/e2e/mcp-oauth.e2e.ts.

let h: Harness;
let mcpUrl: string;
// Registration is rate limited (20 an hour per address), so most tests share two clients.
let client: OAuthTestClient;
let other: OAuthTestClient;

beforeAll(async () => {
  h = await startHarness();
  mcpUrl = `${h.bff.url}/mcp`;
  client = await OAuthTestClient.register(mcpUrl);
  other = await OAuthTestClient.register(mcpUrl, 'http://127.0.0.1:7778/callback', 'Other assistant');
});
afterAll(() => h.close());

async function signIn(memberToken = h.token) {
  const start = await client.start();
  const { location } = await approveWithoutBrowser(start.authorizationUrl, memberToken);
  return { start, callback: location!, tokens: await client.exchange(location!, start) };
}

/** A raw MCP request with a bearer token: the 401's WWW-Authenticate, or 200. */
async function mcpStatus(accessToken: string): Promise<{ status: number; challenge: string | null }> {
  const response = await fetch(mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  return { status: response.status, challenge: response.headers.get('www-authenticate') };
}

const refusal = (description: RegExp) => ({
  status: 401,
  challenge: expect.stringMatching(new RegExp(`^Bearer error="invalid_token", error_description="${description.source}[^"]*", scope="detect humanize sources", resource_metadata="http://127\\.0\\.0\\.1:\\d+/\\.well-known/oauth-protected-resource/mcp"$`)),
});

describe('discovery', () => {
  it('protected-resource metadata (RFC 9728) names this MCP URL and the BFF as its authorization server', async () => {
    const metadata = await (await fetch(`${h.bff.url}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(metadata).toMatchObject({ resource: mcpUrl, authorization_servers: [`${h.bff.url}/`] });
  });

  it('authorization-server metadata (RFC 8414): code flow with S256 only, registration, revocation, public clients', async () => {
    const metadata = await (await fetch(`${h.bff.url}/.well-known/oauth-authorization-server`)).json();
    expect(metadata).toMatchObject({
      issuer: `${h.bff.url}/`,
      authorization_endpoint: `${h.bff.url}/authorize`,
      token_endpoint: `${h.bff.url}/token`,
      registration_endpoint: `${h.bff.url}/register`,
      revocation_endpoint: `${h.bff.url}/revoke`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none'],
    });
  });
});

describe('dynamic client registration (RFC 7591)', () => {
  const register = (redirect_uris: string[]) =>
    fetch(`${h.bff.url}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'x', redirect_uris, token_endpoint_auth_method: 'none' }) });

  it.each([['https://assistant.example/callback'], ['http://127.0.0.1:33418/callback'], ['http://[::1]/cb'], ['http://localhost:8080/oauth']])('accepts %s', async (uri) => {
    const response = await register([uri]);
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(body).toMatchObject({ redirect_uris: [uri], token_endpoint_auth_method: 'none' });
    expect(body.client_secret).toBeUndefined();
  });

  it.each([['http://assistant.example/callback'], ['myapp://callback'], ['https://assistant.example/cb#fragment']])('refuses %s', async (uri) => {
    const response = await register([uri]);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_redirect_uri', error_description: expect.stringMatching(/https|fragment/) });
  });

  it('refuses a client without a redirect URI: every grant is a code sent to one', async () => {
    const response = await register([]);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'invalid_redirect_uri', error_description: 'redirect_uris must list at least one redirect URI' });
  });

  it('a client asking for a secret is registered as a public client (PKCE is its proof)', async () => {
    const response = await fetch(`${h.bff.url}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'client_secret_post' }) });
    const body = await response.json();
    expect(body.token_endpoint_auth_method).toBe('none');
    expect(body.client_secret).toBeUndefined();
  });
});

describe('authorization', () => {
  it('the consent page shows the client name (escaped) and the redirect host', async () => {
    const client = await OAuthTestClient.register(mcpUrl, 'https://callback.assistant.example/oauth', '<b>Shady</b> "Assistant"');
    const { authorizationUrl } = await client.start();
    const response = await fetch(authorizationUrl);
    const page = await response.text();
    expect(response.status).toBe(200);
    expect(page).toContain('&lt;b&gt;Shady&lt;/b&gt; &quot;Assistant&quot;');
    expect(page).not.toContain('<b>Shady</b>');
    expect(page).toMatch(/id="redirect-host">callback\.assistant\.example</);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
  });

  /** The error an authorization request is redirected back with; `iss` and `state` are checked on the way. */
  async function authorizationError(start: { authorizationUrl: URL; state: string }, init: RequestInit = {}) {
    const response = await fetch(start.authorizationUrl, { redirect: 'manual', ...init });
    expect(response.status).toBe(302);
    const refusal = client.authorizationError(new URL(response.headers.get('location')!), start.state);
    // RFC 6749 section 4.1.2.1: printable ASCII without `"` and `\`.
    expect(refusal.error_description).toMatch(/^[\x20\x21\x23-\x5B\x5D-\x7E]{1,300}$/);
    return refusal;
  }

  it('PKCE is required, and S256 only; the error goes back with state and iss (RFC 9207) and says what to fix', async () => {
    const pkce = { error: 'invalid_request', error_description: 'code_challenge with code_challenge_method=S256 is required' };
    expect(await authorizationError(await client.start({ code_challenge_method: 'plain' }))).toEqual(pkce);
    const withoutChallenge = await client.start();
    withoutChallenge.authorizationUrl.searchParams.delete('code_challenge');
    withoutChallenge.authorizationUrl.searchParams.delete('code_challenge_method');
    expect(await authorizationError(withoutChallenge)).toEqual(pkce);

    // The same for a POSTed request (OAuth 2.1 allows it).
    const posted = await client.start({ code_challenge_method: 'plain' });
    const form = new URLSearchParams(posted.authorizationUrl.search);
    posted.authorizationUrl.search = '';
    expect(await authorizationError(posted, { method: 'POST', body: form })).toEqual(pkce);
  });

  it('other malformed requests are refused the same way', async () => {
    expect(await authorizationError(await client.start({ response_type: 'token' }))).toEqual({ error: 'unsupported_response_type', error_description: 'Only response_type=code is supported' });
    const missing = await client.start();
    missing.authorizationUrl.searchParams.delete('response_type');
    expect(await authorizationError(missing)).toEqual({ error: 'invalid_request', error_description: 'response_type=code is required' });
    const twice = await client.start();
    twice.authorizationUrl.searchParams.append('code_challenge', 'again');
    expect(await authorizationError(twice)).toEqual({ error: 'invalid_request', error_description: 'code_challenge must be sent once' });
    // RFC 7636 section 4.2: an S256 challenge is 43 base64url characters (a shorter one could never be met).
    for (const challenge of ['abc', 'x'.repeat(44), `${'x'.repeat(42)}=`]) {
      const wrong = await client.start();
      wrong.authorizationUrl.searchParams.set('code_challenge', challenge);
      expect(await authorizationError(wrong)).toEqual({ error: 'invalid_request', error_description: expect.stringContaining('code_challenge must be the base64url SHA-256') });
    }
  });

  it('a token for another resource is refused at the authorization request (RFC 8707)', async () => {
    for (const resource of ['https://other.example/mcp', 'not a URL']) {
      expect(await authorizationError(await client.start({ resource }))).toEqual({
        error: 'invalid_target',
        error_description: `This server issues tokens only for ${mcpUrl} and ${h.bff.url}/v1`,
      });
    }
  });

  it('a resource with a fragment is refused (RFC 8707 section 2), not read as this MCP URL', async () => {
    expect(await authorizationError(await client.start({ resource: `${mcpUrl}#tools` }))).toEqual({
      error: 'invalid_target',
      error_description: 'resource must not have a fragment (RFC 8707 section 2)',
    });
  });

  it('a failure after the checks goes back as server_error with state and iss, and is logged', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', new Writable({ write: (chunk, _encoding, done) => void (lines.push(String(chunk)), done()) }));
    const issuer = new URL(`${h.bff.url}/`);
    const provider = new MemberAuthorizationServer({
      store: () => h.bff.ledger.oauthStore(),
      signer: () => Promise.reject(new Error('the signing key cannot be read')),
      issuer,
      resources: [mcpUrl],
      accessTokenSeconds: 600,
      refreshTokenDays: 30,
      logger,
    });
    let location = '';
    const res = { redirect: (_status: number, url: string) => void (location = url) } as unknown as express.Response;
    await provider.authorize(client.client as never, { state: 'the-state', scopes: [], redirectUri: client.redirectUri, codeChallenge: 'x'.repeat(43) }, res);
    expect(Object.fromEntries(new URL(location).searchParams)).toEqual({
      error: 'server_error',
      error_description: 'The server could not start the sign-in; try again later',
      state: 'the-state',
      iss: issuer.href,
    });
    expect(lines.join('')).toContain('authorization request failed');
    expect(lines.join('')).toContain('the signing key cannot be read');
  });

  it('an unregistered redirect URI or an unknown client gets no redirect at all (RFC 6749 section 4.1.2.1)', async () => {
    for (const overrides of [{ redirect_uri: 'https://attacker.example/cb' }, { client_id: 'unknown-client' }, { redirect_uri: 'https://attacker.example/cb', code_challenge_method: 'plain' }] as Record<string, string>[]) {
      const { authorizationUrl } = await client.start(overrides);
      const response = await fetch(authorizationUrl, { redirect: 'manual' });
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
    }
  });

  it('a wrong member token is asked again; Deny sends access_denied back', async () => {
    const start = await client.start();
    const wrong = await approveWithoutBrowser(start.authorizationUrl, `rl_${'B'.repeat(43)}`);
    expect(wrong.status).toBe(401);
    expect(wrong.answer).toMatch(/unknown, revoked/);
    const denied = await approveWithoutBrowser(start.authorizationUrl, h.token, 'deny');
    expect(denied.status).toBe(302);
    expect(Object.fromEntries(denied.location!.searchParams)).toMatchObject({ error: 'access_denied', state: start.state, iss: `${h.bff.url}/` });
  });

  it('a one-time sign-in link (or its bare code) approves once, as its member', async () => {
    const token = await h.addMember('link-user');
    const member = (await authenticate(h.bff.ledger, token))!;
    const newLink = async () => createExtensionLink(await h.bff.ledger.consoleStore(), member.id, member.id, h.bff.url, Date.now());
    const link = await newLink();

    const start = await client.start();
    const approved = await approveWithoutBrowser(start.authorizationUrl, link.url);
    expect(approved.status).toBe(302);
    const tokens = await client.exchange(approved.location!, start);
    const mcp = await connectMcp(h.bff.url, tokens.access_token);
    const result = await mcp.callTool({ name: 'detect_ai_text', arguments: { text: MIXED_TEXT, idempotency_key: newToolKey() } });
    await mcp.close();
    expect(result.isError).toBeFalsy();
    const usage = await h.call('/v1/usage', undefined, { token, method: 'GET' });
    expect(usage.body).toMatchObject({ member: { name: 'link-user' } });
    expect(usage.body.products.detector.wordsCharged).toBeGreaterThan(0);

    const again = await approveWithoutBrowser((await client.start()).authorizationUrl, link.code);
    expect(again.status).toBe(401);
    expect(again.answer).toMatch(/already used/);

    const bare = await approveWithoutBrowser((await client.start()).authorizationUrl, (await newLink()).code);
    expect(bare.status).toBe(302);
    expect(bare.location!.searchParams.get('code')).toBeTruthy();
  });

  it('an assistant signed in with a member token is audited like one signed in with a link; a refused token too, without it', async () => {
    const token = await h.addMember('audited-user');
    const member = (await authenticate(h.bff.ledger, token))!;
    const wrong = `rl_${'C'.repeat(43)}`;
    expect((await approveWithoutBrowser((await client.start()).authorizationUrl, wrong)).status).toBe(401);
    expect((await approveWithoutBrowser((await client.start()).authorizationUrl, token)).status).toBe(302);
    const entries = await (await h.bff.ledger.consoleStore()).auditLog(2);
    expect(entries).toMatchObject([
      { action: 'assistant_signed_in', actorId: member.id, target: member.id, detail: { method: 'token', client: 'Test assistant' }, address: expect.stringMatching(/127\.0\.0\.1/) },
      { action: 'sign_in_refused', actorId: null, detail: { method: 'consent_token' } },
    ]);
    expect(JSON.stringify(entries)).not.toContain(token);
    expect(JSON.stringify(entries)).not.toContain(wrong);
  });

  it('a consent form from another origin is refused', async () => {
    const { authorizationUrl } = await client.start();
    const page = await (await fetch(authorizationUrl)).text();
    const request = /name="request" value="([^"]+)"/.exec(page)![1]!;
    const response = await fetch(`${h.bff.url}/oauth/consent`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://attacker.example' },
      body: new URLSearchParams({ request, credential: h.token, decision: 'approve' }),
    });
    expect(response.status).toBe(403);
  });
});

describe('tokens', () => {
  it('code -> tokens bound to the MCP URL -> tools/call as the member who approved', async () => {
    const token = await h.addMember('oauth-user');
    const { tokens } = await signIn(token);
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.expires_in).toBeLessThanOrEqual(600);
    expect(tokens.refresh_token).toBeTruthy();
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString());
    expect(claims).toMatchObject({ aud: mcpUrl, iss: `${h.bff.url}/`, client_id: client.client.client_id });

    const mcp = await connectMcp(h.bff.url, tokens.access_token);
    const result = await mcp.callTool({ name: 'detect_ai_text', arguments: { text: MIXED_TEXT, idempotency_key: newToolKey() } });
    await mcp.close();
    expect(result.isError).toBeFalsy();
    const usage = await h.call('/v1/usage', undefined, { token });
    expect(usage.body).toMatchObject({ member: { name: 'oauth-user' }, products: { detector: { wordsCharged: (result.structuredContent as { wordsCharged: number }).wordsCharged } } });
  });

  it('a code works once; presenting it again revokes what it gave', async () => {
    const { start, callback, tokens } = await signIn();
    const code = callback.searchParams.get('code')!;
    const again = await client.exchangeRaw(code, start.codeVerifier);
    expect(again.status).toBe(400);
    expect((await again.json()).error).toBe('invalid_grant');
    expect(await mcpStatus(tokens.access_token)).toEqual(refusal(/The access token was revoked/));
  });

  it('a wrong code_verifier is refused', async () => {
    const start = await client.start();
    const { location } = await approveWithoutBrowser(start.authorizationUrl, h.token);
    const response = await client.exchangeRaw(location!.searchParams.get('code')!, 'x'.repeat(64));
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe('invalid_grant');
  });

  it('redirect_uri is required at /token when the authorization request sent one, and must be identical (RFC 6749 section 4.1.3)', async () => {
    const start = await client.start();
    const { location } = await approveWithoutBrowser(start.authorizationUrl, h.token);
    const code = location!.searchParams.get('code')!;
    const omitted = await client.exchangeRaw(code, start.codeVerifier, null);
    expect(omitted.status).toBe(400);
    expect(await omitted.json()).toEqual({ error: 'invalid_request', error_description: 'redirect_uri is required: the authorization request included one' });
    const other = await client.exchangeRaw(code, start.codeVerifier, 'http://127.0.0.1:7777/callback/other');
    expect(other.status).toBe(400);
    expect((await other.json()).error).toBe('invalid_grant');
    // Neither refusal used the code up.
    expect((await client.exchangeRaw(code, start.codeVerifier)).status).toBe(200);
  });

  it('a request without redirect_uri (the client registered one) may leave it out at /token too', async () => {
    const start = await client.start();
    start.authorizationUrl.searchParams.delete('redirect_uri');
    const { location } = await approveWithoutBrowser(start.authorizationUrl, h.token);
    expect(location!.href.startsWith(client.redirectUri)).toBe(true);
    expect((await client.exchangeRaw(location!.searchParams.get('code')!, start.codeVerifier, null)).status).toBe(200);
  });

  it('refresh tokens rotate; replaying a used one whose successor was used revokes the grant', async () => {
    const { tokens } = await signIn();
    const second = await client.refresh(tokens.refresh_token!);
    expect(second.refresh_token).not.toBe(tokens.refresh_token);
    expect(await mcpStatus(second.access_token)).toMatchObject({ status: 200 });
    const third = await client.refresh(second.refresh_token!);
    const replay = await client.refreshRaw(tokens.refresh_token!);
    expect(replay.status).toBe(400);
    expect((await replay.json()).error).toBe('invalid_grant');
    expect(await mcpStatus(third.access_token)).toEqual(refusal(/The access token was revoked/));
    expect((await client.refreshRaw(third.refresh_token!)).status).toBe(400);
    expect(h.logs.text).toContain('refresh token reused; grant revoked');
  });

  it('a refresh repeated at once (its answer lost) is answered again; the successor it replaced, presented later, revokes the grant', async () => {
    const { tokens } = await signIn();
    const lost = await client.refresh(tokens.refresh_token!);
    const repeated = await client.refresh(tokens.refresh_token!);
    expect(repeated.refresh_token).not.toBe(lost.refresh_token);
    expect(await mcpStatus(repeated.access_token)).toMatchObject({ status: 200 });
    expect(h.logs.text).toContain('refresh token repeated within its grace');
    // Whoever held the replaced successor (not the client that repeated) gives the grant away.
    const replay = await client.refreshRaw(lost.refresh_token!);
    expect(replay.status).toBe(400);
    expect(await mcpStatus(repeated.access_token)).toEqual(refusal(/The access token was revoked/));
  });

  it('revocation (RFC 7009) ends the grant: access token refused, refresh refused', async () => {
    const { tokens } = await signIn();
    expect(await mcpStatus(tokens.access_token)).toMatchObject({ status: 200 });
    await client.revoke(tokens.refresh_token!);
    expect(await mcpStatus(tokens.access_token)).toEqual(refusal(/The access token was revoked/));
    expect((await client.refreshRaw(tokens.refresh_token!)).status).toBe(400);
  });

  it('revoking the access token works too; another client cannot revoke it', async () => {
    const { tokens } = await signIn();
    await other.revoke(tokens.access_token);
    expect(await mcpStatus(tokens.access_token)).toMatchObject({ status: 200 });
    await client.revoke(tokens.access_token);
    expect(await mcpStatus(tokens.access_token)).toEqual(refusal(/The access token was revoked/));
  });

  it('revoking the member refuses its access and refresh tokens', async () => {
    const token = await h.addMember('oauth-leaver');
    const { tokens } = await signIn(token);
    expect(await mcpStatus(tokens.access_token)).toMatchObject({ status: 200 });
    await h.bff.ledger.revokeMember((await h.bff.ledger.listMembers()).find((member) => member.name === 'oauth-leaver')!.id);
    expect(await mcpStatus(tokens.access_token)).toEqual(refusal(/The member was revoked/));
    expect((await client.refreshRaw(tokens.refresh_token!)).status).toBe(400);
  });

  it('a token for another resource, signed by this very server, is refused', async () => {
    const { tokens } = await signIn();
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString());
    // The stored signing key (the candidate is ignored when one exists).
    const stored = await (await h.bff.ledger.oauthStore()).signingKey({ kid: 'unused', privateJwk: {} });
    const key = await importJWK(stored.privateJwk as JWK, 'ES256');
    const forged = await new SignJWT({ ...claims, aud: 'https://other.example/mcp' }).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: stored.kid }).sign(key);
    expect(await mcpStatus(forged)).toEqual(refusal(/The access token was issued for another resource/));
    const sameAudience = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: stored.kid }).sign(key);
    expect(await mcpStatus(sameAudience)).toMatchObject({ status: 200 });
  });

  it('garbage and tokens signed by another key are refused', async () => {
    expect(await mcpStatus('not.a.jwt')).toEqual(refusal(/The access token is not valid/));
    const { generateKeyPair } = await import('jose');
    const { privateKey } = await generateKeyPair('ES256');
    const foreign = await new SignJWT({ client_id: 'c', gid: 'g' })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt' })
      .setIssuer(`${h.bff.url}/`)
      .setAudience(mcpUrl)
      .setSubject('m')
      .setExpirationTime('5m')
      .sign(privateKey);
    expect(await mcpStatus(foreign)).toEqual(refusal(/The access token is not valid/));
  });
});

describe('privacy', () => {
  it('no member token, code, access or refresh token, and no text in the logs', async () => {
    const secretText = 'The launch code is Zebra Umbrella Quartz, do not share it.';
    const { callback, tokens } = await signIn();
    const mcp = await connectMcp(h.bff.url, tokens.access_token);
    await mcp.callTool({ name: 'humanize_text', arguments: { text: secretText, idempotency_key: newToolKey() } });
    await mcp.callTool({ name: 'humanize_text', arguments: { text: secretText, model: 'nope', idempotency_key: newToolKey() } });
    await mcp.close();
    const refreshed = await client.refresh(tokens.refresh_token!);
    await client.revoke(refreshed.refresh_token!);
    await mcpStatus(refreshed.access_token);
    expect(h.logs.text).toMatch(/oauth grant revoked/);
    const secrets = [h.token, callback.searchParams.get('code')!, tokens.access_token, tokens.refresh_token!, refreshed.access_token, refreshed.refresh_token!, 'Zebra Umbrella'];
    for (const secret of secrets) expect(h.logs.text).not.toContain(secret);
  });
});

describe('short-lived access tokens', () => {
  it('an expired access token is refused; a refresh gives a working one', async () => {
    // Long enough that the refreshed token outlives connecting on a loaded machine (a 1 s token did not).
    const lifetimeSeconds = 4;
    const short = await startHarness({ env: { BFF_OAUTH_ACCESS_TOKEN_SECONDS: String(lifetimeSeconds) } });
    try {
      const client = await OAuthTestClient.register(`${short.bff.url}/mcp`);
      const start = await client.start();
      const { location } = await approveWithoutBrowser(start.authorizationUrl, short.token);
      const tokens = await client.exchange(location!, start);
      expect(tokens.expires_in).toBe(lifetimeSeconds);
      const useToken = (token: string) =>
        fetch(`${short.bff.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
      expect((await useToken(tokens.access_token)).status).not.toBe(401);
      await new Promise((resolve) => setTimeout(resolve, lifetimeSeconds * 1000 + 1100));
      const response = await useToken(tokens.access_token);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="The access token has expired[^"]*", scope="detect humanize sources", resource_metadata="/);
      const fresh = await client.refresh(tokens.refresh_token!);
      expect(fresh.access_token).not.toBe(tokens.access_token);
      const mcp = await connectMcp(short.bff.url, fresh.access_token);
      expect((await mcp.listTools()).tools).toHaveLength(3);
      await mcp.close();
    } finally {
      await short.close();
    }
  });
});

describe('a public URL that cannot be an issuer', () => {
  it('plain http on another host: OAuth is off with a warning, member tokens still work', async () => {
    const plain = await startHarness({ env: { BFF_PUBLIC_URL: 'http://redline.internal.example' } });
    try {
      const refused = await fetch(`${plain.bff.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer');
      expect((await fetch(`${plain.bff.url}/.well-known/oauth-authorization-server`)).status).not.toBe(200);
      expect(plain.logs.text).toMatch(/OAuth sign-in is off: set BFF_PUBLIC_URL/);
      const mcp = await connectMcp(plain.bff.url, plain.token);
      expect((await mcp.listTools()).tools).toHaveLength(3);
      await mcp.close();
    } finally {
      await plain.close();
    }
  });
});
