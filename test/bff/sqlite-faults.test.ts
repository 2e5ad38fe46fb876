import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { countWords } from '@redline/shared';
import { loadConfig } from '@redline/bff/config';
import { createMember } from '@redline/bff/members';
import { startBff } from '@redline/bff/server';
import { SqliteLedger } from '@redline/bff/storage/sqlite';
import { startUpstreamDouble } from '../upstream/server.ts';
import { upstreamControl } from '../upstream/client.ts';
import { MIXED_TEXT } from '../upstream/fixtures.ts';
import { FAST_RETRIES, LogCapture, newOperationId, request, startHarness, type BffResponse } from './harness.ts';

// SQLite faults that happen in production: a full disk, a read-only file system, another
// process holding the lock. Each gives a clear 503 ledger_unavailable with Retry-After and a
// log line saying what is wrong, and the BFF recovers by itself when the cause is gone.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const root = process.getuid?.() === 0;
const mounts: string[] = [];
afterAll(() => {
  for (const mount of mounts) {
    try {
      execFileSync('umount', ['-l', mount]);
    } catch {
      // not mounted
    }
    rmSync(mount, { recursive: true, force: true });
  }
});

function smallDisk(size: string): string {
  const mount = mkdtempSync(path.join(tmpdir(), 'redline-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', mount]);
  mounts.push(mount);
  return mount;
}

function fillDisk(file: string): void {
  const fd = openSync(file, 'w');
  const block = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

function expectLedgerUnavailable(answer: BffResponse) {
  expect(answer.status).toBe(503);
  expect(answer.body.error.code).toBe('ledger_unavailable');
  expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
}

async function waitReady(url: string, ms = 10_000): Promise<void> {
  for (const started = Date.now(); Date.now() - started < ms; await sleep(100)) {
    if ((await request(url, '/readyz', undefined, null)).status === 200) return;
  }
  throw new Error('the BFF did not become ready again');
}

describe.runIf(root)('a full disk (a 3 MiB tmpfs)', () => {
  it('503 ledger_unavailable and a log line while full; recovery when space is freed; charged once', async () => {
    const disk = smallDisk('3m');
    const h = await startHarness({ env: { BFF_DATA_DIR: path.join(disk, 'data'), BFF_LEDGER_PROBE_SECONDS: '0.2' } });
    try {
      expect((await h.call('/v1/detect', { operationId: newOperationId(), text: MIXED_TEXT })).status).toBe(200);
      fillDisk(path.join(disk, 'filler'));
      const operationId = newOperationId();
      const text = `${'A longer text fills more pages. '.repeat(600)}${MIXED_TEXT}`;
      const refused = await h.call('/v1/detect', { operationId, text });
      expectLedgerUnavailable(refused);
      const ready = await request(h.bff.url, '/readyz', undefined, null);
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ status: 'ledger_unavailable', reason: 'disk_full' });
      expect(h.logs.text).toContain('the disk holding the SQLite ledger is full');
      expectLedgerUnavailable(await h.call('/v1/detect', { operationId, text }));

      rmSync(path.join(disk, 'filler'));
      await waitReady(h.bff.url);
      const done = await h.call('/v1/detect', { operationId, text });
      expect(done.status).toBe(200);
      const account = await h.control.account('demo');
      expect(account.charged.detector).toBe(countWords(MIXED_TEXT) + countWords(text));
      expect(account.providerRuns.detector).toBe(2);
      expect(h.logs.text).toContain('ledger available again');
      const check = new Database(path.join(disk, 'data', 'bff.sqlite'), { readonly: true });
      expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
      check.close();
    } finally {
      await h.close();
    }
  });
});

