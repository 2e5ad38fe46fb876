import { mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteCheckpointer } from '../../bff/src/storage/sqlite-checkpointer.ts';
import { SqliteLedger } from '../../bff/src/storage/sqlite.ts';

let dir: string;
let file: string;
let db: Database.Database;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'redline-checkpoint-'));
  file = path.join(dir, 'ledger.sqlite');
  db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('wal_autocheckpoint = 0'); // as the ledger's connection while the thread runs
  db.pragma('busy_timeout = 5000');
  db.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const size = (name: string) => statSync(name).size;
const until = async (condition: () => boolean, timeoutMs = 5000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  return condition();
};

/**
 * Writes `rounds` bursts of small commits (each round a few more than the last, so that every
 * round leaves the log at a new length), waiting `between` rounds as a server waits between
 * requests; the log's largest size.
 */
async function writeRounds(rounds: number, between: () => Promise<unknown>): Promise<number> {
  const insert = db.prepare('INSERT INTO rows (body) VALUES (?)');
  const body = 'x'.repeat(2000);
  let largest = 0;
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < 100 + round; i++) insert.run(body);
    largest = Math.max(largest, size(`${file}-wal`));
    await between();
  }
  return largest;
}

describe('SqliteCheckpointer (the ledger\'s checkpoints on a thread of their own)', () => {
  it('copies the log into the database file while the writer never checkpoints', async () => {
    await writeRounds(2, async () => {});
    const before = size(file);
    const checkpointer = new SqliteCheckpointer(file, { intervalMs: 20, onStopped: () => {} });
    try {
      expect(await until(() => checkpointer.checkpoints > 0)).toBe(true);
      expect(size(file)).toBeGreaterThan(before + 100_000);
      expect(checkpointer.running).toBe(true);
    } finally {
      await checkpointer.stop();
    }
  });

  it('keeps the log bounded under steady writing, where the writer alone lets it grow', async () => {
    // Counted in rounds, not time, and each round waits for the thread's next checkpoint: a
    // busy machine slows the thread but cannot make the test fail (a timed version did, in CI).
    const rounds = 16;
    const unbounded = await writeRounds(rounds, () => new Promise((resolve) => setTimeout(resolve, 25)));
    db.pragma('wal_checkpoint(TRUNCATE)');
    const checkpointer = new SqliteCheckpointer(file, { intervalMs: 20, restartAboveBytes: 256 * 1024, onStopped: () => {} });
    try {
      let seen = 0;
      const bounded = await writeRounds(rounds, async () => {
        await until(() => checkpointer.checkpoints > seen, 1000);
        seen = checkpointer.checkpoints;
      });
      expect(checkpointer.checkpoints).toBeGreaterThan(0);
      expect(unbounded).toBeGreaterThan(4 * 1024 * 1024);
      expect(bounded).toBeLessThan(unbounded / 4);
    } finally {
      await checkpointer.stop();
    }
  });

  it('says so when its thread cannot work, so that the ledger checkpoints itself again', async () => {
    let reason: string | undefined;
    const checkpointer = new SqliteCheckpointer(path.join(dir, 'missing', 'ledger.sqlite'), { intervalMs: 20, onStopped: (why) => (reason = why) });
    expect(await until(() => reason !== undefined)).toBe(true);
    expect(reason).toMatch(/unable to open|directory does not exist|cannot open/i);
    expect(checkpointer.running).toBe(false);
    await checkpointer.stop();
  });

  it('runs beside a ledger that asks for it and stops with it, the ledger\'s data intact', async () => {
    const ledgerFile = path.join(dir, 'bff.sqlite');
    const ledger = new SqliteLedger(ledgerFile, { checkpointInThread: true });
    await ledger.addMember({ id: 'm_1', name: 'ada', tokenHash: 'h', tokenPrefix: 'p', budgets: {} });
    await ledger.close();
    const reopened = new SqliteLedger(ledgerFile);
    expect((await reopened.listMembers()).map((member) => member.name)).toEqual(['ada']);
    await reopened.close();
  });
});

