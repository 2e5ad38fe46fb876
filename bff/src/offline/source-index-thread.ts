import { parentPort, workerData } from 'node:worker_threads';
import { prepareSourceIndex } from './source-folder.ts';

/** The body of the source-indexing thread (offline-forwarder.ts starts it). */
try {
  parentPort!.postMessage({ ok: true, prepared: prepareSourceIndex(workerData) });
} catch (error) {
  parentPort!.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) });
}
