import { Worker } from 'node:worker_threads';

/**
 * Runs the SQLite ledger's WAL checkpoints on a thread of their own. SQLite checkpoints inside the
 * commit that crosses `wal_autocheckpoint` (1,000 pages): it copies the log into the database
 * file and waits for the disk twice, 7–10 ms on the event loop's thread every ~90 operations
 * (measured: the ledger's p99 when timed alone). The ledger's connection turns that off while this runs;
 * a passive checkpoint every `intervalMs` copies the log without holding the writer, and past
 * `restartAboveBytes` of log a restarting one bounds it. The thread is small (its heap capped).
 */
export class SqliteCheckpointer {
  readonly #worker: Worker;
  #stopped = false;
  #checkpoints = 0;
  #nextTruncation = 0;
  readonly #truncations = new Map<number, (done: boolean) => void>();

  /** `onStopped`: the thread failed or ended on its own; the ledger checkpoints itself again. */
  constructor(file: string, options: { intervalMs?: number; restartAboveBytes?: number; onStopped: (reason: string) => void }) {
    this.#worker = new Worker(new URL('./sqlite-checkpoint-worker.mjs', import.meta.url), {
      workerData: { file, intervalMs: options.intervalMs ?? 200, restartAboveBytes: options.restartAboveBytes ?? 16 * 1024 * 1024 },
      resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 8 },
      execArgv: [],
    });
    this.#worker.unref();
    const stopped = (reason: string) => {
      if (this.#stopped) return;
      this.#stopped = true;
      this.#settleTruncations(false);
      void this.#worker.terminate();
      options.onStopped(reason);
    };
    this.#worker.on('message', (message: { checkpointed?: number; truncated?: number; failed?: string }) => {
      if (message.failed !== undefined) stopped(`a checkpoint failed: ${message.failed}`);
      else if (message.truncated !== undefined) this.#settleTruncation(message.truncated, true);
      else this.#checkpoints++;
    });
    // An error thrown by SQLite in the thread arrives as a plain object with its code.
    this.#worker.on('error', (error: Partial<Error> & { code?: string }) => stopped(error.message ?? error.code ?? String(error)));
    this.#worker.on('exit', (code) => stopped(`the checkpoint thread exited (${code})`));
  }

  /** Ticks whose checkpoint had copied more of the log than the one before (for tests). */
  get checkpoints(): number {
    return this.#checkpoints;
  }

  get running(): boolean {
    return !this.#stopped;
  }

  /** The ledger opened its file again: the thread opens it again too (the name may now be another file). */
  reopen(): void {
    if (!this.#stopped) this.#worker.postMessage('reopen');
  }

  /**
   * Copies the whole log into the database file and cuts the log to nothing, on the thread,
   * retried at each tick while readers hold old snapshots. True once that is done; false if
   * the thread stopped first or `timeoutMs` passed (it is still done at a later tick then).
   */
  truncate(timeoutMs = 10_000): Promise<boolean> {
    if (this.#stopped) return Promise.resolve(false);
    const id = this.#nextTruncation++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.#settleTruncation(id, false), timeoutMs).unref();
      this.#truncations.set(id, (done) => {
        clearTimeout(timer);
        resolve(done);
      });
      this.#worker.postMessage({ truncate: id });
    });
  }

  #settleTruncation(id: number, done: boolean): void {
    const settle = this.#truncations.get(id);
    this.#truncations.delete(id);
    settle?.(done);
  }

  #settleTruncations(done: boolean): void {
    for (const id of [...this.#truncations.keys()]) this.#settleTruncation(id, done);
  }

  /** Lets the thread finish its checkpoint and close its connection (2 s at most). */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#settleTruncations(false);
    // Referenced while stopping: a process that is shutting down must not end before it has.
    this.#worker.ref();
    const exited = new Promise((resolve) => this.#worker.once('exit', resolve));
    this.#worker.postMessage('stop');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 2000)))]);
    clearTimeout(timer);
    await this.#worker.terminate();
  }
}
