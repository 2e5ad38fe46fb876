import type Database from 'better-sqlite3';

interface QueuedWrite {
  write(): unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Group commit for the SQLite ledger. Writes asked for in the same turn of the event loop (the
 * requests that arrived together) go into one transaction, and none of them resolves before it
 * is committed, so each is as durable when its caller goes on as a write of its own would be.
 * Under load a commit then carries several operations: each commit rewrites every page it
 * touched (table, indexes, usage) into the WAL, and pages shared by a batch are written once.
 * A lone write runs on its own, as before, one turn later.
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
    if (queue.length === 1) {
      const [only] = queue as [QueuedWrite];
      try {
        only.resolve(only.write());
      } catch (error) {
        only.reject(error);
      }
      return;
    }
    const outcomes: ({ value: unknown } | { error: unknown })[] = [];
    try {
      const db = this.db();
      db.transaction(() => {
        for (const item of queue) {
          try {
            outcomes.push({ value: item.write() });
          } catch (error) {
            // A failure that ended the transaction (a full disk, an I/O error) fails every write
            // in it; one that ended only its own statement (a budget refusal) fails only that write.
            if (!db.inTransaction) throw error;
            outcomes.push({ error });
          }
        }
      }).immediate();
    } catch (error) {
      for (const item of queue) item.reject(error);
      return;
    }
    queue.forEach((item, index) => {
      const outcome = outcomes[index]!;
      if ('error' in outcome) item.reject(outcome.error);
      else item.resolve(outcome.value);
    });
  }
}
