import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test, chromium, type Browser } from '@playwright/test';
import { expect } from './expect.ts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, discoverAuthorizationServerMetadata, refreshAuthorization, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

// A hosted MCP client signing in to the BFF the way the MCP authorization spec describes, with
// the SDK's own client: 401 -> protected-resource metadata -> authorization-server metadata ->
// dynamic registration -> authorize with PKCE in Debian's Chromium -> the member approves on
// the consent page -> the loopback redirect -> token -> tools/call -> refresh -> revoke.

const MIXED_TEXT =
  'Moreover, it is important to note that this landscape is ever-evolving. I went to the shop yesterday and honestly it was kinda closed.';

function spawnTsx(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
}

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if (await fetch(url).then((response) => response.status < 500, () => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not come up`);
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function freePort(): Promise<number> {
  const server = createServer();
  return listen(server).then((port) => new Promise((resolve) => server.close(() => resolve(port))));
}

/** What a hosted client keeps: its registration, the PKCE verifier and its tokens; the browser part is handed to the test. */
class RecordingProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  constructor(readonly redirectUrl: string) {}
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'E2E Assistant', redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  state() {
    return `state-${Math.random().toString(36).slice(2)}`;
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

let browser: Browser;
let children: ChildProcess[] = [];
let dataDir: string;
let bffUrl: string;
let memberToken: string;
let callbackServer: Server;
let callbackPort: number;
let callbacks: URL[] = [];

test.beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'redline-e2e-oauth-'));
  const [doublePort, bffPort] = [await freePort(), await freePort()];
  children = [
    spawnTsx(['test/upstream/main.ts', '--port', String(doublePort), '--test-mode'], {}),
    spawnTsx(['bff/src/main.ts'], {
      BFF_PORT: String(bffPort),
      BFF_DATA_DIR: dataDir,
      BFF_LOG_LEVEL: 'warn',
      UPSTREAM_BASE_URL: `http://127.0.0.1:${doublePort}`,
      UPSTREAM_API_KEY: 'demo-key-primary',
    }),
  ];
  bffUrl = `http://127.0.0.1:${bffPort}`;
  await waitFor(`http://127.0.0.1:${doublePort}/__control/state`);
  await waitFor(`${bffUrl}/readyz`);
  const output = execFileSync(process.execPath, ['--import', 'tsx', 'bff/src/cli.ts', 'add', 'oauth-e2e'], { env: { ...process.env, BFF_DATA_DIR: dataDir }, encoding: 'utf8' });
  memberToken = /(rl_[A-Za-z0-9_-]{43})/.exec(output)![1]!;

  // The client's loopback redirect (RFC 8252), as a desktop assistant would listen for it.
  callbackServer = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${callbackPort}`);
    if (url.pathname !== '/callback') return void res.writeHead(404).end();
    callbacks.push(url);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<p id="done">Signed in. You can close this tab.</p>');
  });
  callbackPort = await listen(callbackServer);

  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});

test.afterAll(async () => {
  await browser?.close();
  callbackServer?.close();
  for (const child of children) child.kill('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
});

test('a hosted MCP client signs in with OAuth 2.1 + PKCE, calls a tool, refreshes and revokes', async () => {
  const mcpUrl = new URL(`${bffUrl}/mcp`);
  const provider = new RecordingProvider(`http://127.0.0.1:${callbackPort}/callback`);

  // 1. Without tokens the SDK client is refused, discovers the server and registers itself.
  const first = new Client({ name: 'e2e-assistant', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
  await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.information?.client_id).toBeTruthy();
  const authorizationUrl = provider.authorizationUrl!;
  expect(authorizationUrl.origin).toBe(bffUrl);
  expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorizationUrl.searchParams.get('resource')).toBe(mcpUrl.href);
  // The SDK's client asks for the scopes the 401's challenge names (the protected-resource metadata lists the same): every product here.
  expect(authorizationUrl.searchParams.get('scope')).toBe('detect humanize sources');

  // 2. The member approves in the browser, signing in with their member token.
  const page = await browser.newPage();
  await page.goto(authorizationUrl.href);
  await expect(page.locator('#client-name')).toHaveText('E2E Assistant');
  await expect(page.locator('#redirect-host')).toHaveText(`127.0.0.1:${callbackPort}`);
  await expect(page.locator('#scopes li')).toHaveText(['check text for AI writing (detector words)', 'rewrite text (humanizer words)', 'check text for sources (plagiarism words)']);
  await page.locator('#credential').fill(`rl_${'Z'.repeat(43)}`);
  await page.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByRole('alert')).toContainText('unknown, revoked');
  await page.locator('#credential').fill(memberToken);
  await page.getByRole('button', { name: 'Approve' }).click();
  await expect(page.locator('#done')).toHaveText(/Signed in/);
  expect(callbacks).toHaveLength(1);
  const callback = callbacks[0]!;
  expect(callback.searchParams.get('state')).toMatch(/^state-/);
  expect(callback.searchParams.get('state')).toBe(authorizationUrl.searchParams.get('state'));
  expect(callback.searchParams.get('iss')).toBe(`${bffUrl}/`);
  await page.close();

  // 3. The client exchanges the code (with its PKCE verifier) and calls a tool.
  await transport.finishAuth(callback.searchParams.get('code')!);
  expect(provider.saved?.access_token).toBeTruthy();
  const client = new Client({ name: 'e2e-assistant', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  const result = await client.callTool({ name: 'detect_ai_text', arguments: { text: MIXED_TEXT, idempotency_key: `e2e-oauth-${Date.now()}` } });
  expect(result.isError).toBeFalsy();
  const charged = (result.structuredContent as { wordsCharged: number }).wordsCharged;
  expect(charged).toBeGreaterThan(0);
  await client.close();
  const usage = await (await fetch(`${bffUrl}/v1/usage`, { headers: { authorization: `Bearer ${memberToken}` } })).json();
  expect(usage).toMatchObject({ member: { name: 'oauth-e2e' }, products: { detector: { wordsCharged: charged } } });

  // 4. Refresh: a new access token and a new refresh token; the new one works.
  const metadata = (await discoverAuthorizationServerMetadata(new URL(`${bffUrl}/`)))!;
  const before = provider.saved!;
  const refreshed = await refreshAuthorization(new URL(`${bffUrl}/`), { metadata, clientInformation: provider.information!, refreshToken: before.refresh_token!, resource: mcpUrl });
  expect(refreshed.refresh_token).toBeTruthy();
  expect(refreshed.refresh_token).not.toBe(before.refresh_token);
  provider.saveTokens(refreshed);
  const again = new Client({ name: 'e2e-assistant', version: '1.0.0' });
  await again.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  expect((await again.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['check_sources', 'detect_ai_text', 'humanize_text']);
  await again.close();

  // 5. Revoke: the grant ends; the access token is refused with a challenge naming the metadata.
  const revoked = await fetch((metadata as { revocation_endpoint?: string }).revocation_endpoint!, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: refreshed.refresh_token!, client_id: provider.information!.client_id }),
  });
  expect(revoked.status).toBe(200);
  const refused = await fetch(mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${refreshed.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  expect(refused.status).toBe(401);
  expect(refused.headers.get('www-authenticate')).toBe(
    `Bearer error="invalid_token", error_description="The access token was revoked. Sign in again.", scope="detect humanize sources", resource_metadata="${bffUrl}/.well-known/oauth-protected-resource/mcp"`,
  );
});
