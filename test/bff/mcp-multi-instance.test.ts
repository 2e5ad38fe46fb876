import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import { countWords } from '@redline/shared';
import { loadConfig } from '@redline/bff/config';
import { createMember } from '@redline/bff/members';
import { startBff, type RunningBff } from '@redline/bff/server';
import { PostgresLedger } from '@redline/bff/storage/postgres';
import { startUpstreamDouble, type RunningUpstreamDouble } from '../upstream/server.ts';
import { upstreamControl } from '../upstream/client.ts';
import { MIXED_TEXT } from '../upstream/fixtures.ts';
import { FAST_RETRIES, LogCapture, POSTGRES_URL, dropSchema } from './harness.ts';
import { connectMcp, newToolKey } from './mcp-client.ts';
import { mcpStatus as mcpStatusAt } from './oauth-client.ts';

// Two BFF instances on one PostgreSQL ledger behind one public address (a load balancer):
// OAuth tokens issued by one are accepted, refreshed and revoked through the other, and an
// MCP retry landing on the other instance is not charged again.

const PUBLIC_URL = 'http://localhost:18999';
const schema = `mcp_multi_${process.pid}`;
const folder = mkdtempSync(path.join(tmpdir(), 'redline-mcp-multi-'));
let double: RunningUpstreamDouble;
let instances: RunningBff[];
let token: string;

beforeAll(async () => {
  double = await startUpstreamDouble({ testMode: true, inProgressRetryAfterSeconds: 1 });
  const env = { ...FAST_RETRIES, BFF_PORT: '0', BFF_DATA_DIR: folder, BFF_PUBLIC_URL: PUBLIC_URL, UPSTREAM_BASE_URL: double.url, UPSTREAM_API_KEY: 'demo-key-primary' };
  instances = [];
  for (let i = 0; i < 2; i++) {
    instances.push(await startBff(loadConfig(env), { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: new LogCapture() }));
  }
  token = (await createMember(instances[0]!.ledger, 'mcp-shared')).token;
});

afterAll(async () => {
  for (const instance of instances ?? []) await instance.stop();
  await double?.close();
  rmSync(folder, { recursive: true, force: true });
  await dropSchema(schema);
});

const form = (url: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(body) });

const mcpStatus = (instance: RunningBff, accessToken: string) => mcpStatusAt(instance.url, accessToken);

it('both instances describe the same authorization server and resource', async () => {
  for (const instance of instances) {
    const metadata = await (await fetch(`${instance.url}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(metadata).toMatchObject({ resource: `${PUBLIC_URL}/mcp`, authorization_servers: [`${PUBLIC_URL}/`] });
  }
});

it('a grant made on one instance is used, refreshed and revoked on the other', async () => {
  const [a, b] = instances as [RunningBff, RunningBff];
  const redirectUri = 'http://127.0.0.1:7777/callback';
  const client = await (
    await fetch(`${a.url}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'LB assistant', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }) })
  ).json();
  const verifier = oauth.generateRandomCodeVerifier();
  const authorize = new URL(`${a.url}/authorize`);
  for (const [name, value] of Object.entries({ client_id: client.client_id, redirect_uri: redirectUri, response_type: 'code', code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', resource: `${PUBLIC_URL}/mcp` })) {
    authorize.searchParams.set(name, value);
  }
  const page = await (await fetch(authorize)).text();
  const request = /name="request" value="([^"]+)"/.exec(page)![1]!;
  // The consent form is posted through the other instance, as a load balancer may route it.
  const consent = await form(`${b.url}/oauth/consent`, { request, credential: token, decision: 'approve' }, { origin: PUBLIC_URL });
  expect(consent.status).toBe(302);
  const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;

  const tokens = await (await form(`${a.url}/token`, { grant_type: 'authorization_code', client_id: client.client_id, code, code_verifier: verifier, redirect_uri: redirectUri })).json();
  expect(tokens.access_token).toBeTruthy();
  expect(await mcpStatus(b, tokens.access_token)).toBe(200);

  const refreshed = await (await form(`${b.url}/token`, { grant_type: 'refresh_token', client_id: client.client_id, refresh_token: tokens.refresh_token })).json();
  expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
  expect(await mcpStatus(a, refreshed.access_token)).toBe(200);

  expect((await form(`${a.url}/revoke`, { client_id: client.client_id, token: refreshed.refresh_token })).status).toBe(200);
  expect(await mcpStatus(b, refreshed.access_token)).toBe(401);
  expect(await mcpStatus(a, tokens.access_token)).toBe(401);
});

it('an MCP retry that lands on the other instance replays; charged once', async () => {
  const control = upstreamControl(double.url);
  const before = await control.account('demo');
  const idempotency_key = newToolKey();
  const [first, second] = await Promise.all(instances.map((instance) => connectMcp(instance.url, token)));
  const one = await first!.callTool({ name: 'detect_ai_text', arguments: { text: MIXED_TEXT, idempotency_key } });
  const two = await second!.callTool({ name: 'detect_ai_text', arguments: { text: MIXED_TEXT, idempotency_key } });
  await Promise.all([first!.close(), second!.close()]);
  expect(two.structuredContent).toEqual({ ...(one.structuredContent as object), replayed: true });
  expect((await control.account('demo')).charged.detector - before.charged.detector).toBe(countWords(MIXED_TEXT));
});
