import { mkdtempSync, rmSync, statSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRODUCTS, type Product } from '@redline/shared';
import { loadConfig } from '@redline/bff/config';
import { createMember, revokeMember } from '@redline/bff/members';
import { usageReport } from '@redline/bff/console/usage';
import { startBff, type RunningBff } from '@redline/bff/server';
import { PostgresLedger } from '@redline/bff/storage/postgres';
import { startUpstreamDouble, type RunningUpstreamDouble } from '../upstream/server.ts';
import { upstreamControl } from '../upstream/client.ts';
import { BFF_LISTENING, slowestHealthCheckDuring, startServerProcess } from './processes.ts';
import { FAST_RETRIES, LogCapture, POSTGRES_URL, dropSchema, readResponse, request, startHarness, type BffResponse, type Harness } from './harness.ts';

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

/** Two BFFs on one PostgreSQL ledger (its schema), as a team runs several instances. */
async function twoInstances(env: Record<string, string>, schema: string): Promise<RunningBff[]> {
  const open = async () => startBff(loadConfig(env), { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: new LogCapture() });
  return [await open(), await open()];
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
    instances.push(...(await twoInstances(env, schema)));
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

  interface FailOverClient {
    product: Product;
    body: unknown;
    /** Each step: the instance sent to (and, when parallel, the other too at once) and when the client gives up on it. */
    plan: { instance: number; timeoutMs: number; parallel: boolean }[];
  }

  /** A client that gives up and sends the same body again, to either instance, until one answers 200; its last answer. */
  async function failOver({ product, body, plan }: FailOverClient): Promise<BffResponse | 'aborted'> {
    let last: BffResponse | 'aborted' = 'aborted';
    for (const step of plan) {
      const tries = step.parallel ? [send(step.instance, product, body, step.timeoutMs), send(1 - step.instance, product, body, step.timeoutMs)] : [send(step.instance, product, body, step.timeoutMs)];
      const answers = await Promise.all(tries);
      last = answers.find((answer) => answer !== 'aborted' && answer.status === 200) ?? answers[0]!;
      if (last !== 'aborted' && last.status === 200) break;
      await sleep(100);
    }
    return last;
  }

  /** Whatever was left pending is resumed (as the sweep would), until nothing is. */
  async function resumeUntilSettled(): Promise<void> {
    for (let round = 0; round < 40; round++) {
      const pending = await instances[0]!.ledger.pendingOperations();
      if (pending.length === 0) break;
      for (const instance of instances) await instance.engine.resumePending();
      await sleep(300);
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
    const outcomes = (await Promise.all(clients.map(failOver))).map((last) => (last === 'aborted' ? 'aborted' : `${last.status} ${last.body?.error?.code ?? ''}`));
    console.log('storm outcomes', outcomes.join(', '));
    await control.clearFaults();
    await resumeUntilSettled();
    expect(await instances[0]!.ledger.pendingOperations()).toEqual([]);
    const account = await control.account('demo');
    const usage = await instances[0]!.ledger.wordsCharged(memberId);
    const budgets = await instances[1]!.ledger.budgetUsage(memberId);
    expect(usage).toEqual(account.charged);
    expect(budgets).toEqual(account.charged);
    // The console's usage report (per UTC day, per member) says the same.
    const report = await usageReport(instances[1]!.ledger, await instances[1]!.ledger.consoleStore(), {}, Date.now());
    expect(report.members.find((member) => member.id === memberId)!.words).toEqual(account.charged);
  }, 60_000);

  it('documents in parts, failed over mid-way: every part the upstream charged is counted once', async () => {
    const next = random(Number(process.env.PROBE4_SEED ?? 4) + 100);
    const control = upstreamControl(double.url);
    const before = (await control.account('demo')).charged;
    const usageBefore = await instances[0]!.ledger.wordsCharged(memberId);
    const sentence = 'The committee reviewed the annual figures and agreed on a plan. ';
    const faultKinds = [
      { kind: 'delay', delayMs: 1500 },
      { kind: 'delay', delayMs: 3500 },
      { kind: 'drop-after' },
      { kind: 'status', status: 503, phase: 'after' },
      { kind: 'status', status: 502, phase: 'before', delayMs: 300 },
      { kind: 'status', status: 429, phase: 'before', retryAfterSeconds: 1 },
    ];
    await control.addFaults(Array.from({ length: 30 }, () => ({ fault: faultKinds[Math.floor(next() * faultKinds.length)] })));
    const clients = (['detector', 'plagiarism', 'detector', 'plagiarism'] as Product[]).map((product, index) => {
      const text = sentence.repeat(2600 + index * 700) + `End ${index}.`;
      const body = { operationId: `doc-${index}-${process.pid}`, text };
      const plan = Array.from({ length: 8 }, () => ({ instance: Math.floor(next() * 2), timeoutMs: 500 + Math.floor(next() * 3000), parallel: next() < 0.4 }));
      return { product, body, plan };
    });
    const outcomes = (await Promise.all(clients.map(failOver))).map((last) => (last === 'aborted' ? 'aborted' : `${last.status} ${last.body?.error?.code ?? ''} parts=${last.body?.parts}`));
    console.log('document outcomes', outcomes.join(', '));
    await control.clearFaults();
    await resumeUntilSettled();
    expect(await instances[0]!.ledger.pendingOperations()).toEqual([]);
    const after = (await control.account('demo')).charged;
    const usage = await instances[0]!.ledger.wordsCharged(memberId);
    const budgets = await instances[1]!.ledger.budgetUsage(memberId);
    for (const product of PRODUCTS) {
      expect(usage[product] - usageBefore[product], product).toBe(after[product] - before[product]);
      expect(budgets[product], product).toBe(usage[product]);
    }
  }, 60_000);
});

