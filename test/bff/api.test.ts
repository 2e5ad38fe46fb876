import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BffCostResponse, BffUsageResponse, countWords } from '@redline/shared';
import { MIXED_TEXT } from '../upstream/fixtures.ts';
import { newOperationId, startHarness, type Harness } from './harness.ts';

const EXTENSION_ORIGIN = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';
const FIREFOX_ORIGIN = 'moz-extension://0f8e2c1a-7b3d-4e5f-9a6b-1c2d3e4f5a6b';

let h: Harness;

/** Sends a request as written, for targets fetch() does not send, and reads the whole answer. */
function rawRequest(host: string, request: string): Promise<string> {
  const url = new URL(`http://${host}`);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.end(request));
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk)).on('end', () => resolve(answer)).on('error', reject);
  });
}

beforeAll(async () => {
  h = await startHarness({
    env: {
      BFF_MAX_DOCUMENT_CHARACTERS: '2000',
      BFF_MAX_BODY_BYTES: '20000',
      BFF_ALLOWED_ORIGINS: `${EXTENSION_ORIGIN},${FIREFOX_ORIGIN}`,
      BFF_MEMBER_RATE_LIMIT: '200',
    },
  });
});
afterAll(() => h.close());

describe('bad input gets a 4xx that says what to fix', () => {
  it.each([
    ['empty text', { operationId: 'op-empty-1', text: ' \n\u00a0 ' }, 400, 'empty_text', /empty/],
    ['invisible characters only', { operationId: 'op-empty-2', text: '\u200b\u2060 \ufe0f' }, 400, 'empty_text', /only invisible characters/],
    ['text over the limit', { operationId: 'op-long-1', text: 'word '.repeat(401) }, 400, 'text_too_long', /at most 2,000/],
    ['unknown version', { operationId: 'op-version-1', text: 'Hello.', version: 'v7' }, 400, 'unknown_version', /v1, v2, v3/],
    ['missing operation id', { text: 'Hello.' }, 400, 'invalid_operation_id', /operationId/],
    ['bad operation id', { operationId: 'no spaces!', text: 'Hello.' }, 400, 'invalid_operation_id', /letters, digits/],
    ['text not a string', { operationId: 'op-type-1', text: ['Hello'] }, 400, 'invalid_request', /text must be a string/],
    ['not an object', ['Hello'], 400, 'invalid_request', /JSON object/],
    // PostgreSQL's jsonb cannot hold a result that echoes them: refused before anything is charged.
    ['a NUL character', { operationId: 'op-nul-1', text: 'Copied from a PDF\u0000 with a stray NUL.' }, 400, 'invalid_request', /NUL character/],
    ['half an emoji', { operationId: 'op-surrogate-1', text: 'A broken emoji \ud83d here.' }, 400, 'invalid_request', /surrogate/],
  ])('%s', async (_label, body, status, code, message) => {
    const response = await h.call('/v1/detect', body);
    expect(response.status).toBe(status);
    expect(response.body.error.code).toBe(code);
    expect(response.body.error.message).toMatch(message);
  });

  it('unknown humanizer model', async () => {
    const response = await h.call('/v1/humanize', { operationId: newOperationId(), text: 'Hello.', model: 'gpt-9' });
    expect(response.body.error).toMatchObject({ code: 'unknown_model', fields: { model: expect.stringMatching(/cognia/) } });
  });

  it('malformed JSON, wrong content type, oversized body', async () => {
    const malformed = await h.call('/v1/detect', undefined, { rawBody: '{"operationId": "op-bad-json", "text": "unterminated' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('malformed_json');
    const wrongType = await h.call('/v1/detect', undefined, { rawBody: 'text=hello', contentType: 'application/x-www-form-urlencoded' });
    expect(wrongType.status).toBe(415);
    expect(wrongType.body.error.code).toBe('unsupported_content_type');
    const oversized = await h.call('/v1/detect', { operationId: newOperationId(), text: 'x'.repeat(25_000) });
    expect(oversized.status).toBe(413);
    expect(oversized.body.error.code).toBe('body_too_large');
  });

  it('sent nothing upstream for any of it', async () => {
    expect(await h.control.received()).toEqual([]);
  });

  it('a whole emoji is fine', async () => {
    expect((await h.call('/v1/detect', { operationId: newOperationId(), text: 'A whole emoji \ud83d\ude00 here.' })).status).toBe(200);
  });

  it('unknown endpoints say where the API is described', async () => {
    const response = await h.call('/v2/detect', { text: 'x' });
    expect(response.status).toBe(404);
    expect(response.body.error.message).toMatch(/openapi\.json/);
    // Outside the API's path no token is asked for; inside it, the token comes first.
    const anonymous = await h.call('/v2/detect', { text: 'x' }, { token: null });
    expect([anonymous.status, anonymous.body.error.code]).toEqual([404, 'not_found']);
    const insideApi = await h.call('/v1/nothing-here', undefined, { token: null });
    expect([insideApi.status, insideApi.body.error.code]).toEqual([401, 'unauthorized']);
    const known = await h.call('/v1/nothing-here', undefined);
    expect([known.status, known.body.error.code]).toEqual([404, 'not_found']);
  });

  it('routes the API as Express did: a query, a trailing slash and letter case aside, HEAD as GET; another method is 405', async () => {
    for (const pathname of ['/v1/cost?draft=1', '/v1/cost/', '/v1/Cost']) {
      const response = await h.call(pathname, { text: 'Two words.' });
      expect([pathname, response.status, response.body.words]).toEqual([pathname, 200, 2]);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(response.raw));
    }
    const head = await h.call('/v1/usage', undefined, { method: 'HEAD' });
    expect([head.status, head.raw]).toEqual([200, '']);
    // Another method on a path the API answers is 405 naming the method it takes (Express answered 404).
    const wrongMethod = await h.call('/v1/cost', undefined, { method: 'GET' });
    expect([wrongMethod.status, wrongMethod.body.error.code, wrongMethod.headers.get('allow')]).toEqual([405, 'method_not_allowed', 'POST']);
    expect(wrongMethod.body.error.message).toBe('/v1/cost takes POST, not GET. The API is described at /openapi.json.');
    const options = await h.call('/v1/usage', undefined, { method: 'OPTIONS' });
    expect([options.status, options.headers.get('allow')]).toEqual([204, 'GET, HEAD']);
    // An absolute-form request target (RFC 9112 section 3.2.2), and a fragment, as a client may send them.
    const { host } = new URL(h.bff.url);
    for (const target of [`${h.bff.url}/v1/usage`, '/v1/usage#totals']) {
      const answer = await rawRequest(host, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${h.token}\r\nConnection: close\r\n\r\n`);
      expect([target, answer.split('\r\n')[0]]).toEqual([target, 'HTTP/1.1 200 OK']);
    }
    // The request metric names the route, also for a refused request.
    await h.call('/v1/usage', undefined, { token: 'rl_unknown0000000000000000000000' });
    const metrics = (await h.call('/metrics', undefined, { token: null })).raw;
    expect(metrics).toMatch(/bff_http_requests_total\{route="\/v1\/cost",status="200"\} [3-9]/);
    expect(metrics).toMatch(/bff_http_requests_total\{route="\/v1\/usage",status="401"\} 1/);
    expect(metrics).toMatch(/bff_http_requests_total\{route="unmatched",status="404"\}/);
  });
});

describe('members', () => {
  it('refuses missing, malformed, unknown and revoked tokens', async () => {
    const missing = await h.call('/v1/usage', undefined, { token: null });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe(`Bearer scope="detect humanize sources", resource_metadata="${h.bff.url}/.well-known/oauth-protected-resource/v1"`);
    expect(missing.body.error.message).toMatch(/Authorization: Bearer/);
    expect((await h.call('/v1/usage', undefined, { token: 'not-a-token' })).status).toBe(401);
    expect((await h.call('/v1/usage', undefined, { token: `rl_${'A'.repeat(43)}` })).status).toBe(401);
    // Each refusal says what to fix: a token cut short when copied, a token sent without "Bearer".
    const cutShort = await h.call('/v1/usage', undefined, { token: 'rl_nope' });
    expect([cutShort.status, cutShort.body.error.message]).toEqual([401, expect.stringMatching(/not a whole member token.*Copy the whole token/)]);
    const withoutScheme = await fetch(`${h.bff.url}/v1/usage`, { headers: { authorization: `rl_${'A'.repeat(43)}` } });
    expect([withoutScheme.status, (await withoutScheme.json()).error.message]).toEqual([401, 'Send the token as "Authorization: Bearer <token>".']);

    const token = await h.addMember('short-lived');
    expect((await h.call('/v1/usage', undefined, { token })).status).toBe(200);
    expect(await h.bff.ledger.revokeMember((await h.bff.ledger.listMembers()).find((member) => member.name === 'short-lived')!.id)).toBe(true);
    const revoked = await h.call('/v1/usage', undefined, { token });
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.message).toMatch(/revoked/);
  });

  it('stores tokens only as hashes', async () => {
    const members = await h.bff.ledger.listMembers();
    expect(JSON.stringify(members)).not.toContain(h.token);
    expect(members.find((member) => member.name === 'tester')?.tokenPrefix).toBe(`${h.token.slice(0, 7)}…`);
    expect(h.token).toMatch(/^rl_[A-Za-z0-9_-]{43}$/);
  });

  it('rate-limits each member on their own', async () => {
    const limited = await startHarness({ env: { BFF_MEMBER_RATE_LIMIT: '3', BFF_MEMBER_RATE_WINDOW_SECONDS: '60' } });
    try {
      for (let i = 0; i < 3; i++) expect((await limited.call('/v1/usage')).status).toBe(200);
      const refused = await limited.call('/v1/usage');
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      const other = await limited.addMember('other');
      expect((await limited.call('/v1/usage', undefined, { token: other })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('enforces a word budget before forwarding, and reports usage', async () => {
    const budget = countWords(MIXED_TEXT) + 5;
    const token = await h.addMember('budgeted', { detector: budget });
    const before = (await h.control.received()).length;
    expect((await h.call('/v1/detect', { operationId: newOperationId(), text: MIXED_TEXT }, { token })).status).toBe(200);
    const refused = await h.call('/v1/detect', { operationId: newOperationId(), text: MIXED_TEXT }, { token });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'member_budget_exceeded', remainingWords: 5, requiredWords: countWords(MIXED_TEXT), product: 'detector' });
    expect((await h.control.received()).length).toBe(before + 1);

    const usage = BffUsageResponse.parse((await h.call('/v1/usage', undefined, { token })).body);
    expect(usage).toMatchObject({
      mode: 'upstream',
      member: { name: 'budgeted' },
      products: { detector: { wordsCharged: countWords(MIXED_TEXT), budget, remaining: 5 }, humanizer: { wordsCharged: 0 } },
    });
  });

  it('tells the word cost of a text before sending it', async () => {
    const cost = BffCostResponse.parse((await h.call('/v1/cost', { text: 'one two\u00a0three 😀' })).body);
    expect(cost).toEqual({ words: 4, characters: 15, parts: 1 });
  });
});

describe('CORS', () => {
  it('allows the configured extension origins exactly', async () => {
    for (const origin of [EXTENSION_ORIGIN, FIREFOX_ORIGIN]) {
      const response = await h.call('/v1/usage', undefined, { origin });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe(origin);
    }
    const preflight = await h.call('/v1/detect', undefined, { origin: EXTENSION_ORIGIN, method: 'OPTIONS', token: null });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
  });

  it.each([
    'https://evil.example',
    `${EXTENSION_ORIGIN}x`,
    'chrome-extension://abcdefghijklmnopabcdefghijklmno',
    'null',
    EXTENSION_ORIGIN.toUpperCase(),
  ])('refuses %s, with no wildcard or prefix match', async (origin) => {
    const response = await h.call('/v1/usage', undefined, { origin });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('origin_not_allowed');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await h.call('/v1/detect', undefined, { origin, method: 'OPTIONS', token: null });
    expect(preflight.status).toBe(403);
  });
});

describe('operations endpoints', () => {
  it('serve health, readiness, metrics and the OpenAPI document', async () => {
    expect((await h.call('/healthz', undefined, { token: null })).body).toEqual({ status: 'ok' });
    expect((await h.call('/readyz', undefined, { token: null })).body).toEqual({ status: 'ready', mode: 'upstream' });
    const metrics = await h.call('/metrics', undefined, { token: null });
    expect(metrics.raw).toContain('bff_http_requests_total');
    expect(metrics.raw).toContain('bff_upstream_request_duration_seconds');
    const openapi = (await h.call('/openapi.json', undefined, { token: null })).body;
    expect(openapi.openapi).toBe('3.1.0');
    expect(Object.keys(openapi.paths)).toEqual(expect.arrayContaining(['/v1/detect', '/v1/humanize', '/v1/plagiarism', '/v1/usage', '/v1/cost']));
    expect(openapi.components.schemas.DetectRequest.properties.version.enum).toEqual(['v1', 'v2', 'v3']);
    expect(openapi.components.schemas.Error.properties.error.properties.code.enum).toContain('quota_exceeded');
    // Each route lists the answers it can give: cost and usage run no operation and call no upstream.
    const statuses = (path: string, method: string) => Object.keys(openapi.paths[path][method].responses);
    expect(statuses('/v1/detect', 'post')).toEqual(expect.arrayContaining(['402', '409', '410', '500', '502', '503', '504']));
    expect(openapi.paths['/v1/detect'].post.responses['403'].description).toContain('insufficient_scope');
    expect(statuses('/v1/cost', 'post')).toEqual(['200', '400', '401', '403', '413', '415', '429']);
    expect(statuses('/v1/usage', 'get')).toEqual(['200', '401', '403', '429', '503']);
  });
});

describe('credentials and browser MCP clients', () => {
  const mcpList = (headers: Record<string, string>, query = '') =>
    fetch(`${h.bff.url}/mcp${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });

  it('refuses a token in the URL on /v1 and /mcp, even beside a valid header (logs and histories keep URLs)', async () => {
    const usage = await fetch(`${h.bff.url}/v1/usage?access_token=${h.token}`, { headers: { authorization: `Bearer ${h.token}` } });
    expect(usage.status).toBe(400);
    const body = await usage.json();
    expect(body.error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('Do not put credentials in the URL') });
    expect(JSON.stringify(body)).not.toContain(h.token);
    const mcp = await mcpList({ authorization: `Bearer ${h.token}` }, `?access_token=${h.token}`);
    expect(mcp.status).toBe(400);
    expect((await mcp.json()).error.message).toContain('Do not put credentials in the URL');
    // Other query parameters are not credentials.
    expect((await fetch(`${h.bff.url}/v1/usage?view=full`, { headers: { authorization: `Bearer ${h.token}` } })).status).toBe(200);
    expect((await mcpList({ authorization: `Bearer ${h.token}` })).status).toBe(200);
  });

  it('answers another scheme than Bearer on /mcp with a challenge without an error code (RFC 6750 section 3.1)', async () => {
    const basic = await mcpList({ authorization: 'Basic dXNlcjpwYXNz' });
    expect(basic.status).toBe(401);
    expect(basic.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(basic.headers.get('www-authenticate')).not.toContain('error=');
    expect((await basic.json()).error.message).toContain('Authorization: Bearer');
    const unknown = await mcpList({ authorization: 'Bearer rl_unknownunknownunknownunknownunknownunknown1' });
    expect(unknown.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it("lets a browser MCP client on an allowed origin send MCP's headers and read the sign-in challenge", async () => {
    const preflight = await fetch(`${h.bff.url}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: EXTENSION_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' },
    });
    expect(preflight.status).toBe(204);
    const allowed = preflight.headers.get('access-control-allow-headers')!.toLowerCase().split(/,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'mcp-protocol-version', 'mcp-session-id']));
    const challenge = await mcpList({ origin: EXTENSION_ORIGIN });
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get('access-control-expose-headers')!.toLowerCase()).toContain('www-authenticate');
  });
});
