import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRODUCTS, type Product } from '@redline/shared';
import { loadConfig } from '@redline/bff/config';
import { createMember, revokeMember } from '@redline/bff/members';
import { startBff, type RunningBff } from '@redline/bff/server';
import { PostgresLedger } from '@redline/bff/storage/postgres';
import { startUpstreamDouble, type RunningUpstreamDouble } from '../upstream/server.ts';
import { upstreamControl } from '../upstream/client.ts';
import { FAST_RETRIES, LogCapture, POSTGRES_URL, dropSchema, readResponse, request, type BffResponse } from './harness.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A seeded generator, so a storm that finds something can be replayed. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PATHS: Record<Product, string> = { detector: '/v1/detect', humanizer: '/v1/humanize', plagiarism: '/v1/plagiarism' };

describe('two instances on one PostgreSQL ledger, a client failing over between them through a fault storm', () => {
  const schema = `probe4_storm_${process.pid}`;
  const folder = mkdtempSync(path.join(tmpdir(), 'redline-probe4-'));
  let double: RunningUpstreamDouble;
  const instances: RunningBff[] = [];
  let token = '';
  let memberId = '';

  beforeAll(async () => {
    double = await startUpstreamDouble({ testMode: true, inProgressRetryAfterSeconds: 1 });
    const env = {
      ...FAST_RETRIES,
      BFF_REQUEST_DEADLINE_MS: '2500',
      BFF_ATTEMPT_TIMEOUT_MS: '1500',
      BFF_PORT: '0',
      BFF_DATA_DIR: folder,
      BFF_MEMBER_RATE_LIMIT: '100000',
      UPSTREAM_BASE_URL: double.url,
      UPSTREAM_API_KEY: 'demo-key-primary',
    };
    for (let i = 0; i < 2; i++) {
      instances.push(await startBff(loadConfig(env), { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: new LogCapture() }));
    }
    const created = await createMember(instances[0]!.ledger, 'storm-member', { detector: 1_000_000, humanizer: 1_000_000, plagiarism: 1_000_000 });
    token = created.token;
    memberId = (await instances[0]!.ledger.listMembers()).find((member) => member.name === 'storm-member')!.id;
  });
  afterAll(async () => {
    for (const instance of instances) await instance.stop().catch(() => {});
    await double?.close();
    rmSync(folder, { recursive: true, force: true });
    await dropSchema(schema);
  });

  async function send(instance: number, product: Product, body: unknown, timeoutMs: number): Promise<BffResponse | 'aborted'> {
    try {
      const response = await fetch(instances[instance]!.url + PATHS[product], {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      return await readResponse(response);
    } catch {
      return 'aborted';
    }
  }

  it('every word the upstream charged is in usage, budgets and the console, once', async () => {
    const next = random(Number(process.env.PROBE4_SEED ?? 4));
    const control = upstreamControl(double.url);
    const faultKinds = [
      { kind: 'delay', delayMs: 1200 },
      { kind: 'delay', delayMs: 3500 },
      { kind: 'status', status: 503, phase: 'after', delayMs: 2000 },
      { kind: 'drop-after' },
      { kind: 'drop-before' },
      { kind: 'status', status: 503, phase: 'after' },
      { kind: 'status', status: 503, phase: 'before' },
      { kind: 'status', status: 502, phase: 'before', delayMs: 300 },
      { kind: 'status', status: 429, phase: 'before', retryAfterSeconds: 1 },
      { kind: 'drop-after', delayMs: 600 },
    ];
    const faults = Array.from({ length: 60 }, () => ({ fault: faultKinds[Math.floor(next() * faultKinds.length)] }));
    await control.addFaults(faults);
    const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
    const clients = Array.from({ length: 24 }, (_, index) => {
      const product = PRODUCTS[index % 3]!;
      const text = Array.from({ length: 3 + Math.floor(next() * 20) }, () => words[Math.floor(next() * words.length)]).join(' ') + '.';
      const body = { operationId: `storm-${index}-${process.pid}`, text, ...(product === 'humanizer' ? { model: 'cognia' } : {}) };
      const plan = Array.from({ length: 6 }, () => ({ instance: Math.floor(next() * 2), timeoutMs: 300 + Math.floor(next() * 2500), parallel: next() < 0.3 }));
      return { product, body, plan };
    });
    const outcomes = await Promise.all(
      clients.map(async ({ product, body, plan }) => {
        let last: BffResponse | 'aborted' = 'aborted';
        for (const step of plan) {
          const tries = step.parallel ? [send(step.instance, product, body, step.timeoutMs), send(1 - step.instance, product, body, step.timeoutMs)] : [send(step.instance, product, body, step.timeoutMs)];
          const answers = await Promise.all(tries);
          last = answers.find((answer) => answer !== 'aborted' && answer.status === 200) ?? answers[0]!;
          if (last !== 'aborted' && last.status === 200) break;
          await sleep(100);
        }
        return last === 'aborted' ? 'aborted' : `${last.status} ${last.body?.error?.code ?? ''}`;
      }),
    );
    console.log('storm outcomes', outcomes.join(', '));
    await control.clearFaults();
    // Whatever was left pending is resumed (as the sweep would), until nothing is.
    for (let round = 0; round < 40; round++) {
      const pending = await instances[0]!.ledger.pendingOperations();
      if (pending.length === 0) break;
      for (const instance of instances) await instance.engine.resumePending();
      await sleep(300);
    }
    expect(await instances[0]!.ledger.pendingOperations()).toEqual([]);
    const account = await control.account('demo');
    const usage = await instances[0]!.ledger.wordsCharged(memberId);
    const budgets = await instances[1]!.ledger.budgetUsage(memberId);
    expect(usage).toEqual(account.charged);
    expect(budgets).toEqual(account.charged);
  }, 60_000);
});

describe('a member revoked on one instance while their request is still arriving at the other', () => {
  const schema = `probe4_revoke_${process.pid}`;
  const folder = mkdtempSync(path.join(tmpdir(), 'redline-probe4-revoke-'));
  let double: RunningUpstreamDouble;
  const instances: RunningBff[] = [];

  beforeAll(async () => {
    double = await startUpstreamDouble({ testMode: true });
    const env = {
      ...FAST_RETRIES,
      BFF_PORT: '0',
      BFF_DATA_DIR: folder,
      BFF_DATABASE_URL: POSTGRES_URL,
      BFF_DATABASE_SCHEMA: schema,
      UPSTREAM_BASE_URL: double.url,
      UPSTREAM_API_KEY: 'demo-key-primary',
    };
    for (let i = 0; i < 2; i++) {
      instances.push(await startBff(loadConfig(env), { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: new LogCapture() }));
    }
  });
  afterAll(async () => {
    for (const instance of instances) await instance.stop().catch(() => {});
    await double?.close();
    rmSync(folder, { recursive: true, force: true });
    await dropSchema(schema);
  });

  /** Sends a request's headers and the first half of its body now; `finish()` sends the rest and reads the answer. */
  function startSlowRequest(url: string, pathname: string, token: string, body: string, headers = '') {
    const { port } = new URL(url);
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const bytes = Buffer.from(body);
    const half = Math.floor(bytes.length / 2);
    socket.write(
      `POST ${pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\n${headers}Connection: close\r\n\r\n`,
    );
    socket.write(bytes.subarray(0, half));
    return {
      async finish(): Promise<{ status: number; body: any }> {
        socket.write(bytes.subarray(half));
        await closed;
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
        return { status, body: JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4) || 'null') };
      },
    };
  }

  /** Starts a slow request for a new member, revokes the member on the first instance once the second refuses them, then lets the body arrive. */
  async function revokedWhileArriving(name: string, pathname: string, body: (token: string) => string, headers?: string) {
    const { member, token } = await createMember(instances[0]!.ledger, name);
    // The other instance knows the member (cached, as after any request).
    expect((await request(instances[1]!.url, '/v1/usage', undefined, token)).status).toBe(200);
    const slow = startSlowRequest(instances[1]!.url, pathname, token, body(token), headers);
    await sleep(200); // the headers are in: authenticated
    expect(await revokeMember(instances[0]!.ledger, member.id)).toBe(true);
    // The revocation has reached the other instance: a new request there is refused.
    let status = 0;
    for (let i = 0; i < 40 && status !== 401; i++) {
      status = (await request(instances[1]!.url, '/v1/usage', undefined, token)).status;
      if (status !== 401) await sleep(50);
    }
    expect(status).toBe(401);
    return slow.finish();
  }

  it('/v1: the request is refused once its body arrives; nothing is sent upstream or charged after the revocation', async () => {
    const control = upstreamControl(double.url);
    const before = (await control.account('demo')).charged.detector;
    const answer = await revokedWhileArriving('leaked-token', '/v1/detect', () => JSON.stringify({ operationId: `revoked-${process.pid}`, text: 'A leaked token spends the team words here.' }));
    expect([answer.status, answer.body?.error?.code]).toEqual([401, 'unauthorized']);
    expect((await control.account('demo')).charged.detector).toBe(before);
  }, 30_000);

  it('/mcp: the tool call is refused once its body arrives; nothing is sent upstream or charged after the revocation', async () => {
    const control = upstreamControl(double.url);
    const before = (await control.account('demo')).charged.detector;
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'detect_ai_text', arguments: { text: 'A leaked token spends the team words here.', idempotency_key: `revoked-mcp-${process.pid}-0000` } },
    };
    const answer = await revokedWhileArriving('leaked-mcp-token', '/mcp', () => JSON.stringify(call), 'Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n');
    expect([answer.status, answer.body?.error?.code]).toEqual([401, 'unauthorized']);
    expect((await control.account('demo')).charged.detector).toBe(before);
  }, 30_000);
});
