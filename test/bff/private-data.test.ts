import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

it('a data folder shared with other files or users is left as it is (its own files narrowed); a path that is not a folder is refused untouched', async () => {
  // A home folder: other files in it, readable by others.
  const home = path.join(root, 'home');
  mkdirSync(home, { mode: 0o755 });
  chmodSync(home, 0o755);
  writeFileSync(path.join(home, 'notes.txt'), 'mine');
  // A shared folder like /tmp: sticky, open to everyone.
  const shared = path.join(root, 'shared');
  mkdirSync(shared);
  chmodSync(shared, 0o1777);
  const logs: string[] = [];
  for (const dir of [home, shared]) {
    const ledger = new SqliteLedger(path.join(dir, 'bff.sqlite'), { onPermissionsNarrowed: (_fields, message) => logs.push(message) });
    await ledger.addMember({ id: `m_${path.basename(dir)}`, name: 'someone', tokenHash: `h_${dir}`, tokenPrefix: 'rl_x', budgets: {} });
    await ledger.close();
    expect(modeOf(path.join(dir, 'bff.sqlite'))).toBe('0600');
  }
  expect(modeOf(home)).toBe('0755');
  expect(`0${(statSync(shared).mode & 0o7777).toString(8)}`).toBe('01777');
  expect(logs.filter((message) => message.includes('left as they are'))).toHaveLength(2);

  const file = path.join(root, 'a-file');
  writeFileSync(file, 'not a folder', { mode: 0o644 });
  chmodSync(file, 0o644);
  expect(() => new SqliteLedger(path.join(file, 'bff.sqlite'))).toThrow(/is not a folder\. Set BFF_DATA_DIR/);
  expect(modeOf(file)).toBe('0644');
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
