import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countWords } from '@redline/shared';
import { MIXED_TEXT } from '../upstream/fixtures.ts';
import { POSTGRES_URL, dropSchema, newOperationId, request, startHarness, type BffResponse, type Harness } from './harness.ts';
import { startPrivatePostgres, type PrivatePostgres } from './private-postgres.ts';

// The BFF survives its PostgreSQL going away while requests run: it does not exit, answers
// 503 ledger_unavailable with Retry-After during the outage, recovers by itself, and every
// operation is charged once after clients repeat with their operation ids.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A client that repeats an operation until it gets its result, as the extension does. */
async function untilDone(h: Harness, operationId: string, text: string, seen: BffResponse[]): Promise<BffResponse> {
  for (let attempt = 0; attempt < 300; attempt++) {
    const answer = await h.call('/v1/detect', { operationId, text });
    seen.push(answer);
    if (answer.status === 200) return answer;
    await sleep(100);
  }
  throw new Error(`operation ${operationId} never completed`);
}

function expectOnlyLedgerUnavailable(seen: BffResponse[]) {
  const refused = seen.filter((answer) => answer.status !== 200);
  for (const answer of refused) {
    expect(answer.status).toBe(503);
    expect(answer.body.error.code).toBe('ledger_unavailable');
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(answer.body.error.message).toMatch(/database/);
  }
  return refused.length;
}

const texts = Array.from({ length: 12 }, (_, i) => `Operation number ${i + 1} of the outage test. ${MIXED_TEXT}`);
const totalWords = texts.reduce((sum, text) => sum + countWords(text), 0);

describe('a PostgreSQL server restart (a private server, stopped and started)', () => {
  let server: PrivatePostgres;
  let h: Harness;
  beforeAll(async () => {
    server = await startPrivatePostgres();
    h = await startHarness({
      env: { BFF_DATABASE_URL: server.url, BFF_DATABASE_SCHEMA: 'outage', BFF_LEDGER_PROBE_SECONDS: '0.2', BFF_MEMBER_RATE_LIMIT: '10000' },
    });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    server?.destroy();
  });

  it('no exit, 503 ledger_unavailable with Retry-After, recovery, every operation charged once', async () => {
    await h.control.addFaults([{ fault: { kind: 'delay', delayMs: 300 }, times: 12 }]);
    const seen: BffResponse[] = [];
    const clients = texts.map(async (text, i) => {
      await sleep(i * 80);
      return untilDone(h, newOperationId(), text, seen);
    });
    await sleep(450);
    server.stop();
    const ready = await request(h.bff.url, '/readyz', undefined, null);
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: 'ledger_unavailable', reason: expect.any(String) });
    expect(ready.headers.get('retry-after')).toBeTruthy();
    await sleep(1500);
    server.start();
    const answers = await Promise.all(clients);

    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    expect(expectOnlyLedgerUnavailable(seen)).toBeGreaterThan(0);
    expect((await request(h.bff.url, '/readyz', undefined, null)).status).toBe(200);
    const account = await h.control.account('demo');
    expect(account.charged.detector).toBe(totalWords);
    expect(account.providerRuns.detector).toBe(12);
    expect((await h.call('/v1/usage')).body.products.detector.wordsCharged).toBe(totalWords);
    const logs = h.logs.lines.map((line) => JSON.parse(line));
    expect(logs.some((entry) => entry.level === 50 && entry.msg.startsWith('ledger unavailable') && entry.error?.type && entry.error.type !== 'Object' && typeof entry.error.stack === 'string' && entry.error.message)).toBe(true);
    expect(logs.some((entry) => entry.msg === 'ledger available again')).toBe(true);
    expect(logs.filter((entry) => entry.msg === 'unexpected error')).toEqual([]);
  }, 60_000);
});

describe('a BFF process (bff/src/main.ts) while its PostgreSQL server is stopped and started again', () => {
  it('waits for a server that is not up yet; keeps running, is not ready during an outage, and serves again afterwards', async () => {
    const server = await startPrivatePostgres();
    server.stop(); // the BFF starts first, as it may in a deployment
    const dataDir = mkdtempSync(path.join(tmpdir(), 'redline-outage-process-'));
    const child = spawn(process.execPath, ['--import', 'tsx', 'bff/src/main.ts'], {
      env: { ...process.env, BFF_PORT: '0', BFF_DATA_DIR: dataDir, BFF_DATABASE_URL: server.url, BFF_DATABASE_SCHEMA: 'process_outage', BFF_LEDGER_PROBE_SECONDS: '0.2' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    try {
      for (let i = 0; i < 100 && !output.includes('waiting for the ledger'); i++) await sleep(100);
      expect(output).toContain('PostgreSQL cannot be reached');
      expect(child.exitCode).toBeNull();
      server.start();
      let url: string | undefined;
      for (let i = 0; i < 300 && !(url && output.includes('First run')); i++) {
        url = /"url":"(http:\/\/[^"]+)"/.exec(output)?.[1];
        if (child.exitCode !== null) throw new Error(output);
        await sleep(100);
      }
      const token = readFileSync(path.join(dataDir, 'first-member-token.txt'), 'utf8').trim();
      expect((await request(url!, '/v1/usage', undefined, token)).status).toBe(200);

      server.stop();
      await sleep(500);
      const ready = await request(url!, '/readyz', undefined, null);
      expect(ready.body.status).toBe('ledger_unavailable');
      const refused = await request(url!, '/v1/usage', undefined, token);
      expect(refused.status).toBe(503);
      expect(refused.body.error.code).toBe('ledger_unavailable');
      await sleep(1000);
      expect(child.exitCode, output).toBeNull();

      server.start();
      for (let i = 0; i < 100 && (await request(url!, '/readyz', undefined, null)).status !== 200; i++) await sleep(100);
      expect((await request(url!, '/v1/usage', undefined, token)).status).toBe(200);
      expect(child.exitCode, output).toBeNull();
      expect(output).not.toContain("Unhandled 'error' event");
    } finally {
      child.kill('SIGKILL');
      server.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("pg_terminate_backend on the BFF's connections (the machine's server)", () => {
  const schema = `terminate_${process.pid}`;
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      env: { BFF_DATABASE_URL: POSTGRES_URL, BFF_DATABASE_SCHEMA: schema, BFF_LEDGER_PROBE_SECONDS: '0.2', BFF_MEMBER_RATE_LIMIT: '10000' },
    });
  });
  afterAll(async () => {
    await h?.close();
    await dropSchema(schema);
  });

  it('while requests run: no exit, only 503 ledger_unavailable refusals, every operation charged once', async () => {
    await h.control.addFaults([{ fault: { kind: 'delay', delayMs: 200 }, times: 12 }]);
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    const seen: BffResponse[] = [];
    let terminated = 0;
    try {
      const clients = texts.map(async (text, i) => {
        await sleep(i * 60);
        return untilDone(h, newOperationId(), text, seen);
      });
      for (let round = 0; round < 10; round++) {
        const { rows } = await admin.query('SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name = $1', [`redline-bff:${schema}`]);
        terminated += rows.length;
        await sleep(100);
      }
      const answers = await Promise.all(clients);
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
    } finally {
      await admin.end();
    }
    expect(terminated).toBeGreaterThan(0);
    expectOnlyLedgerUnavailable(seen);
    const account = await h.control.account('demo');
    expect(account.charged.detector).toBe(totalWords);
    expect(account.providerRuns.detector).toBe(12);
    expect((await request(h.bff.url, '/readyz', undefined, null)).status).toBe(200);
  }, 60_000);
});