describe('kill -9 of the instance running a document: the other instance\'s sweep settles it, with no client', () => {
  const schema = `probe4_kill_${process.pid}`;
  const folder = mkdtempSync(path.join(tmpdir(), 'redline-probe4-kill-'));
  let double: RunningUpstreamDouble;
  let survivor: RunningBff;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    double = await startUpstreamDouble({ testMode: true, inProgressRetryAfterSeconds: 1 });
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await survivor?.stop().catch(() => {});
    await double?.close();
    rmSync(folder, { recursive: true, force: true });
    await dropSchema(schema);
  });

  it('every part the upstream charged is counted once, and a repeat is a replay', async () => {
    const env = {
      ...FAST_RETRIES,
      BFF_DATA_DIR: folder,
      BFF_DATABASE_URL: POSTGRES_URL,
      BFF_DATABASE_SCHEMA: schema,
      BFF_RESUME_INTERVAL_SECONDS: '1',
      UPSTREAM_BASE_URL: double.url,
      UPSTREAM_API_KEY: 'demo-key-primary',
    };
    const doomed = await startServerProcess(process.execPath, ['--import', 'tsx', 'bff/src/main.ts'], { ...env, BFF_PORT: '0' }, BFF_LISTENING);
    child = doomed.child;
    survivor = await startBff(loadConfig({ ...env, BFF_PORT: '0' }), { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: new LogCapture() });
    const { member, token } = await createMember(survivor.ledger, 'writer', { detector: 1_000_000 });
    const control = upstreamControl(double.url);
    // Parts in flight for a while, some answered and lost with the process.
    await control.addFaults([
      { fault: { kind: 'delay', delayMs: 1500 }, product: 'detector' },
      { fault: { kind: 'drop-after', delayMs: 800 }, product: 'detector' },
      { fault: { kind: 'status', status: 503, phase: 'after', delayMs: 300 }, product: 'detector' },
    ]);
    const text = 'The committee reviewed the annual figures and agreed on a plan. '.repeat(7000) + 'The end.';
    const operationId = `killed-document-${process.pid}`;
    const answer = request(doomed.url, '/v1/detect', { operationId, text }, token).catch((error: Error) => error);
    for (let i = 0; i < 100 && (await control.received()).length < 3; i++) await sleep(20);
    await sleep(400);
    doomed.child.kill('SIGKILL');
    expect(await answer).toBeInstanceOf(Error);
    let record;
    for (let i = 0; i < 100; i++) {
      record = await survivor.ledger.findOperation(member.id, operationId);
      if (record?.state !== 'pending') break;
      await sleep(100);
    }
    expect(record?.state).toBe('completed');
    const charged = (await control.account('demo')).charged.detector;
    expect((await survivor.ledger.wordsCharged(member.id)).detector).toBe(charged);
    expect((await survivor.ledger.budgetUsage(member.id)).detector).toBe(charged);
    const repeat = await request(survivor.url, '/v1/detect', { operationId, text }, token);
    expect([repeat.status, repeat.body.replayed, repeat.body.wordsCharged, repeat.body.parts]).toEqual([200, true, charged, 3]);
  }, 60_000);
});

