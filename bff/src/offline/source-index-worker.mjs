// Builds (or reads) the offline source index in a thread of its own, so that a large folder
// never blocks the event loop at start. Registers tsx itself, as analysis-worker.mjs does.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { prepareSourceIndex } = await import('./source-folder.ts');
try {
  parentPort.postMessage({ ok: true, prepared: prepareSourceIndex(workerData) });
} catch (error) {
  parentPort.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) });
}
