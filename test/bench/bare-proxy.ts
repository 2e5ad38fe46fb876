/**
 * The benchmark's reference point: a minimal pass-through proxy that adds the upstream API
 * key and nothing else (no authentication, ledger, validation or retries). What the BFF adds
 * over this is the BFF's own cost.
 *
 *   node --import tsx test/bench/bare-proxy.ts --port 8398 --upstream http://127.0.0.1:4399 --api-key KEY
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';

const { values } = parseArgs({
  options: { port: { type: 'string' }, upstream: { type: 'string' }, 'api-key': { type: 'string' } },
});
if (!values.port || !values.upstream || !values['api-key']) {
  console.error('usage: bare-proxy.ts --port N --upstream URL --api-key KEY');
  process.exit(2);
}
const upstream = values.upstream.replace(/\/+$/, '');
const apiKey = values['api-key'];
const agent = new Agent({ keepAliveTimeout: 10_000, connections: 64 });
const PASSED_HEADERS = ['content-type', 'idempotency-key'];

const server = createServer(async (req, res) => {
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = { 'x-api-key': apiKey };
    for (const name of PASSED_HEADERS) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const response = await request(upstream + req.url, {
      method: req.method as 'POST',
      headers,
      body: req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks),
      dispatcher: agent,
    });
    const body = Buffer.from(await response.body.arrayBuffer());
    res.writeHead(response.statusCode, {
      'content-type': String(response.headers['content-type'] ?? 'application/json'),
      ...(response.headers['x-idempotency-key'] ? { 'x-idempotency-key': String(response.headers['x-idempotency-key']) } : {}),
    });
    res.end(body);
  } catch {
    if (!res.headersSent) res.writeHead(502).end();
    else res.destroy();
  }
});
server.keepAliveTimeout = 10_000;
server.listen(Number(values.port), '127.0.0.1');
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close();
    server.closeAllConnections();
    void agent.close().then(() => process.exit(0));
  });
}