// With checkpoints on a thread, that thread starts again with the connection that recovers.
for (const checkpoints of ['commit', 'thread'] as const) describe.runIf(root)(`a read-only file system (checkpoints: ${checkpoints})`, () => {
  it('starts, answers 503 ledger_unavailable saying the folder must be writable, recovers when it is', async () => {
    const disk = smallDisk('8m');
    const dataDir = path.join(disk, 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    const seed = new SqliteLedger(path.join(dataDir, 'bff.sqlite'));
    const { token } = await createMember(seed, 'read-only-tester');
    await seed.close();
    execFileSync('mount', ['-o', 'remount,ro', disk]);

    const double = await startUpstreamDouble({ testMode: true });
    const logs = new LogCapture();
    const env = {
      ...FAST_RETRIES, BFF_PORT: '0', BFF_DATA_DIR: dataDir, BFF_LEDGER_PROBE_SECONDS: '0.2', BFF_SQLITE_CHECKPOINTS: checkpoints,
      UPSTREAM_BASE_URL: double.url, UPSTREAM_API_KEY: 'demo-key-primary',
    };
    const bff = await startBff(loadConfig(env), { logDestination: logs });
    try {
      const ready = await request(bff.url, '/readyz', undefined, null);
      expect(ready.status).toBe(503);
      expect(ready.body.status).toBe('ledger_unavailable');
      const operationId = newOperationId();
      expectLedgerUnavailable(await request(bff.url, '/v1/detect', { operationId, text: MIXED_TEXT }, token));
      expect(logs.text).toMatch(/writable/);
      expect((await upstreamControl(double.url).received()).length).toBe(0); // nothing forwarded without its record

      execFileSync('mount', ['-o', 'remount,rw', disk]);
      await waitReady(bff.url);
      const done = await request(bff.url, '/v1/detect', { operationId, text: MIXED_TEXT }, token);
      expect(done.status).toBe(200);
      expect((await upstreamControl(double.url).account('demo')).charged.detector).toBe(countWords(MIXED_TEXT));
      const ledger = bff.ledger as SqliteLedger;
      expect(ledger.checkpointsRunIn).toBe(checkpoints);
      // The log is copied back and cut (by the thread when it runs) on the writable file.
      await ledger.purgeSettled(new Date());
      expect(statSync(path.join(dataDir, 'bff.sqlite-wal')).size).toBe(0);
    } finally {
      await bff.stop();
      await double.close();
    }
  });
});

describe('SQLITE_BUSY: another process holds the write lock', () => {
  it('503 ledger_unavailable naming the lock while it is held; recovery when it is released', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'redline-busy-'));
    const file = path.join(dataDir, 'bff.sqlite');
    const h = await startHarness({ ledger: new SqliteLedger(file, { busyTimeoutMs: 300 }), env: { BFF_LEDGER_PROBE_SECONDS: '0.2' } });
    const other = new Database(file);
    try {
      other.exec('BEGIN IMMEDIATE');
      const operationId = newOperationId();
      expectLedgerUnavailable(await h.call('/v1/detect', { operationId, text: MIXED_TEXT }));
      expect(h.logs.text).toContain('another process holds the SQLite ledger lock');
      expect((await request(h.bff.url, '/readyz', undefined, null)).body).toEqual({ status: 'ledger_unavailable', reason: 'busy' });
      other.exec('ROLLBACK');
      await waitReady(h.bff.url);
      expect((await h.call('/v1/detect', { operationId, text: MIXED_TEXT })).status).toBe(200);
      expect((await h.control.account('demo')).charged.detector).toBe(countWords(MIXED_TEXT));
    } finally {
      other.close();
      await h.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('an operation whose upstream answer arrives during a ledger fault', () => {
  it('is left pending and completes by itself when the ledger is back, as after a restart, charged once', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'redline-resume-'));
    const file = path.join(dataDir, 'bff.sqlite');
    const h = await startHarness({ ledger: new SqliteLedger(file, { busyTimeoutMs: 300 }), env: { BFF_LEDGER_PROBE_SECONDS: '0.2' } });
    const other = new Database(file);
    try {
      await h.control.addFaults([{ fault: { kind: 'delay', delayMs: 600 } }]);
      const operationId = newOperationId();
      const answer = h.call('/v1/detect', { operationId, text: MIXED_TEXT });
      for (let i = 0; i < 50 && (await h.control.received()).length === 0; i++) await sleep(20);
      other.exec('BEGIN IMMEDIATE'); // the completion cannot be written
      expectLedgerUnavailable(await answer);
      other.exec('ROLLBACK');
      await waitReady(h.bff.url);
      const member = (await h.bff.ledger.listMembers()).find((candidate) => candidate.name === 'tester')!;
      let state: string | undefined;
      for (let i = 0; i < 100 && state !== 'completed'; i++) {
        await sleep(100);
        state = await h.bff.ledger.findOperation(member.id, operationId).then((record) => record?.state, () => undefined);
      }
      expect(state).toBe('completed'); // no client repeat was needed
      expect(h.logs.text).toContain('resuming pending operation');
      expect((await h.control.account('demo')).charged.detector).toBe(countWords(MIXED_TEXT));
      const repeat = await h.call('/v1/detect', { operationId, text: MIXED_TEXT });
      expect(repeat.body).toMatchObject({ replayed: true, wordsCharged: countWords(MIXED_TEXT) });
    } finally {
      other.close();
      await h.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
