import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { countWords } from '@redline/shared';
import { createMember } from '@redline/bff/members';
import { SqliteLedger } from '@redline/bff/storage/sqlite';
import { startUpstreamDouble, type RunningUpstreamDouble } from '../upstream/server.ts';
import { upstreamControl } from '../upstream/client.ts';
import { MIXED_TEXT } from '../upstream/fixtures.ts';
import { FAST_RETRIES, newOperationId, request } from './harness.ts';

// The BFF process is killed (SIGKILL) in the middle of an upstream call and started again:
// it resumes the operation with its original key and bytes, and the words are charged once.

let double: RunningUpstreamDouble;
let dataDir: string;
let token: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  double = await startUpstreamDouble({ testMode: true, inProgressRetryAfterSeconds: 1 });
  dataDir = mkdtempSync(path.join(tmpdir(), 'redline-restart-'));
  const ledger = new SqliteLedger(path.join(dataDir, 'bff.sqlite'));
  token = (await createMember(ledger, 'restart-tester')).token;
  await ledger.close();
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await double.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function startBffProcess(port: number): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bff/src/main.ts'], {
    env: {
      ...process.env,
      ...FAST_RETRIES,
      BFF_PORT: String(port),
      BFF_DATA_DIR: dataDir,
      UPSTREAM_BASE_URL: double.url,
      UPSTREAM_API_KEY: 'demo-key-primary',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (output.includes('BFF listening')) return { child, url, output: () => output };
    if (child.exitCode !== null) throw new Error(`BFF exited: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`BFF did not start: ${output}`);
}

it('resumes an operation interrupted by a crash, and charges it once', async () => {
  const control = upstreamControl(double.url);
  const port = await freePort();
  await control.addFaults([{ fault: { kind: 'delay', delayMs: 1500 } }]);

  const first = await startBffProcess(port);
  const operationId = newOperationId();
  const inFlight = request(first.url, '/v1/detect', { operationId, text: MIXED_TEXT }, token).catch((error: Error) => error);
  for (let i = 0; i < 50 && (await control.received()).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  expect((await control.received()).length).toBe(1);

  first.child.kill('SIGKILL');
  expect(await inFlight).toBeInstanceOf(Error); // the client lost its connection

  const second = await startBffProcess(port);
  // The restarted BFF resumes by itself; the client's retry with the same id gets the result.
  const retried = await request(second.url, '/v1/detect', { operationId, text: MIXED_TEXT }, token);
  expect(retried.status).toBe(200);
  expect(retried.body.result.data.words_processed).toBe(countWords(MIXED_TEXT));
  expect(second.output()).toContain('resuming pending operation');

  const received = await control.received();
  expect(new Set(received.map((entry: { idempotencyKey: string }) => entry.idempotencyKey)).size).toBe(1);
  expect(new Set(received.map((entry: { bodySha256: string }) => entry.bodySha256)).size).toBe(1);
  const account = await control.account('demo');
  expect(account.charged.detector).toBe(countWords(MIXED_TEXT));
  expect(account.providerRuns.detector).toBe(1);

  second.child.kill('SIGTERM');
  await new Promise((resolve) => second.child.once('exit', resolve));
  expect(second.output()).toContain('stopped');
}, 30_000);

it('loses nothing of a charge when a power cut takes the ledger\'s last commits: the repeat sends the same key and the upstream replays it', async () => {
  // An operation's insert and settlement do not wait for the disk, so a power cut may take
  // both back. Modelled by putting the ledger's files back as they were before the operation.
  const control = upstreamControl(double.url);
  await control.reset();
  const port = await freePort();
  const files = ['bff.sqlite', 'bff.sqlite-wal', 'bff.sqlite-shm'].map((name) => path.join(dataDir, name));
  const saved = mkdtempSync(path.join(tmpdir(), 'redline-power-cut-'));
  const snapshot = files.map((file) => (existsSync(file) ? (copyFileSync(file, path.join(saved, path.basename(file))), file) : undefined));
  try {
    const first = await startBffProcess(port);
    const operationId = newOperationId();
    const answered = await request(first.url, '/v1/detect', { operationId, text: MIXED_TEXT }, token);
    expect(answered.status).toBe(200);
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    for (const file of files) rmSync(file, { force: true });
    for (const file of snapshot) if (file) copyFileSync(path.join(saved, path.basename(file)), file);

    const second = await startBffProcess(port);
    const repeated = await request(second.url, '/v1/detect', { operationId, text: MIXED_TEXT }, token);
    expect(repeated.status).toBe(200);
    expect(repeated.body.result).toEqual(answered.body.result);
    const received = await control.received();
    expect(received).toHaveLength(2); // the ledger forgot the operation, so it went upstream again...
    expect(new Set(received.map((entry: { idempotencyKey: string }) => entry.idempotencyKey)).size).toBe(1); // ...with the same key
    const account = await control.account('demo');
    expect(account.providerRuns.detector).toBe(1);
    expect(account.charged.detector).toBe(countWords(MIXED_TEXT));
    second.child.kill('SIGTERM');
    await new Promise((resolve) => second.child.once('exit', resolve));
  } finally {
    rmSync(saved, { recursive: true, force: true });
  }
}, 30_000);

async function freePort(): Promise<number> {
  return new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