describe('a member budget raced for its last words on two instances', () => {
  const schema = `probe4_budget_${process.pid}`;
  const folder = mkdtempSync(path.join(tmpdir(), 'redline-probe4-budget-'));
  let double: RunningUpstreamDouble;
  const instances: RunningBff[] = [];

  beforeAll(async () => {
    double = await startUpstreamDouble({ testMode: true });
    const env = { ...FAST_RETRIES, BFF_PORT: '0', BFF_DATA_DIR: folder, BFF_DATABASE_URL: POSTGRES_URL, BFF_DATABASE_SCHEMA: schema, BFF_MEMBER_RATE_LIMIT: '10000', UPSTREAM_BASE_URL: double.url, UPSTREAM_API_KEY: 'demo-key-primary' };
    instances.push(...(await twoInstances(env, schema)));
  });
  afterAll(async () => {
    for (const instance of instances) await instance.stop().catch(() => {});
    await double?.close();
    rmSync(folder, { recursive: true, force: true });
    await dropSchema(schema);
  });

  it('no more than the budget is charged, none refused that would fit in what is left, and each refusal says what is left', async () => {
    const budget = 100;
    const { member, token } = await createMember(instances[0]!.ledger, 'racer', { plagiarism: budget });
    const next = random(7);
    const sizes = Array.from({ length: 40 }, () => 1 + Math.floor(next() * 12));
    const answers = await Promise.all(
      sizes.map((size, index) =>
        request(instances[index % 2]!.url, '/v1/plagiarism', { operationId: `race-${index}-${process.pid}`, text: Array.from({ length: size }, (_, word) => `w${word}`).join(' ') }, token),
      ),
    );
    const charged = answers.reduce((sum, answer) => sum + (answer.status === 200 ? answer.body.wordsCharged : 0), 0);
    expect(charged).toBeLessThanOrEqual(budget);
    const left = budget - charged;
    for (const [index, answer] of answers.entries()) {
      if (answer.status === 200) continue;
      expect(answer.body.error.code).toBe('member_budget_exceeded');
      expect(sizes[index]).toBeGreaterThan(left);
      expect(answer.body.error.requiredWords).toBe(sizes[index]);
      expect(answer.body.error.remainingWords).toBeGreaterThanOrEqual(left);
      expect(answer.body.error.remainingWords).toBeLessThan(sizes[index]!);
    }
    expect((await upstreamControl(double.url).account('demo')).charged.plagiarism).toBe(charged);
    const usage = await request(instances[1]!.url, '/v1/usage', undefined, token);
    expect(usage.body.products.plagiarism).toEqual({ wordsCharged: charged, budget, remaining: left });
    // Exactly at the limit is allowed, one word over is not.
    if (left > 0) {
      const over = await request(instances[0]!.url, '/v1/plagiarism', { operationId: `race-over-${process.pid}`, text: Array.from({ length: left + 1 }, (_, word) => `x${word}`).join(' ') }, token);
      expect([over.status, over.body.error?.remainingWords, over.body.error?.requiredWords]).toEqual([403, left, left + 1]);
      const exact = await request(instances[1]!.url, '/v1/plagiarism', { operationId: `race-exact-${process.pid}`, text: Array.from({ length: left }, (_, word) => `y${word}`).join(' ') }, token);
      expect([exact.status, exact.body.wordsCharged]).toEqual([200, left]);
    }
    expect((await instances[0]!.ledger.budgetUsage(member.id)).plagiarism).toBe(budget);
  }, 30_000);
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
    instances.push(...(await twoInstances(env, schema)));
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

describe('a revoked member\'s operations left pending by the upstream\'s rate limit', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { BFF_RESUME_INTERVAL_SECONDS: '3600' } });
  });
  afterAll(() => h?.close());

  /** The sweep for operations left pending, twice (the first only notes them), as the timer runs it. */
  const sweep = async () => {
    await h.bff.engine.resumeLeftPending();
    await h.bff.engine.resumeLeftPending();
    await sleep(500);
  };

  it('are not sent after the revocation when nothing of them ran; one that may have been charged is still counted', async () => {
    const { member, token } = await createMember(h.bff.ledger, 'abused-token');
    const texts = ['Spam one two three four.', 'Spam five six seven eight nine.', 'Spam ten eleven twelve.'];
    // The account is rate limited (the abuse itself, say): each call is refused 429 past the deadline.
    await h.control.addFaults([{ fault: { kind: 'status', status: 429, retryAfterSeconds: 60 }, product: 'plagiarism', times: texts.length }]);
    const refused = await Promise.all(texts.map((text, index) => h.call('/v1/plagiarism', { operationId: `abuse-${index}-${process.pid}`, text }, { token })));
    expect(refused.map((answer) => answer.body.error?.code)).toEqual(['busy', 'busy', 'busy']);
    // One more that the upstream ran and charged, whose answer was lost: a later retry is rate limited too.
    await h.control.addFaults([
      { fault: { kind: 'drop-after' }, product: 'plagiarism' },
      { fault: { kind: 'status', status: 429, retryAfterSeconds: 60 }, product: 'plagiarism' },
    ]);
    const charged = await h.call('/v1/plagiarism', { operationId: `abuse-charged-${process.pid}`, text: 'Charged before the revocation here.' }, { token });
    expect(charged.body.error?.code).toBe('busy');
    expect((await h.control.account('demo')).charged.plagiarism).toBe(5);

    expect(await revokeMember(h.bff.ledger, member.id)).toBe(true);
    await h.control.clearFaults();
    const received = (await h.control.received()).length;
    await sweep();
    await h.bff.engine.resumePending(); // as after a restart

    // The charge already made is counted (its replay costs nothing); nothing else is sent or charged.
    expect((await h.control.account('demo')).charged.plagiarism).toBe(5);
    const sent = (await h.control.received()).slice(received);
    expect(sent).toHaveLength(1);
    expect((await h.bff.ledger.findOperation(member.id, `abuse-charged-${process.pid}`))?.state).toBe('completed');
    for (const index of texts.keys()) {
      const record = await h.bff.ledger.findOperation(member.id, `abuse-${index}-${process.pid}`);
      expect([record?.state, record?.error?.error.code]).toEqual(['failed', 'unauthorized']);
    }
    expect(await h.bff.ledger.pendingOperations()).toEqual([]);
    expect((await h.bff.ledger.wordsCharged(member.id)).plagiarism).toBe(5);
    expect((await h.bff.ledger.budgetUsage(member.id)).plagiarism).toBe(5);
  }, 30_000);

  it('one waiting out a 429 when the member is revoked is not sent again: refused, nothing charged, its words freed', async () => {
    const { member, token } = await createMember(h.bff.ledger, 'abused-waiting', { humanizer: 1000 });
    await h.control.addFaults([{ fault: { kind: 'status', status: 429, retryAfterSeconds: 2 }, product: 'humanizer' }]);
    const received = (await h.control.received()).length;
    const operationId = `abuse-waiting-${process.pid}`;
    const answer = h.call('/v1/humanize', { operationId, text: 'Rewrite this on the team account please.', model: 'cognia' }, { token });
    for (let i = 0; i < 40 && (await h.control.received()).length === received; i++) await sleep(25);
    expect(await revokeMember(h.bff.ledger, member.id)).toBe(true);
    const refused = await answer;
    expect([refused.status, refused.body.error?.code]).toEqual([401, 'unauthorized']);
    expect((await h.control.received()).slice(received)).toHaveLength(1);
    expect((await h.control.account('demo')).charged.humanizer).toBe(0);
    expect((await h.bff.ledger.findOperation(member.id, operationId))?.state).toBe('failed');
    expect((await h.bff.ledger.budgetUsage(member.id)).humanizer).toBe(0);
  }, 30_000);

  it('a document: the part that may have been charged is counted, the parts never sent are not sent, and the document fails', async () => {
    const { member, token } = await createMember(h.bff.ledger, 'abused-document');
    const before = (await h.control.account('demo')).charged.detector;
    // One part runs and is charged, its answer lost, then every call is rate limited past the deadline.
    await h.control.addFaults([
      { fault: { kind: 'drop-after' }, product: 'detector' },
      { fault: { kind: 'status', status: 429, retryAfterSeconds: 60 }, product: 'detector', times: 5 },
    ]);
    const operationId = `abuse-document-${process.pid}`;
    const text = 'The committee reviewed the annual figures and agreed on a plan. '.repeat(7000) + 'The end.';
    const answer = await h.call('/v1/detect', { operationId, text }, { token });
    expect(answer.body.error?.code).toBe('busy');
    const charged = (await h.control.account('demo')).charged.detector - before;
    expect(charged).toBeGreaterThan(0);

    expect(await revokeMember(h.bff.ledger, member.id)).toBe(true);
    await h.control.clearFaults();
    const received = (await h.control.received()).length;
    await sweep();
    await h.bff.engine.resumePending();

    expect((await h.control.account('demo')).charged.detector - before).toBe(charged);
    expect((await h.control.received()).slice(received)).toHaveLength(1);
    const record = await h.bff.ledger.findOperation(member.id, operationId);
    expect([record?.state, record?.error?.error.code]).toEqual(['failed', 'unauthorized']);
    expect((await h.bff.ledger.partsOf(member.id, operationId)).map((part) => part.state).sort()).toEqual(['completed', 'pending', 'pending']);
    expect((await h.bff.ledger.wordsCharged(member.id)).detector).toBe(charged);
    expect((await h.bff.ledger.budgetUsage(member.id)).detector).toBe(charged);
  }, 30_000);
});

