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

  it('fails every write of a batch whose transaction ended, and commits none of them', async () => {
    const batch = new WriteBatch(() => db);
    const ends = () => {
      db.exec('ROLLBACK'); // as SQLite does itself after a full disk or an I/O error
      throw new Error('disk full');
    };
    const results = await Promise.allSettled([batch.run(insert('a', 1)), batch.run(ends), batch.run(insert('c', 1))]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(committed()).toEqual([]);
    // The next turn's writes go on as usual.
    await Promise.all([batch.run(insert('d', 1)), batch.run(insert('e', 1))]);
    expect(committed()).toEqual(['d', 'e']);
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
});
