import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { BffDetectResponse, BffHumanizeResponse, BffPlagiarismResponse, countWords } from '@redline/shared';
import { COPIED_SENTENCE, MIXED_TEXT } from '../upstream/fixtures.ts';
import { startHarness, type Harness } from './harness.ts';
import { connectMcp, newToolKey, toolJson, toolSummary } from './mcp-client.ts';

// The BFF as the team's MCP server, driven by the official MCP client over real HTTP
// against the upstream double.

let h: Harness;
let client: Client;

beforeAll(async () => {
  h = await startHarness({ env: { BFF_REQUEST_DEADLINE_MS: '3000', BFF_MEMBER_RATE_LIMIT: '1000' } });
  client = await connectMcp(h.bff.url, h.token);
});
afterAll(async () => {
  await client.close();
  await h.close();
});
beforeEach(async () => {
  await h.control.clearFaults();
});

describe('tools', () => {
  it('lists detect_ai_text, humanize_text and check_sources, each requiring idempotency_key, with the upstream defaults', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['check_sources', 'detect_ai_text', 'humanize_text']);
    for (const tool of tools) {
      expect(tool.inputSchema.required).toEqual(expect.arrayContaining(['text', 'idempotency_key']));
      expect(tool.inputSchema.properties!.idempotency_key).toMatchObject({ minLength: 16, maxLength: 128 });
      expect(tool.outputSchema).toBeDefined();
    }
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.detect_ai_text!.inputSchema.properties!.version).toMatchObject({ default: 'v3', enum: ['v1', 'v2', 'v3'] });
    expect(byName.humanize_text!.inputSchema.properties!.model).toMatchObject({ default: 'cognia' });
  });

  it('detect_ai_text: v3 by default, the upstream result with a summary; a retry with the same key is the same result, charged once', async () => {
    const before = await h.control.account('demo');
    const idempotency_key = newToolKey();
    const first = await client.callTool({ name: 'detect_ai_text', arguments: { text: MIXED_TEXT, idempotency_key } });
    expect(first.isError).toBeFalsy();
    const outcome = BffDetectResponse.parse(first.structuredContent);
    expect(outcome).toMatchObject({ operationId: idempotency_key, product: 'detector', source: 'upstream', replayed: false, wordsCharged: countWords(MIXED_TEXT) });
    expect(outcome.result.data.version).toBe('v3');
    expect(outcome.result.data.details.chunks!.map((chunk) => chunk.type)).toEqual(['AI', 'Human', 'AI']);
    expect(toolJson(first)).toEqual(first.structuredContent);
    expect(toolSummary(first)).toMatch(new RegExp(`${Math.round(outcome.result.data.details.ai_percentage * 10) / 10}% of the characters.*2 of 3 sentences are labelled AI.*not proof of authorship`));

    const retry = await client.callTool({ name: 'detect_ai_text', arguments: { text: MIXED_TEXT, idempotency_key } });
    expect(retry.structuredContent).toEqual({ ...outcome, replayed: true });
    expect(toolSummary(retry)).toMatch(/nothing charged again/);

    const after = await h.control.account('demo');
    expect(after.charged.detector - before.charged.detector).toBe(countWords(MIXED_TEXT));
    expect(after.providerRuns.detector - before.providerRuns.detector).toBe(1);
  });

  it('a retry on a new connection (another client process) is still the same operation', async () => {
    const idempotency_key = newToolKey();
    const first = await client.callTool({ name: 'humanize_text', arguments: { text: MIXED_TEXT, idempotency_key } });
    const other = await connectMcp(h.bff.url, h.token);
    const retry = await other.callTool({ name: 'humanize_text', arguments: { text: MIXED_TEXT, idempotency_key } });
    await other.close();
    expect((retry.structuredContent as { result: unknown }).result).toEqual((first.structuredContent as { result: unknown }).result);
    expect(retry.structuredContent).toMatchObject({ replayed: true });
  });

  it('humanize_text: model cognia by default, another model on request; the rewrite is in the summary', async () => {
    const byDefault = await client.callTool({ name: 'humanize_text', arguments: { text: MIXED_TEXT, idempotency_key: newToolKey() } });
    const outcome = BffHumanizeResponse.parse(byDefault.structuredContent);
    expect(outcome.result.model_used).toBe('cognia');
    expect(toolSummary(byDefault)).toContain(outcome.result.humanized_text);
    const lexi = await client.callTool({ name: 'humanize_text', arguments: { text: MIXED_TEXT, model: 'lexi', idempotency_key: newToolKey() } });
    expect(BffHumanizeResponse.parse(lexi.structuredContent).result.model_used).toBe('lexi');
  });

  it('check_sources: matches with their links, over the plagiarism balance', async () => {
    const before = await h.control.account('demo');
    const text = `${COPIED_SENTENCE} My neighbour keeps three goats that eat everything in sight.`;
    const result = await client.callTool({ name: 'check_sources', arguments: { text, idempotency_key: newToolKey() } });
    expect(result.isError).toBeFalsy();
    const outcome = BffPlagiarismResponse.parse(result.structuredContent);
    const flagged = outcome.result.result.results.filter((match) => match.is_plagiarised);
    expect(flagged.length).toBeGreaterThan(0);
    expect(toolSummary(result)).toContain(flagged[0]!.link);
    expect((await h.control.account('demo')).charged.plagiarism - before.charged.plagiarism).toBe(countWords(text));
  });

  it('usage counts what MCP calls charged, like /v1', async () => {
    const before = (await h.call('/v1/usage')).body.products.detector.wordsCharged;
    await client.callTool({ name: 'detect_ai_text', arguments: { text: 'One two three four five.', idempotency_key: newToolKey() } });
    expect((await h.call('/v1/usage')).body.products.detector.wordsCharged).toBe(before + 5);
    expect((await h.call('/metrics')).raw).toMatch(/bff_http_requests_total\{route="\/mcp",status="200"\} [1-9]/);
  });
});