describe('SQLite: the retention purge while another process holds a read snapshot (a backup, an sqlite3 shell)', () => {
  it('does not hold the BFF\'s requests, and the log is cut once the reader is gone', async () => {
    const h = await startHarness({ env: { BFF_PURGE_INTERVAL_SECONDS: '0.5' } });
    const reader = new Database(path.join(h.dataDir, 'bff.sqlite'), { readonly: true });
    try {
      await h.call('/v1/detect', { operationId: `snapshot-1-${process.pid}`, text: 'A text one two three.' });
      reader.exec('BEGIN');
      reader.prepare('SELECT count(*) FROM operations').get();
      await h.call('/v1/detect', { operationId: `snapshot-2-${process.pid}`, text: 'Another text four five six.' });
      const slowest = await slowestHealthCheckDuring(h.bff.url, () => sleep(2500));
      expect(slowest).toBeLessThan(1000);
      reader.exec('COMMIT');
      const wal = path.join(h.dataDir, 'bff.sqlite-wal');
      let walBytes = -1;
      for (let i = 0; i < 40 && walBytes !== 0; i++) {
        await sleep(100);
        walBytes = statSync(wal).size;
      }
      expect(walBytes).toBe(0);
    } finally {
      reader.close();
      await h.close();
    }
  }, 30_000);
});
