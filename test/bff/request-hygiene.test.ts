import { connect, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIXED_TEXT } from '../upstream/fixtures.ts';
import { newOperationId, startHarness, type Harness } from './harness.ts';

// Bodies that cannot be read are the client's problem (4xx), never a 500 or an error log;
// slow or idle clients cannot hold connections for long; connections are capped.

let h: Harness;
let port: number;

beforeAll(async () => {
  h = await startHarness({
    env: { BFF_HEADERS_TIMEOUT_MS: '500', BFF_BODY_TIMEOUT_MS: '1000', BFF_KEEP_ALIVE_TIMEOUT_MS: '500', BFF_MAX_CONNECTIONS: '4', BFF_MEMBER_RATE_LIMIT: '1000' },
  });
  port = Number(new URL(h.bff.url).port);
});
afterAll(() => h.close());

/** A raw connection: what the server sent, and when (after connecting) it closed the connection. */
interface RawConnection {
  socket: Socket;
  received: () => string;
  closed: Promise<number>;
}

async function open(): Promise<RawConnection> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const started = performance.now();
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString('latin1')));
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - started)));
  return { socket, received: () => received, closed };
}

function head(pathname: string, headers: Record<string, string | number>): string {
  return `POST ${pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
}

/** The error lines of the BFF's log (pino level 50 and above). */
const errorLogs = () => h.logs.lines.filter((line) => JSON.parse(line).level >= 50);

async function postEncoded(body: Buffer, encoding: string) {
  const response = await fetch(`${h.bff.url}/v1/detect`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.token}`, 'content-type': 'application/json', 'content-encoding': encoding },
    body: new Uint8Array(body),
  });
  return { status: response.status, body: (await response.json()) as { error?: { code: string; message: string }; result?: unknown } };
}

describe('bodies that cannot be read', () => {
  const json = () => Buffer.from(JSON.stringify({ operationId: newOperationId(), text: MIXED_TEXT }));

  it('a gzip body is read', async () => {
    expect((await postEncoded(gzipSync(json()), 'gzip')).status).toBe(200);
  });

  it.each([
    ['Content-Encoding: gzip with a body that is not gzip', () => json(), 'gzip'],
    ['a truncated gzip body', () => gzipSync(json()).subarray(0, 40), 'gzip'],
    ['a deflate header on a gzip body', () => gzipSync(json()), 'deflate'],
    ['a broken br body', () => Buffer.from('not brotli'), 'br'],
  ])('%s: 400 invalid_content_encoding, no error in the log', async (_name, body, encoding) => {
    const before = errorLogs().length;
    const response = await postEncoded(body(), encoding);
    expect(response.status).toBe(400);
    expect(response.body.error?.code).toBe('invalid_content_encoding');
    expect(errorLogs().length).toBe(before);
  });

  it('an unknown Content-Encoding: 415 unsupported_content_encoding', async () => {
    const response = await postEncoded(json(), 'compress');
    expect(response.status).toBe(415);
    expect(response.body.error?.code).toBe('unsupported_content_encoding');
  });

  it('a client that aborts mid-body is logged as an abort, not as a 500 or an error', async () => {
    const before = h.logs.lines.length;
    const connection = await open();
    connection.socket.write(head('/v1/detect', { authorization: `Bearer ${h.token}`, 'content-type': 'application/json', 'content-length': 10_000 }));
    connection.socket.write('{"operationId": "abort-1234", "text": "Half a bo');
    await new Promise((resolve) => setTimeout(resolve, 100));
    connection.socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const lines = h.logs.lines.slice(before).map((line) => JSON.parse(line));
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
    expect(lines.filter((line) => line.status === 500)).toEqual([]);
    expect(lines.some((line) => line.msg === 'request aborted by the client')).toBe(true);
  });
});

describe('slow and idle clients', () => {
  it('a refused request does not wait for the rest of a slow body', async () => {
    const connection = await open();
    connection.socket.write(head('/v1/detect', { 'content-type': 'application/json', 'content-length': 100_000 }));
    connection.socket.write('{"text": "');
    const closedAfter = await connection.closed;
    expect(connection.received()).toMatch(/^HTTP\/1\.1 401 /);
    expect(closedAfter).toBeLessThan(4_000); // not Node's default five minutes
  });

  it('a body that trickles in past the body timeout is cut off', async () => {
    const connection = await open();
    connection.socket.write(head('/v1/detect', { authorization: `Bearer ${h.token}`, 'content-type': 'application/json', 'content-length': 1_000 }));
    const trickle = setInterval(() => connection.socket.writable && connection.socket.write(' '), 200);
    const closedAfter = await connection.closed;
    clearInterval(trickle);
    expect(closedAfter).toBeLessThan(4_000);
    expect(connection.received()).not.toMatch(/ 500 /);
  });

  it('headers that never end are cut off after the headers timeout', async () => {
    const connection = await open();
    connection.socket.write('POST /v1/detect HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    expect(await connection.closed).toBeLessThan(4_000);
  });

  it('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
    const connection = await open();
    connection.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const closedAfter = await connection.closed;
    expect(connection.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(closedAfter).toBeLessThan(3_000);
  });

  it('connections past BFF_MAX_CONNECTIONS are refused, and accepted again once others close', async () => {
    const held = await Promise.all(Array.from({ length: 4 }, open));
    // Keep them busy so the idle timeouts do not free them during the check.
    for (const connection of held) connection.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const extra = await open();
    extra.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expect(await extra.closed).toBeLessThan(1_000);
    expect(extra.received()).toBe('');
    for (const connection of held) connection.socket.destroy();
    await Promise.all(held.map((connection) => connection.closed));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await h.call('/healthz')).status).toBe(200);
  });
});