describe('tool errors carry the BFF code and message', () => {
  it('the same key with a different text is refused, and nothing more is charged', async () => {
    const idempotency_key = newToolKey();
    await client.callTool({ name: 'detect_ai_text', arguments: { text: MIXED_TEXT, idempotency_key } });
    const before = await h.control.account('demo');
    const other = await client.callTool({ name: 'detect_ai_text', arguments: { text: `${MIXED_TEXT} And one more.`, idempotency_key } });
    expect(other.isError).toBe(true);
    // In the tool's words: its operation id is the idempotency_key argument.
    expect(toolJson(other).error).toMatchObject({ code: 'operation_id_reused', idempotency_key });
    expect(toolSummary(other)).toMatch(/This idempotency_key was already used for a different text.*new idempotency_key/);
    expect(JSON.stringify(other.content)).not.toMatch(/operation id|operationId/);
    const otherTool = await client.callTool({ name: 'humanize_text', arguments: { text: MIXED_TEXT, idempotency_key } });
    expect(toolJson(otherTool).error.code).toBe('operation_id_reused');
    expect((await h.control.account('demo')).charged).toEqual(before.charged);
  });

  it('a key outside 16 to 128 URL-safe characters is refused before anything is sent', async () => {
    const received = (await h.control.received()).length;
    for (const idempotency_key of ['too-short-key', 'x'.repeat(129), 'has spaces in it, 16+']) {
      const result = await client.callTool({ name: 'detect_ai_text', arguments: { text: MIXED_TEXT, idempotency_key } });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/idempotency_key/);
    }
    expect((await h.control.received()).length).toBe(received);
  });

  it("a member token sent as the key is refused in the tool's words, before anything is sent", async () => {
    const received = (await h.control.received()).length;
    const result = await client.callTool({ name: 'detect_ai_text', arguments: { text: MIXED_TEXT, idempotency_key: `rl_${'A'.repeat(43)}` } });
    expect(toolJson(result).error).toMatchObject({ code: 'invalid_operation_id', fields: { idempotency_key: 'not a member token' } });
    expect(toolJson(result).error.message).toMatch(/idempotency_key has the shape of a member token/);
    expect(JSON.stringify(result.content)).not.toMatch(/operationId/);
    expect((await h.control.received()).length).toBe(received);
  });

  it('empty text and unknown model say what to fix', async () => {
    const empty = await client.callTool({ name: 'check_sources', arguments: { text: '  \n ', idempotency_key: newToolKey() } });
    expect(toolJson(empty).error.code).toBe('empty_text');
    const model = await client.callTool({ name: 'humanize_text', arguments: { text: MIXED_TEXT, model: 'gpt-9', idempotency_key: newToolKey() } });
    expect(model.isError).toBe(true);
    expect(JSON.stringify(model.content)).toMatch(/cognia/);
  });

  it('quota: the upstream balance is short; the tool error gives remaining and required words', async () => {
    await h.control.setBalances('demo', { detector: 3 });
    try {
      const result = await client.callTool({ name: 'detect_ai_text', arguments: { text: MIXED_TEXT, idempotency_key: newToolKey() } });
      expect(result.isError).toBe(true);
      expect(toolJson(result).error).toMatchObject({ code: 'quota_exceeded', remainingWords: 3, requiredWords: countWords(MIXED_TEXT) });
      expect(toolSummary(result)).toMatch(/Not enough words left/);
    } finally {
      await h.control.setBalances('demo', { detector: 1_000_000 });
    }
  });

  it("member budget: the member's own budget applies to MCP calls as to /v1", async () => {
    const token = await h.addMember('mcp-budget', { humanizer: 5 });
    const member = await connectMcp(h.bff.url, token);
    const result = await member.callTool({ name: 'humanize_text', arguments: { text: MIXED_TEXT, idempotency_key: newToolKey() } });
    await member.close();
    expect(toolJson(result).error).toMatchObject({ code: 'member_budget_exceeded', remainingWords: 5 });
  });

  it('busy: the error says when to retry; the retry with the same key then succeeds and is charged once', async () => {
    await h.control.addFaults([{ fault: { kind: 'status', status: 429, retryAfterSeconds: 7 }, product: 'detector', times: 1 }]);
    const before = await h.control.account('demo');
    const idempotency_key = newToolKey();
    const busy = await client.callTool({ name: 'detect_ai_text', arguments: { text: MIXED_TEXT, idempotency_key } });
    expect(busy.isError).toBe(true);
    expect(toolJson(busy).error).toMatchObject({ code: 'busy', retryAfterSeconds: 7 });
    expect(toolSummary(busy)).toMatch(/Try again in 7 seconds/);

    const retry = await client.callTool({ name: 'detect_ai_text', arguments: { text: MIXED_TEXT, idempotency_key } });
    expect(retry.isError).toBeFalsy();
    const again = await client.callTool({ name: 'detect_ai_text', arguments: { text: MIXED_TEXT, idempotency_key } });
    expect(again.structuredContent).toMatchObject({ replayed: true });
    expect((await h.control.account('demo')).charged.detector - before.charged.detector).toBe(countWords(MIXED_TEXT));
  });
});

