import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { HttpError, shuttingDown, upstreamErrors } from '../errors.ts';
import type { Logger } from '../logging.ts';
import type { ForwardRequest, ForwardResult, Forwarder } from '../upstream/forwarder.ts';
import type { AnalysisResult, AnalysisTask } from './analyse.ts';
import type { PreparedSourceIndex } from './source-folder.ts';

/** Worker threads for offline analysis by default: the cores left beside the event loop, 1 to 4. */
export const defaultOfflineThreads = () => Math.max(1, Math.min(4, availableParallelism() - 1));

export interface OfflineForwarderOptions {
  logger: Logger;
  /** A folder of .txt/.md sources for the source check; without one, the built-in sample. */
  sourcesDir?: string | undefined;
  /** Where the folder's index is saved, so a restart reads it instead of indexing again. */
  sourceIndexFile?: string | undefined;
  threads?: number;
}

type SourceIndexReady = { ok: true; prepared: PreparedSourceIndex & { id: string } } | { ok: false; message: string };

/**
 * Offline mode: the same API served by the built-in analyzers, so the text never leaves
 * this server. Answers have the upstream's shapes and its errors. The analyzers run in
 * worker threads, so a long text never blocks the event loop (health checks, other members).
 */
export class OfflineForwarder implements Forwarder {
  readonly source = 'offline' as const;
  readonly #pool: Piscina<AnalysisTask, AnalysisResult>;
  readonly #logger: Logger;
  readonly #sourceIndex: Promise<SourceIndexReady> | undefined;

  constructor({ logger, sourcesDir, sourceIndexFile, threads = defaultOfflineThreads() }: OfflineForwarderOptions) {
    this.#logger = logger;
    this.#sourceIndex = sourcesDir ? this.#prepareSourceIndex(sourcesDir, sourceIndexFile) : undefined;
    this.#pool = new Piscina({
      filename: new URL('./analysis-worker.mjs', import.meta.url).href,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Number.POSITIVE_INFINITY,
      // Not the parent's loader flags: the worker entry registers tsx itself.
      execArgv: [],
    });
  }

  /** Indexes the sources folder (or reads its saved index) in a thread of its own, once, from start. */
  #prepareSourceIndex(folder: string, indexFile: string | undefined): Promise<SourceIndexReady> {
    const worker = new Worker(new URL('./source-index-worker.mjs', import.meta.url), { workerData: { folder, indexFile }, execArgv: [] });
    return new Promise<SourceIndexReady>((resolve) => {
      worker.once('message', (ready: SourceIndexReady) => resolve(ready.ok ? { ok: true, prepared: { ...ready.prepared, id: crypto.randomUUID() } } : ready));
      worker.once('error', (error) => resolve({ ok: false, message: error.message }));
      worker.once('exit', () => resolve({ ok: false, message: 'the indexing thread stopped' }));
    }).then((ready) => {
      void worker.terminate();
      if (!ready.ok) this.#logger.error({ folder, reason: ready.message }, 'offline sources could not be indexed; source checks will fail until the folder is fixed and the BFF restarted');
      else {
        const { data, fromFile, fileError, sentences, ms } = ready.prepared;
        this.#logger.info({ folder, documents: data.documents, sentences, ms, from: fromFile ? 'index file' : 'folder' }, 'offline sources indexed');
        if (fileError) this.#logger.warn({ reason: fileError }, 'the source index could not be saved; the next start indexes the folder again');
      }
      return ready;
    });
  }

  /** Resolves once the sources are indexed (at once without a folder); false when they could not be. */
  async sourcesReady(): Promise<boolean> {
    return (await this.#sourceIndex)?.ok ?? true;
  }

  async forward({ product, body, signal }: ForwardRequest): Promise<ForwardResult> {
    const task: AnalysisTask = { product, body };
    if (product === 'plagiarism' && this.#sourceIndex) {
      const ready = await this.#sourceIndex;
      if (!ready.ok) {
        // Not internal_error, which a repeat of the operation id is answered with for good: once the
        // folder is fixed and the BFF restarted, the writer's Retry (the same id) must run the check.
        return {
          ok: false,
          settled: true,
          error: HttpError.of(
            503,
            'sources_unavailable',
            "The offline source folder could not be indexed, so sources cannot be checked. Tell your administrator; the BFF's log says why. Once it is fixed and the BFF restarted, try again.",
          ),
        };
      }
      // Shared memory: the task carries the index to the thread without copying it.
      task.sources = { id: ready.prepared.id, data: ready.prepared.data };
    }
    let result: AnalysisResult;
    try {
      // A signal of its own per task: the shutdown signal is shared by every operation.
      result = await this.#pool.run(task, signal ? { signal: AbortSignal.any([signal]) } : {});
    } catch (error) {
      if (signal?.aborted) {
        // Stopping: the operation stays pending and resumes on the next start.
        return { ok: false, settled: false, error: shuttingDown() };
      }
      this.#logger.error({ product, err: { type: (error as Error)?.name, message: (error as Error)?.message } }, 'offline analyzer failed');
      return {
        ok: false,
        settled: true,
        error: HttpError.of(500, 'internal_error', 'The offline analyzer failed on this text. Tell your administrator; the log has the details.'),
      };
    }
    if (result.ok) return { ok: true, body: result.body };
    return { ok: false, settled: true, error: upstreamErrors.invalidRequest(result.detail, result.fields) };
  }

  async close(): Promise<void> {
    await this.#pool.destroy();
  }
}
