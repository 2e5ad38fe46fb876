import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import { UnauthorizedError, extractWWWAuthenticateParams, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { startHarness, type Harness } from './harness.ts';
import { tokenHash } from '@redline/bff/auth/tokens';
import { connectMcp, newToolKey, toolJson } from './mcp-client.ts';
import { OAuthTestClient, approveWithoutBrowser } from './oauth-client.ts';

// OAuth scopes: one per product (detect, humanize, sources), so that a team can let an
// assistant or a browser sign-in check text without spending humanizer words. A call outside
// the grant is refused before anything is charged, with the scope challenge (RFC 6750
// section 3.1; the MCP specification's step-up) that the MCP SDK's client acts on.

const TEXT = 'The committee met on Tuesday to discuss the budget. Everyone agreed that the roof needs repair before winter.';

let h: Harness;
let mcpUrl: string;
let client: OAuthTestClient;

beforeAll(async () => {
  h = await startHarness();
  mcpUrl = `${h.bff.url}/mcp`;
  client = await OAuthTestClient.register(mcpUrl, 'http://127.0.0.1:7779/callback', 'Scoped assistant');
});
afterAll(() => h.close());

async function signIn(parameters: Record<string, string>, memberToken = h.token) {
  const start = await client.start(parameters);
  const approval = await approveWithoutBrowser(start.authorizationUrl, memberToken);
  return { page: approval.page, tokens: await client.exchange(approval.location!, start, parameters.resource) };
}

function mcpCall(accessToken: string, name: string, args: Record<string, unknown>): Promise<Response> {
  return fetch(mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args } }),
  });
}

const charged = async (token: string) => (await h.call('/v1/usage', undefined, { token })).body.products;

describe('discovery', () => {
  it('the authorization server and both protected resources list the scopes', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource/v1']) {
      expect((await (await fetch(h.bff.url + path)).json()).scopes_supported, path).toEqual(['detect', 'humanize', 'sources']);
    }
  });
});

describe('authorization requests', () => {
  it('no scope asks for all three: the consent page lists them and the token response names them', async () => {
    const { page, tokens } = await signIn({});
    expect(page).toContain('check text for AI writing');
    expect(page).toContain('rewrite text (humanizer words)');
    expect(page).toContain('check text for sources');
    expect(tokens.scope).toBe('detect humanize sources');
  });

  it('a narrower scope: the consent page lists only it, and so does the token response', async () => {
    const { page, tokens } = await signIn({ scope: 'detect' });
    expect(page).toContain('check text for AI writing');
    expect(page).not.toContain('rewrite text');
    expect(page).not.toContain('check text for sources');
    expect(tokens.scope).toBe('detect');
  });

  it('offline_access, asked for by habit, is ignored; an unknown scope is refused with invalid_scope naming the known ones', async () => {
    expect((await signIn({ scope: 'offline_access sources' })).tokens.scope).toBe('sources');
    const start = await client.start({ scope: 'detect admin' });
    const response = await fetch(start.authorizationUrl, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(client.authorizationError(new URL(response.headers.get('location')!), start.state)).toEqual({
      error: 'invalid_scope',
      error_description: 'unknown scope admin: scope may name detect, humanize, sources (or be left out for all of them)',
    });
  });

  it('a refresh keeps the grant\'s scopes and cannot widen them', async () => {
    const { tokens } = await signIn({ scope: 'detect' });
    const wider = await fetch(client.as.token_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: client.client.client_id, scope: 'detect humanize' }),
    });
    expect(wider.status).toBe(400);
    expect(await wider.json()).toEqual({ error: 'invalid_scope', error_description: 'scope may only name scopes of the grant: detect' });
    const refreshed = await client.refresh(tokens.refresh_token!);
    expect(refreshed.scope).toBe('detect');
    expect((await mcpCall(refreshed.access_token, 'humanize_text', { text: TEXT, idempotency_key: newToolKey() })).status).toBe(403);
  });

  it('a refresh may name offline_access, ignored as at the authorization request', async () => {
    const { tokens } = await signIn({ scope: 'offline_access sources' });
    const refreshed = await fetch(client.as.token_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: client.client.client_id, scope: 'offline_access sources' }),
    });
    expect(refreshed.status).toBe(200);
    expect((await refreshed.json()).scope).toBe('sources');
  });

  it('a grant made before scopes existed (it holds "mcp") allows everything, and a refresh naming "mcp" is not refused', async () => {
    // Its authorization code as an earlier BFF stored it: the scope the client asked for, kept as it was.
    await h.addMember('before-scopes');
    const member = (await h.bff.ledger.listMembers()).find((candidate) => candidate.name === 'before-scopes')!;
    const code = `legacy-${newToolKey()}`;
    const codeVerifier = oauth.generateRandomCodeVerifier();
    await (await h.bff.ledger.oauthStore()).saveCode({
      codeHash: tokenHash(code),
      clientId: client.client.client_id,
      memberId: member.id,
      redirectUri: client.redirectUri,
      redirectUriSent: true,
      codeChallenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
      resource: mcpUrl,
      scopes: ['mcp'],
      expiresAt: Date.now() + 60_000,
    });
    const callback = new URL(client.redirectUri);
    callback.search = new URLSearchParams({ code, state: 'legacy', iss: client.as.issuer }).toString();
    const tokens = await client.exchange(callback, { authorizationUrl: callback, codeVerifier, state: 'legacy' });
    expect(tokens.scope).toBe('detect humanize sources');
    expect((await mcpCall(tokens.access_token, 'humanize_text', { text: TEXT, idempotency_key: newToolKey() })).status).toBe(200);

    const refreshed = await fetch(client.as.token_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: client.client.client_id, scope: 'mcp' }),
    });
    expect(refreshed.status).toBe(200);
    expect((await refreshed.json()).scope).toBe('detect humanize sources');
  });
});