describe('authentication', () => {
  it('no token: 401 pointing at the protected-resource metadata', async () => {
    const response = await fetch(`${h.bff.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer scope="detect humanize sources", resource_metadata="${h.bff.url}/.well-known/oauth-protected-resource/mcp"`);
  });

  it('unknown and revoked member tokens: 401 invalid_token', async () => {
    const token = await h.addMember('mcp-revoked');
    const member = await connectMcp(h.bff.url, token);
    await member.close();
    await h.bff.ledger.revokeMember((await h.bff.ledger.listMembers()).find((member) => member.name === 'mcp-revoked')!.id);
    for (const bearer of [token, `rl_${'A'.repeat(43)}`]) {
      const response = await fetch(`${h.bff.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, body: '{}' });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="[^"]+", scope="detect humanize sources", resource_metadata="http/);
      expect((await response.json()).error.code).toBe('unauthorized');
    }
    await expect(connectMcp(h.bff.url, token)).rejects.toThrow();
  });

  it('a browser origin that is not allowed is refused', async () => {
    const response = await fetch(`${h.bff.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${h.token}`, origin: 'https://evil.example', 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(403);
  });
});

describe('protocol faults are JSON-RPC errors', () => {
  const post = (body: string) =>
    fetch(`${h.bff.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${h.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body });

  it('malformed JSON: parse error', async () => {
    const response = await post('{"jsonrpc": "2.0", "method": ');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('JSON that is not a JSON-RPC message: invalid request (JSON-RPC 2.0 section 5.1), an empty batch too', async () => {
    for (const body of ['{"foo": 1}', '{"jsonrpc": "2.0", "method": 1, "params": "bar"}', '{"jsonrpc": "1.0", "id": 1, "method": "ping"}', '"hello"', '5', 'null', '[]', '[1]']) {
      const response = await post(body);
      expect(response.status, body).toBe(400);
      expect(await response.json(), body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: /) } });
    }
  });

  it('an unknown method: method not found', async () => {
    const response = await post(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/destroy', params: {} }));
    expect(await response.json()).toMatchObject({ id: 7, error: { code: -32601 } });
  });

  it('GET (no server-sent stream in a stateless server): 405', async () => {
    const response = await fetch(`${h.bff.url}/mcp`, { headers: { authorization: `Bearer ${h.token}`, accept: 'text/event-stream' } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});

describe('other modes', () => {
  it('no subscription for a product is a tool error', async () => {
    const limited = await startHarness({ apiKey: 'demo-key-detector-only' });
    const member = await connectMcp(limited.bff.url, limited.token);
    try {
      const result = await member.callTool({ name: 'humanize_text', arguments: { text: MIXED_TEXT, idempotency_key: newToolKey() } });
      expect(toolJson(result).error).toMatchObject({ code: 'no_subscription', product: 'humanizer' });
    } finally {
      await member.close();
      await limited.close();
    }
  });

  it('offline mode answers from the built-in analyzers; the member rate limit applies to tool calls', async () => {
    const offline = await startHarness({ offline: true, env: { BFF_MEMBER_RATE_LIMIT: '3' } });
    const member = await connectMcp(offline.bff.url, offline.token);
    try {
      const call = (name: string) => member.callTool({ name, arguments: { text: MIXED_TEXT, idempotency_key: newToolKey() } });
      for (const name of ['detect_ai_text', 'humanize_text', 'check_sources']) {
        const result = await call(name);
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toMatchObject({ source: 'offline' });
        expect(toolSummary(result)).toMatch(/offline analyzers/);
      }
      const limited = await call('detect_ai_text');
      expect(toolJson(limited).error).toMatchObject({ code: 'rate_limited', retryAfterSeconds: expect.any(Number) });
    } finally {
      await member.close();
      await offline.close();
    }
  });
});
