import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import type { SourceDocument } from '@redline/shared/analysis';
import { HttpError, upstreamErrors } from '../errors.ts';
import type { Logger } from '../logging.ts';
import type { ForwardRequest, ForwardResult, Forwarder } from '../upstream/forwarder.ts';
import type { AnalysisResult, AnalysisTask, AnalysisWorkerData } from './analyse.ts';

/**
 * Loads plagiarism sources from a folder of .txt and .md files. A file whose first line is
 * an http(s) URL uses it as the source link; otherwise the link is the file's file:// URL.
 */
export function loadSourceFolder(folder: string): SourceDocument[] {
  const documents: SourceDocument[] = [];
  for (const name of readdirSync(folder).sort()) {
    if (!/\.(txt|md)$/i.test(name)) continue;
    const file = path.resolve(folder, name);
    const content = readFileSync(file, 'utf8');
    const [firstLine = '', ...rest] = content.split(/\r?\n/);
    const hasLink = /^https?:\/\/\S+$/.test(firstLine.trim());
    documents.push({
      link: hasLink ? firstLine.trim() : pathToFileURL(file).href,
      text: (hasLink ? rest.join('\n') : content).trim(),
    });
  }
  return documents;
}

/** Worker threads for offline analysis by default: the cores left beside the event loop, 1 to 4. */
export const defaultOfflineThreads = () => Math.max(1, Math.min(4, availableParallelism() - 1));

export interface OfflineForwarderOptions {
  logger: Logger;
  corpus?: readonly SourceDocument[] | undefined;
  threads?: number;
}

/**
 * Offline mode: the same API served by the built-in analyzers, so the text never leaves
 * this server. Answers have the upstream's shapes and its errors. The analyzers run in
 * worker threads, so a long text never blocks the event loop (health checks, other members).
 */
export class OfflineForwarder implements Forwarder {
  readonly source = 'offline' as const;
  readonly #pool: Piscina<AnalysisTask, AnalysisResult>;
  readonly #logger: Logger;

  constructor({ logger, corpus, threads = defaultOfflineThreads() }: OfflineForwarderOptions) {
    this.#logger = logger;
    this.#pool = new Piscina({
      filename: new URL('./analysis-worker.mjs', import.meta.url).href,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Number.POSITIVE_INFINITY,
      // Not the parent's loader flags: the worker entry registers tsx itself.
      execArgv: [],
      workerData: { corpus } satisfies AnalysisWorkerData,
    });
  }

  async forward({ product, body, signal }: ForwardRequest): Promise<ForwardResult> {
    let result: AnalysisResult;
    try {
      // A signal of its own per task: the shutdown signal is shared by every operation.
      result = await this.#pool.run({ product, body }, signal ? { signal: AbortSignal.any([signal]) } : {});
    } catch (error) {
      if (signal?.aborted) {
        // Stopping: the operation stays pending and resumes on the next start.
        return { ok: false, settled: false, error: HttpError.of(503, 'shutting_down', 'The BFF is restarting. Try again in a few seconds.', { retryAfterSeconds: 5 }) };
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
