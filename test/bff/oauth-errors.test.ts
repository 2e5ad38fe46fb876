import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';
import { OAuthTestClient } from './oauth-client.ts';

// The OAuth error responses of /token, /revoke and /register (RFC 6749 section 5.2, which RFC
// 7009 section 2.2.1 and RFC 7591 section 3.2.2 follow): error_description is printable ASCII
// without `"` and `\`. The MCP SDK's handlers put zod's JSON there, quotes, newlines and all;
// /authorize was already held to the rule (oauth.test.ts), these were not.

let h: Harness;
let client: OAuthTestClient;

beforeAll(async () => {
  h = await startHarness();
  client = await OAuthTestClient.register(`${h.bff.url}/mcp`);
});
afterAll(() => h.close());

const RFC_6749_DESCRIPTION = /^[\x20\x21\x23-\x5B\x5D-\x7E]{1,300}$/;

const form = (pathname: string, parameters: Record<string, string>) =>
  fetch(`${h.bff.url}${pathname}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(parameters) });

async function refusal(response: Response): Promise<{ error: string; error_description: string }> {
  expect(response.status).toBe(400);
  const body = await response.json();
  expect(body.error_description).toMatch(RFC_6749_DESCRIPTION);
  return body;
}

describe('error_description says what to fix, in the characters RFC 6749 allows', () => {
  it('/token: a missing parameter is named', async () => {
    expect(await refusal(await form('/token', { grant_type: 'authorization_code', code: 'x', code_verifier: 'y'.repeat(43) }))).toEqual({
      error: 'invalid_request',
      error_description: 'client_id is required',
    });
    expect(await refusal(await form('/token', { client_id: client.client.client_id }))).toEqual({ error: 'invalid_request', error_description: 'grant_type is required' });
    expect(await refusal(await form('/token', { grant_type: 'authorization_code', client_id: client.client.client_id, code: 'x' }))).toEqual({
      error: 'invalid_request',
      error_description: 'code_verifier is required',
    });
  });

  it('/token: a JSON body is told to send a form', async () => {
    const response = await fetch(`${h.bff.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: 'x', client_id: client.client.client_id }),
    });
    expect(await refusal(response)).toEqual({ error: 'invalid_request', error_description: 'send the parameters as an application/x-www-form-urlencoded body' });
  });

  it('/revoke: a missing token is named', async () => {
    expect(await refusal(await form('/revoke', { client_id: client.client.client_id }))).toEqual({ error: 'invalid_request', error_description: 'token is required' });
  });

  it('/register: the field in error is named', async () => {
    const response = await fetch(`${h.bff.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['https://a.example/cb'], client_uri: 'javascript:alert(1)' }),
    });
    expect(await refusal(response)).toEqual({ error: 'invalid_client_metadata', error_description: 'client_uri: URL cannot use javascript:, data:, or vbscript: scheme' });
  });

  it('/register: a client name the consent page could not show, or a hundred redirect URIs, are refused', async () => {
    const register = (metadata: Record<string, unknown>) =>
      fetch(`${h.bff.url}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: ['https://a.example/cb'], ...metadata }) });
    expect(await refusal(await register({ client_name: 'n'.repeat(5000) }))).toEqual({ error: 'invalid_client_metadata', error_description: 'client_name may be at most 200 characters' });
    const many = Array.from({ length: 100 }, (_, i) => `https://a.example/cb${i}`);
    expect(await refusal(await register({ redirect_uris: many }))).toEqual({ error: 'invalid_redirect_uri', error_description: 'redirect_uris may list at most 10 redirect URIs' });
    expect((await register({ client_name: 'A real assistant' })).status).toBe(201);
  });
});
