import type { Product, ResultSource } from '@redline/shared';
import type { Logger } from '../logging.ts';

/**
 * What operators see of completed operations at the default `info` level: one line per
 * interval with the counts and words per product, instead of one line per operation (pino's
 * serialisation, redaction and write were ~5% of the BFF's CPU under load). Each operation is
 * still logged at `debug`, and counted in the metrics.
 */
export class OperationActivity {
  #completed = new Map<string, { operations: number; wordsCharged: number }>();
  #since = Date.now();
  readonly #timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly logger: Logger,
    intervalMs = 60_000,
  ) {
    this.#timer = setInterval(() => this.flush(), intervalMs);
    this.#timer.unref();
  }

  completed(product: Product, source: ResultSource, wordsCharged: number): void {
    const key = `${product}:${source}`;
    const entry = this.#completed.get(key);
    if (entry) {
      entry.operations++;
      entry.wordsCharged += wordsCharged;
    } else this.#completed.set(key, { operations: 1, wordsCharged });
  }

  /** Logs what completed since the last line, if anything did. */
  flush(): void {
    const now = Date.now();
    if (this.#completed.size > 0) {
      let operations = 0;
      let wordsCharged = 0;
      const byProduct: Record<string, { operations: number; wordsCharged: number }> = {};
      for (const [key, entry] of this.#completed) {
        byProduct[key] = entry;
        operations += entry.operations;
        wordsCharged += entry.wordsCharged;
      }
      this.logger.info({ seconds: Math.round((now - this.#since) / 1000), operations, wordsCharged, byProduct }, 'operations completed');
      this.#completed = new Map();
    }
    this.#since = now;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.flush();
  }
}
