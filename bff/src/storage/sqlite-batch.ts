import type Database from 'better-sqlite3';

interface QueuedWrite {
  write(): unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

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
  #queue: QueuedWrite[] | undefined;

  constructor(private readonly db: () => Database.Database) {}

  run<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (!this.#queue) {
        this.#queue = [];
        setImmediate(() => this.#flush());
      }
      this.#queue.push({ write, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  #flush(): void {
    const queue = this.#queue!;
    this.#queue = undefined;
    for (let from = 0; from < queue.length; from += MAX_BATCH) this.#commit(queue.slice(from, from + MAX_BATCH));
  }

  #commit(batch: QueuedWrite[]): void {
    let db: Database.Database;
    try {
      db = this.db();
      // All transactions here are synchronous, so none can be open between turns; if one were,
      // these writes would only join it and resolve before anything was committed.
      if (db.inTransaction) throw new Error('A ledger transaction was left open; the batch was not written.');
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    if (batch.length === 1) return settle(batch[0]!);
    const outcomes: ({ value: unknown } | { error: unknown })[] = [];
    try {
      db.transaction(() => {
        for (const item of batch) {
          try {
            outcomes.push({ value: item.write() });
          } catch (error) {
            if (!db.inTransaction || ENDS_TRANSACTION.test((error as { code?: string })?.code ?? '')) throw error;
            outcomes.push({ error });
          }
        }
      }).immediate();
    } catch {
      // Nothing of the batch was committed: each write goes again, on its own.
      for (const item of batch) settle(item);
      return;
    }
    batch.forEach((item, index) => {
      const outcome = outcomes[index]!;
      if ('error' in outcome) item.reject(outcome.error);
      else item.resolve(outcome.value);
    });
  }
}

function settle(item: QueuedWrite): void {
  try {
    item.resolve(item.write());
  } catch (error) {
    item.reject(error);
  }
}
