import { Worker } from 'node:worker_threads';

/**
 * Runs the SQLite ledger's WAL checkpoints on a thread of its own. SQLite checkpoints inside the
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
      void this.#worker.terminate();
      options.onStopped(reason);
    };
    this.#worker.on('message', (message: { checkpointed?: number; failed?: string }) => {
      if (message.failed !== undefined) stopped(`a checkpoint failed: ${message.failed}`);
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

  /** Lets the thread finish its checkpoint and close its connection (2 s at most). */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
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
