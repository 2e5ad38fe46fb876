import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DetectResponseV3, HumanizeResponse, countWords } from '@redline/shared';
import { startUpstreamDouble, type RunningUpstreamDouble } from './server.ts';
import { callUpstream, upstreamControl } from './client.ts';
import { MIXED_TEXT } from './fixtures.ts';

// The remote MCP server (upstream-api.md 4.3, 5, 8), driven by the official MCP client.

let double: RunningUpstreamDouble;
let control: ReturnType<typeof upstreamControl>;

async function connect(apiKey = 'demo-key-primary'): Promise<Client> {
  const client = new Client({ name: 'redline-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${double.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } }));
  return client;
}

const payload = (result: Awaited<ReturnType<Client['callTool']>>) => JSON.parse((result.content as { text: string }[])[0]!.text);
let counter = 0;
const key = () => `mcp-key-${Date.now()}-${counter++}`.padEnd(16, 'x');

beforeAll(async () => {
  double = await startUpstreamDouble({ testMode: true });
  control = upstreamControl(double.url);
});
afterAll(() => double.close());
beforeEach(() => control.reset());

describe('MCP server', () => {
  it('offers exactly two tools, each requiring idempotency_key', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['detect_ai_text', 'humanize_text']);
    for (const tool of tools) expect(tool.inputSchema.required).toContain('idempotency_key');
    await client.close();
  });

  it('detects with version v3 by default, charging the detector balance it shares with REST', async () => {
    const client = await connect();
    const idempotency_key = key();
    const result = await client.callTool({ name: 'detect_ai_text', arguments: { text: MIXED_TEXT, idempotency_key } });
    expect(result.isError).toBeFalsy();
    const body = DetectResponseV3.parse(payload(result));
    expect(body.data.version).toBe('v3');
    expect(body.data.details.chunks.map((chunk) => chunk.type)).toEqual(['AI', 'Human', 'AI']);

    const repeat = await client.callTool({ name: 'detect_ai_text', arguments: { text: MIXED_TEXT, idempotency_key } });
    expect(payload(repeat)).toEqual(payload(result));
    await callUpstream(double.url, 'detector', { apiKey: 'demo-key-primary', body: { text: MIXED_TEXT, version: 'v3' } });
    expect(await control.account('demo')).toMatchObject({ charged: { detector: 2 * countWords(MIXED_TEXT) }, providerRuns: { detector: 2 } });
    await client.close();
  });

  it('humanizes with model cognia by default; a key reused for other work is refused', async () => {
    const client = await connect();
    const idempotency_key = key();
    const result = await client.callTool({ name: 'humanize_text', arguments: { text: MIXED_TEXT, idempotency_key } });
    expect(HumanizeResponse.parse(payload(result)).model_used).toBe('cognia');
    const other = await client.callTool({ name: 'humanize_text', arguments: { text: MIXED_TEXT, model: 'lexi', idempotency_key } });
    expect(other.isError).toBe(true);
    expect(payload(other).status).toBe(409);
    await client.close();
  });

  it('refuses a missing or short idempotency_key, and a product without subscription', async () => {
    const client = await connect();
    for (const args of [{ text: 'Hello.' }, { text: 'Hello.', idempotency_key: 'fifteen-chars-x' }]) {
      const refused = await client.callTool({ name: 'detect_ai_text', arguments: args }).catch((error: Error) => ({ isError: true, content: [{ text: error.message }] }));
      expect(refused.isError).toBe(true);
    }
    await client.close();
    const detectorOnly = await connect('demo-key-detector-only');
    const refused = await detectorOnly.callTool({ name: 'humanize_text', arguments: { text: 'Hello.', idempotency_key: key() } });
    expect(payload(refused)).toMatchObject({ status: 403, error_code: '1002' });
    await detectorOnly.close();
    expect((await control.account('demo')).providerRuns).toMatchObject({ detector: 0, humanizer: 0 });
  });

  it('needs a bearer API key, never one in the URL, and a body within 1 MiB', async () => {
    await expect(connect('not-a-key')).rejects.toThrow();
    const inUrl = await fetch(`${double.url}/api/mcp?api_key=demo-key-primary`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(inUrl.status).toBe(400);
    const big = await fetch(`${double.url}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer demo-key-primary' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'detect_ai_text', arguments: { text: 'a'.repeat(1024 * 1024), idempotency_key: key() } } }),
    });
    expect(big.status).toBe(413);
  });
});