/** Log in use, `reader` holding a snapshot from before its last write (so the log cannot be cut yet). */
async function logAfterSnapshotOf(reader: Database.Database): Promise<void> {
  await writeRounds(1, async () => {});
  reader.prepare('BEGIN').run();
  reader.prepare('SELECT count(*) FROM rows').get();
  db.prepare('INSERT INTO rows (body) VALUES (?)').run('after the snapshot');
}

describe('SqliteCheckpointer: truncating the log and following the file', () => {
  it('truncates the log on its thread when asked, waiting for a reader\'s old snapshot to end', async () => {
    const checkpointer = new SqliteCheckpointer(file, { intervalMs: 20, onStopped: () => {} });
    const reader = new Database(file);
    try {
      await logAfterSnapshotOf(reader);
      let done: boolean | undefined;
      const truncation = checkpointer.truncate().then((result) => (done = result));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(done).toBeUndefined(); // the reader still needs the log
      expect(size(`${file}-wal`)).toBeGreaterThan(0);
      reader.prepare('COMMIT').run();
      expect(await truncation).toBe(true);
      expect(size(`${file}-wal`)).toBe(0);
    } finally {
      reader.close();
      await checkpointer.stop();
    }
  });

  it('gives up waiting after its timeout, and answers false once stopped', async () => {
    const checkpointer = new SqliteCheckpointer(file, { intervalMs: 20, onStopped: () => {} });
    const reader = new Database(file);
    try {
      await logAfterSnapshotOf(reader);
      expect(await checkpointer.truncate(200)).toBe(false);
      reader.prepare('COMMIT').run();
    } finally {
      reader.close();
      await checkpointer.stop();
    }
    expect(await checkpointer.truncate()).toBe(false);
  });

  it('opens the file again when told: a file replaced under the same name is the one it then checkpoints', async () => {
    const checkpointer = new SqliteCheckpointer(file, { intervalMs: 20, onStopped: () => {} });
    try {
      await writeRounds(1, async () => {});
      expect(await until(() => checkpointer.checkpoints > 0)).toBe(true); // its thread has the old file open
      // Another file takes the name (a restore from a backup: the old file and its log and
      // index removed, the copy moved in), and a writer writes to it.
      const replacement = path.join(dir, 'replacement.sqlite');
      const other = new Database(replacement);
      other.pragma('journal_mode = WAL');
      other.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
      other.close();
      db.close();
      for (const name of [file, `${file}-wal`, `${file}-shm`]) rmSync(name, { force: true });
      renameSync(replacement, file);
      db = new Database(file);
      db.pragma('wal_autocheckpoint = 0');
      await writeRounds(1, async () => {});
      expect(size(`${file}-wal`)).toBeGreaterThan(100_000);
      // Still on the old file: its truncation leaves the new log as it is.
      expect(await checkpointer.truncate()).toBe(true);
      expect(size(`${file}-wal`)).toBeGreaterThan(100_000);
      checkpointer.reopen();
      expect(await checkpointer.truncate()).toBe(true);
      expect(size(`${file}-wal`)).toBe(0);
      expect(checkpointer.running).toBe(true);
    } finally {
      await checkpointer.stop();
    }
  });
});

describe('SqliteLedger with its checkpoints on a thread', () => {
  it('truncates the log through the thread in the retention purge, and says where checkpoints run', async () => {
    const ledgerFile = path.join(dir, 'bff.sqlite');
    const ledger = new SqliteLedger(ledgerFile, { checkpointInThread: true });
    try {
      expect(ledger.checkpointsRunIn).toBe('thread');
      for (let i = 0; i < 50; i++) await ledger.addMember({ id: `m_${i}`, name: `member ${i}`, tokenHash: `h${i}`, tokenPrefix: 'p', budgets: {} });
      expect(size(`${ledgerFile}-wal`)).toBeGreaterThan(0);
      await ledger.purgeSettled(new Date());
      expect(size(`${ledgerFile}-wal`)).toBe(0);
    } finally {
      await ledger.close();
    }
    expect(new SqliteLedger(path.join(dir, 'plain.sqlite')).checkpointsRunIn).toBe('commit');
  });
});
