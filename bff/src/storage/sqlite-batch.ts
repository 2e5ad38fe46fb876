import type Database from 'better-sqlite3';
import { inGroups, perTurn, type Settled } from './turn-batch.ts';

/** Writes per transaction at most: a bound on what one failure takes back and on one commit's size. */
const MAX_BATCH = 64;

/**
 * Errors after which SQLite may have rolled the transaction back itself, and asks for an
 * explicit ROLLBACK when it has not: the batch ends there.
 */
const ENDS_TRANSACTION = /^SQLITE_(FULL|IOERR|BUSY|NOMEM|CORRUPT|NOTADB|CANTOPEN|READONLY)/;

/**
 * Group commit for the SQLite ledger. Writes asked for in the same turn of the event loop (the
 * requests that arrived together) go into one transaction, and none of them resolves before it
 * is committed, so each is as durable when its caller goes on as a write of its own would be.
 * Under load a commit then carries several operations: each commit rewrites every page it
 * touched (table, indexes, usage) into the WAL, and pages shared by a batch are written once.
 * A write that fails on its own (a budget refusal ends only its statement) fails alone; when the
 * transaction itself fails (a full disk), nothing of it was committed and its writes are tried
 * again one by one, so one large write cannot fail the others. A lone write runs on its own,
 * as before, one turn later.
 */
export class WriteBatch {
  readonly #commitPerTurn = perTurn<Write, unknown>((writes) => inGroups(writes, () => '', MAX_BATCH, async (batch) => this.#commitBatch(batch)));

  /** `synchronous`: the connection's setting, which a batch of writes that need not wait for the disk lowers for its commit. */
  constructor(
    private readonly db: () => Database.Database,
    private readonly synchronous: 'FULL' | 'NORMAL' = 'FULL',
  ) {}

  /**
   * `waitForDisk: false` for a write whose loss in a power cut is repaired by doing it again
   * (an operation's insert or settlement: its repeat or resume goes upstream again under the same
   * derived key and gets the stored response, charged once). Its commit then skips the wait for
   * the disk, unless a write of the same batch needs it.
   */
  run<T>(write: () => T, { waitForDisk = true }: { waitForDisk?: boolean } = {}): Promise<T> {
    return this.#commitPerTurn({ write, waitForDisk }) as Promise<T>;
  }

  #commitBatch(batch: Write[]): Settled<unknown>[] {
    const db = this.db();
    // All transactions here are synchronous, so none can be open between turns; if one were,
    // these writes would only join it and resolve before anything was committed.
    if (db.inTransaction) throw new Error('A ledger transaction was left open; the batch was not written.');
    const writes = batch.map(({ write }) => write);
    if (this.synchronous === 'NORMAL' || batch.some(({ waitForDisk }) => waitForDisk)) return this.#commit(db, writes);
    // SQLite refuses to change this setting inside a transaction, so it is set around it. In WAL
    // mode a later FULL commit syncs the log with these frames in it, so they become durable then.
    db.exec('PRAGMA synchronous = NORMAL');
    try {
      return this.#commit(db, writes);
    } finally {
      db.exec('PRAGMA synchronous = FULL');
    }
  }

  #commit(db: Database.Database, batch: (() => unknown)[]): Settled<unknown>[] {
    if (batch.length === 1) return batch.map(settle);
    const outcomes: Settled<unknown>[] = [];
    try {
      db.transaction(() => {
        for (const write of batch) {
          try {
            outcomes.push({ ok: true, value: write() });
          } catch (error) {
            if (!db.inTransaction || ENDS_TRANSACTION.test((error as { code?: string })?.code ?? '')) throw error;
            outcomes.push({ ok: false, error });
          }
        }
      }).immediate();
    } catch {
      // Nothing of the batch was committed: each write goes again, on its own.
      return batch.map(settle);
    }
    return outcomes;
  }
}

interface Write {
  write: () => unknown;
  waitForDisk: boolean;
}

function settle(write: () => unknown): Settled<unknown> {
  try {
    return { ok: true, value: write() };
  } catch (error) {
    return { ok: false, error };
  }
}