describe('MCP tool calls', () => {
  it('a tool the grant allows runs; one it does not is refused with 403 and the scope challenge, before anything is charged', async () => {
    const { tokens } = await signIn({ scope: 'detect' });
    const detected = await mcpCall(tokens.access_token, 'detect_ai_text', { text: TEXT, idempotency_key: newToolKey() });
    expect(detected.status).toBe(200);
    expect(JSON.stringify(await detected.json())).not.toContain('"isError":true');

    const before = await charged(h.token);
    const key = newToolKey();
    const refused = await mcpCall(tokens.access_token, 'humanize_text', { text: TEXT, idempotency_key: key });
    expect(refused.status).toBe(403);
    // As the MCP SDK's client reads it to sign in again for more (step-up).
    expect(extractWWWAuthenticateParams(refused)).toEqual({
      error: 'insufficient_scope',
      scope: 'detect humanize',
      resourceMetadataUrl: new URL(`${h.bff.url}/.well-known/oauth-protected-resource/mcp`),
    });
    const body = await refused.json();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { data: { error: { code: 'insufficient_scope' } } } });
    expect(body.error.message).toBe('This sign-in was not allowed to rewrite text (humanizer words). Sign in again and allow the "humanize" scope.');
    expect(await charged(h.token)).toEqual(before);

    // The key was not used up: a member token (not scoped) runs the same call with it.
    const mcp = await connectMcp(h.bff.url, h.token);
    try {
      const result = await mcp.callTool({ name: 'humanize_text', arguments: { text: TEXT, idempotency_key: key } });
      expect(toolJson(result as never).replayed).toBe(false);
    } finally {
      await mcp.close();
    }
  });

  it('the MCP SDK client (1.32) signs in again for the challenge\'s scopes only when it holds no refresh token', async () => {
    const { tokens } = await signIn({ scope: 'detect' });
    const issuer = client.as.issuer;
    const stepUp = async (held: OAuthTokens) => {
      let redirectedTo: URL | undefined;
      const provider: OAuthClientProvider = {
        redirectUrl: client.redirectUri,
        clientMetadata: { client_name: 'Scoped assistant', redirect_uris: [client.redirectUri] },
        clientInformation: () => ({ ...(client.client as { client_id: string }), issuer }),
        saveClientInformation: () => {},
        tokens: () => ({ ...held, issuer }),
        saveTokens: (next) => void (held = next),
        redirectToAuthorization: (url) => void (redirectedTo = url),
        saveCodeVerifier: () => {},
        codeVerifier: () => '',
      };
      const mcp = new Client({ name: 'step-up', version: '1.0.0' });
      await mcp.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
      try {
        const error = await mcp.callTool({ name: 'humanize_text', arguments: { text: TEXT, idempotency_key: newToolKey() } }).then(() => undefined, (thrown: unknown) => thrown);
        return { error, redirectedTo };
      } finally {
        await mcp.close();
      }
    };

    // With a refresh token (this server always issues one) the SDK refreshes instead of signing in; a refresh
    // cannot widen a grant (RFC 6749 section 6), the same 403 comes back, and the SDK gives up (typescript-sdk #2255).
    const refreshing = await stepUp(tokens as OAuthTokens);
    expect(String(refreshing.error)).toContain('Server returned 403 after trying upscoping');
    expect(refreshing.redirectedTo).toBeUndefined();

    const signingIn = await stepUp({ access_token: tokens.access_token, token_type: 'Bearer' });
    expect(signingIn.error).toBeInstanceOf(UnauthorizedError);
    expect(signingIn.redirectedTo?.searchParams.get('scope')).toBe('detect humanize');
  });

  it('a batch or a notification holding a call outside the grant is refused whole, before any of it runs', async () => {
    const { tokens } = await signIn({ scope: 'detect' });
    const before = await charged(h.token);
    const call = (name: string, id?: number) => ({ jsonrpc: '2.0', ...(id === undefined ? {} : { id }), method: 'tools/call', params: { name, arguments: { text: TEXT, idempotency_key: newToolKey() } } });
    const answers: unknown[] = [];
    for (const body of [[call('detect_ai_text', 1), call('humanize_text', 2), call('check_sources', 3)], call('humanize_text')]) {
      const response = await fetch(mcpUrl, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(403);
      expect(extractWWWAuthenticateParams(response).error).toBe('insufficient_scope');
      answers.push(await response.json());
    }
    // A batch is answered as a batch (JSON-RPC 2.0 section 6): one error per request, each saying why it did not run.
    const [batch, single] = answers as [Array<{ id: number; error: { message: string; data: { error: { code: string } } } }>, { error: { data: { error: { code: string } } } }];
    expect(batch.map((answer) => [answer.id, answer.error.data.error.code])).toEqual([[1, 'insufficient_scope'], [2, 'insufficient_scope'], [3, 'insufficient_scope']]);
    expect(batch[0]!.error.message).toMatch(/^Not run: a call in the same batch was refused\. .*"humanize" scope/);
    expect(batch[1]!.error.message).toMatch(/^This sign-in was not allowed to rewrite text/);
    // Each refused call gives its own reason.
    expect(batch[2]!.error.message).toMatch(/^This sign-in was not allowed to check text for sources/);
    expect(single.error.data.error.code).toBe('insufficient_scope');
    expect(await charged(h.token)).toEqual(before);
  });

  it('tools/list still lists every tool (a client learns what it may ask for)', async () => {
    const { tokens } = await signIn({ scope: 'sources' });
    const response = await fetch(mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect((await response.json()).result.tools.map((tool: { name: string }) => tool.name)).toEqual(['detect_ai_text', 'humanize_text', 'check_sources']);
  });
});

