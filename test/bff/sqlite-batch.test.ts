import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WriteBatch } from '../../bff/src/storage/sqlite-batch.ts';

let dir: string;
let db: Database.Database;
let other: Database.Database;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'redline-batch-'));
  const file = path.join(dir, 'ledger.sqlite');
  db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE rows (id TEXT PRIMARY KEY, n INTEGER NOT NULL CHECK (n >= 0))');
  // A second connection, as another process would read the file.
  other = new Database(file, { readonly: true });
});
afterEach(() => {
  other.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const insert = (id: string, n: number) => () => db.prepare('INSERT INTO rows (id, n) VALUES (?, ?)').run(id, n).changes;
const committed = () => (other.prepare('SELECT id FROM rows ORDER BY id').all() as { id: string }[]).map((row) => row.id);

describe('WriteBatch (group commit for the SQLite ledger)', () => {
  it('commits the writes of one turn in one transaction, each committed before it resolves', async () => {
    const batch = new WriteBatch(() => db);
    const seenInTransaction: boolean[] = [];
    const writes = ['a', 'b', 'c'].map((id) =>
      batch.run(() => {
        seenInTransaction.push(db.inTransaction);
        return insert(id, 1)();
      }),
    );
    expect(committed()).toEqual([]); // nothing runs before the turn ends
    const first = await writes[0];
    expect(first).toBe(1);
    expect(committed()).toEqual(['a', 'b', 'c']); // visible to another connection when the first resolves
    expect(await Promise.all(writes)).toEqual([1, 1, 1]);
    expect(seenInTransaction).toEqual([true, true, true]);
  });

  it('runs a lone write on its own, outside any transaction', async () => {
    const batch = new WriteBatch(() => db);
    let inTransaction: boolean | undefined;
    await batch.run(() => {
      inTransaction = db.inTransaction;
      return insert('solo', 1)();
    });
    expect(inTransaction).toBe(false);
    expect(committed()).toEqual(['solo']);
  });

  it('fails only the write whose statement failed; the others of the batch are committed', async () => {
    const batch = new WriteBatch(() => db);
    const results = await Promise.allSettled([batch.run(insert('a', 1)), batch.run(insert('bad', -1)), batch.run(insert('a', 2)), batch.run(insert('c', 1))]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/CHECK constraint/);
    expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/UNIQUE constraint/);
    expect(committed()).toEqual(['a', 'c']);
  });

  it('when the transaction fails (a full disk), commits nothing of it and writes each again on its own: only the write that does not fit fails', async () => {
    const batch = new WriteBatch(() => db);
    db.pragma(`max_page_count = ${(db.pragma('page_count', { simple: true }) as number) + 20}`);
    db.exec('CREATE TABLE texts (id TEXT PRIMARY KEY, body TEXT NOT NULL)');
    const big = () => db.prepare('INSERT INTO texts (id, body) VALUES (?, ?)').run('big', 'x'.repeat(400_000)).changes;
    let tries = 0;
    const counted = (id: string) => () => (tries++, insert(id, 1)());
    const results = await Promise.allSettled([batch.run(counted('a')), batch.run(big), batch.run(counted('c'))]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.code).toBe('SQLITE_FULL');
    expect(tries).toBe(3); // a in the batch (which ended at big), then a and c on their own
    expect(committed()).toEqual(['a', 'c']);
    expect(db.inTransaction).toBe(false);
  });

  it('writes at most 64 in one transaction', async () => {
    const batch = new WriteBatch(() => db);
    const inTransactionWith: number[] = [];
    const writes = Array.from({ length: 130 }, (_, i) =>
      batch.run(() => {
        inTransactionWith.push((db.prepare('SELECT count(*) AS n FROM rows').get() as { n: number }).n);
        return insert(`r${String(i).padStart(3, '0')}`, 1)();
      }),
    );
    await Promise.all(writes);
    // Each transaction sees the rows committed before it and its own so far: 0..63, 64..127, then 128, 129.
    expect(inTransactionWith.slice(60, 68)).toEqual([60, 61, 62, 63, 64, 65, 66, 67]);
    expect(committed()).toHaveLength(130);
    expect(db.inTransaction).toBe(false);
  });

  it('starts a new batch for writes asked for after a batch was sent', async () => {
    const batch = new WriteBatch(() => db);
    const sizes: number[] = [];
    const write = (id: string) => () => {
      sizes.push(db.inTransaction ? 2 : 1);
      return insert(id, 1)();
    };
    await Promise.all([batch.run(write('a')), batch.run(write('b'))]);
    await batch.run(write('c'));
    expect(sizes).toEqual([2, 2, 1]);
    expect(committed()).toEqual(['a', 'b', 'c']);
  });

  describe('waiting for the disk', () => {
    // 2 = FULL (the commit waits for the disk), 1 = NORMAL; read inside each write, so the
    // setting its commit ran with.
    const synchronousIn = (id: string) => () => {
      insert(id, 1)();
      return db.pragma('synchronous', { simple: true });
    };
    beforeEach(() => db.pragma('synchronous = FULL'));

    it('commits a batch of writes that need not wait without waiting, then waits again', async () => {
      const batch = new WriteBatch(() => db, 'FULL');
      expect(await Promise.all([batch.run(synchronousIn('a'), { waitForDisk: false }), batch.run(synchronousIn('b'), { waitForDisk: false })])).toEqual([1, 1]);
      expect(await batch.run(synchronousIn('solo'), { waitForDisk: false })).toBe(1);
      expect(db.pragma('synchronous', { simple: true })).toBe(2);
      expect(committed()).toEqual(['a', 'b', 'solo']);
    });

    it('waits for the whole batch when one of its writes needs it, and by default', async () => {
      const batch = new WriteBatch(() => db, 'FULL');
      expect(await Promise.all([batch.run(synchronousIn('a'), { waitForDisk: false }), batch.run(synchronousIn('b'))])).toEqual([2, 2]);
      expect(await batch.run(synchronousIn('c'))).toBe(2);
    });

    it('restores the setting after a batch in which a write failed', async () => {
      const batch = new WriteBatch(() => db, 'FULL');
      const results = await Promise.allSettled([batch.run(synchronousIn('a'), { waitForDisk: false }), batch.run(insert('bad', -1), { waitForDisk: false })]);
      expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected']);
      expect(db.pragma('synchronous', { simple: true })).toBe(2);
    });

    it('leaves a connection set to NORMAL as it is', async () => {
      db.pragma('synchronous = NORMAL');
      const batch = new WriteBatch(() => db, 'NORMAL');
      expect(await Promise.all([batch.run(synchronousIn('a')), batch.run(synchronousIn('b'), { waitForDisk: false })])).toEqual([1, 1]);
      expect(db.pragma('synchronous', { simple: true })).toBe(1);
    });
  });
});
