import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, expect, it } from 'vitest';
import { ensureFirstMember } from '@redline/bff/first-run';
import { SqliteLedger } from '@redline/bff/storage/sqlite';
import { MIXED_TEXT } from '../upstream/fixtures.ts';
import { newOperationId, startHarness } from './harness.ts';

// The ledger holds submitted texts and token hashes: private to the BFF's user whatever the
// umask of the shell that started it (here the common 022, which makes files 0644).

const root = mkdtempSync(path.join(tmpdir(), 'redline-private-'));
let previousUmask: number;
beforeEach(() => {
  previousUmask = process.umask(0o022);
});
afterEach(() => {
  process.umask(previousUmask);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const modeOf = (file: string) => `0${(statSync(file).mode & 0o777).toString(8)}`;

it('with umask 022, a new data folder is 0700 and the database, its WAL and SHM files are 0600', async () => {
  const dataDir = path.join(root, 'fresh', 'data');
  const h = await startHarness({ env: { BFF_DATA_DIR: dataDir } });
  try {
    expect((await h.call('/v1/detect', { operationId: newOperationId(), text: MIXED_TEXT })).status).toBe(200);
    expect(modeOf(dataDir)).toBe('0700');
    for (const file of ['bff.sqlite', 'bff.sqlite-wal', 'bff.sqlite-shm']) expect([file, modeOf(path.join(dataDir, file))]).toEqual([file, '0600']);
  } finally {
    await h.close();
  }
});

it('a data folder and database left open to others are narrowed at start, with a log line', async () => {
  const dataDir = path.join(root, 'old');
  mkdirSync(dataDir, { mode: 0o755 });
  await new SqliteLedger(path.join(dataDir, 'bff.sqlite')).close();
  for (const file of ['bff.sqlite', 'bff.sqlite-wal', 'bff.sqlite-shm']) {
    try {
      chmodSync(path.join(dataDir, file), 0o644);
    } catch {
      // the WAL and SHM files are removed on a clean close
    }
  }
  chmodSync(dataDir, 0o755);
  expect(modeOf(dataDir)).toBe('0755');
  const h = await startHarness({ env: { BFF_DATA_DIR: dataDir } });
  try {
    expect(modeOf(dataDir)).toBe('0700');
    expect(modeOf(path.join(dataDir, 'bff.sqlite'))).toBe('0600');
    const narrowed = h.logs.lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg.includes('permissions narrowed'));
    expect(narrowed.map((entry) => [path.basename(entry.path), entry.was, entry.now])).toEqual(
      expect.arrayContaining([
        ['old', '0755', '0700'],
        ['bff.sqlite', '0644', '0600'],
      ]),
    );
  } finally {
    await h.close();
  }
});

it('the first member token file is 0600, and written once', async () => {
  const dataDir = path.join(root, 'first');
  const ledger = new SqliteLedger(path.join(dataDir, 'bff.sqlite'));
  try {
    const first = await ensureFirstMember(ledger, dataDir);
    expect(first.created).toBe(true);
    expect(modeOf(first.tokenFile)).toBe('0600');
    expect((await ensureFirstMember(ledger, dataDir)).created).toBe(false);
    expect((await ledger.listMembers()).map((member) => member.name)).toEqual(['owner']);
  } finally {
    await ledger.close();
  }
});
