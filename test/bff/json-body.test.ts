import { gzipSync, brotliCompressSync } from 'node:zlib';
import { connect } from 'node:net';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';

// The /v1 body reader: a byte limit after decompression, one JSON parse, clear answers.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ offline: true, env: { BFF_MAX_BODY_BYTES: '2000' } });
});
afterAll(() => h.close());

/** Sends raw bytes with the given headers; no client-side helpers in between. */
function send(body: Buffer, headers: Record<string, string>, chunked = false, path = '/v1/cost'): Promise<{ status: number; body: any }> {
  const url = new URL(`${h.bff.url}${path}`);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { authorization: `Bearer ${h.token}`, 'content-type': 'application/json', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      },
    );
    req.on('error', reject);
    if (chunked) {
      for (let i = 0; i < body.length; i += 100) req.write(body.subarray(i, i + 100));
      req.end();
    } else {
      req.end(body);
    }
  });
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

describe('reading /v1 bodies', () => {
  it('parses plain, gzip and brotli bodies the same way', async () => {
    const body = json({ text: 'One two three.' });
    expect((await send(body, {})).body).toEqual({ words: 3, characters: 14, parts: 1 });
    expect((await send(gzipSync(body), { 'content-encoding': 'gzip' })).body).toEqual({ words: 3, characters: 14, parts: 1 });
    expect((await send(brotliCompressSync(body), { 'content-encoding': 'br' })).body).toEqual({ words: 3, characters: 14, parts: 1 });
  });

  it('refuses a body over the limit whether it declares its length, streams it, or inflates to it', async () => {
    const big = json({ text: 'word '.repeat(1000) });
    for (const answer of [await send(big, {}), await send(big, { 'transfer-encoding': 'chunked' }, true), await send(gzipSync(big), { 'content-encoding': 'gzip' })]) {
      expect(answer.status).toBe(413);
      expect(answer.body.error.code).toBe('body_too_large');
    }
  });

  it('says what is wrong with broken JSON, broken compression, unknown encodings and charsets', async () => {
    const broken = await send(Buffer.from('{"text": "unterminated'), {});
    expect([broken.status, broken.body.error.code]).toEqual([400, 'malformed_json']);
    const bom = await send(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json({ text: 'a' })]), {});
    expect([bom.status, bom.body.error.code]).toEqual([400, 'malformed_json']);
    expect(bom.body.error.message).toMatch(/byte-order mark/);
    const badGzip = await send(Buffer.from('not gzip at all'), { 'content-encoding': 'gzip' });
    expect([badGzip.status, badGzip.body.error.code]).toEqual([400, 'invalid_content_encoding']);
    expect(badGzip.body.error.message).toMatch(/gzip/);
    const unknown = await send(json({ text: 'a' }), { 'content-encoding': 'zstd-ish' });
    expect([unknown.status, unknown.body.error.code]).toEqual([415, 'unsupported_content_encoding']);
    const latin1 = await send(json({ text: 'a' }), { 'content-type': 'application/json; charset=latin1' });
    expect([latin1.status, latin1.body.error.code]).toEqual([415, 'unsupported_content_type']);
    const plain = await send(json({ text: 'a' }), { 'content-type': 'text/plain' });
    expect([plain.status, plain.body.error.code]).toEqual([415, 'unsupported_content_type']);
    const utf8 = await send(json({ text: 'a b' }), { 'content-type': 'application/json; charset=UTF-8' });
    expect(utf8.body.words).toBe(2);
  });

  it('refuses a body that is not UTF-8 instead of analysing and charging U+FFFD for its bytes, on /v1 and on the MCP route', async () => {
    const latin1 = Buffer.concat([Buffer.from('{"operationId":"op-latin1","text":"caf'), Buffer.from([0xe9]), Buffer.from(' au lait"}')]);
    const usage = async () => (await h.call('/v1/usage', undefined, { method: 'GET' })).body;
    const before = await usage();
    for (const path of ['/v1/detect', '/v1/cost']) {
      const answer = await send(latin1, {}, false, path);
      expect([answer.status, answer.body.error.code], path).toEqual([415, 'unsupported_content_type']);
      expect(answer.body.error.message).toMatch(/UTF-8/);
    }
    expect(await usage()).toEqual(before);
    const mcp = await send(latin1, { accept: 'application/json, text/event-stream' }, false, '/mcp');
    expect([mcp.status, mcp.body.error.code]).toEqual([415, 'unsupported_content_type']);
    // body-parser writes the raw body onto what its `verify` throws: none of it may come back.
    expect(JSON.stringify(mcp.body)).not.toMatch(/lait/);
  });

  it('an empty body is an empty object, refused with the fields to fill in', async () => {
    const empty = await send(Buffer.alloc(0), {});
    expect(empty.status).toBe(400);
    expect(empty.body.error.fields).toHaveProperty('text');
    // An operation's: both fields missing is a request problem, not an id problem.
    const operation = await send(Buffer.alloc(0), {}, false, '/v1/detect');
    expect(operation.status).toBe(400);
    expect(operation.body.error.code).toBe('invalid_request');
    expect(Object.keys(operation.body.error.fields).sort()).toEqual(['operationId', 'text']);
  });

  it('keeps serving the connection after refusing a body', async () => {
    await send(json({ text: 'word '.repeat(1000) }), {});
    expect((await send(json({ text: 'still here' }), {})).status).toBe(200);
  });
});

describe('a body that ends before its Content-Length', () => {
  /** Raw bytes on a socket, the writing side closed after them; the whole answer as text. */
  const raw = (bytes: string) =>
    new Promise<string>((resolve, reject) => {
      const url = new URL(h.bff.url);
      const socket = connect({ host: url.hostname, port: Number(url.port), allowHalfOpen: true }, () => socket.end(bytes));
      let answer = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (answer += chunk));
      socket.on('end', () => resolve(answer));
      socket.on('error', reject);
    });

  it('is answered 400 incomplete_body as JSON, as the README says, and the BFF goes on answering', async () => {
    const body = '{"text":"One';
    const answer = await raw(
      `POST /v1/cost HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${h.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n${body}`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).error.code).toBe('incomplete_body');
    expect((await send(json({ text: 'One two.' }), {})).status).toBe(200);
  });

  it('a request Node cannot parse at all still gets its bare 400', async () => {
    expect(await raw('NOT HTTP AT ALL\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
  });
});