describe('/v1 with an OAuth sign-in (the extension)', () => {
  it('an operation outside the grant is 403 insufficient_scope with the challenge; usage and the allowed operation answer', async () => {
    const { tokens } = await signIn({ scope: 'sources', resource: `${h.bff.url}/v1` });
    const before = await charged(h.token);
    const refused = await h.call('/v1/detect', { operationId: newToolKey(), text: TEXT }, { token: tokens.access_token });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: { code: 'insufficient_scope', message: 'This sign-in was not allowed to check text for AI writing (detector words). Sign in again and allow the "detect" scope.' },
    });
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="sources detect", error_description="This sign-in was not allowed to check text for AI writing (detector words). Sign in again and allow the detect scope.", resource_metadata="${h.bff.url}/.well-known/oauth-protected-resource/v1"`,
    );
    // The path as routed (a trailing slash, another case) is refused the same way.
    for (const path of ['/v1/detect/', '/v1/DETECT']) expect((await h.call(path, { operationId: newToolKey(), text: TEXT }, { token: tokens.access_token })).status, path).toBe(403);
    expect(await charged(h.token)).toEqual(before);
    expect((await h.call('/v1/usage', undefined, { token: tokens.access_token })).status).toBe(200);
    const sources = await h.call('/v1/plagiarism', { operationId: newToolKey(), text: TEXT }, { token: tokens.access_token });
    expect(sources.status).toBe(200);
  });
});
