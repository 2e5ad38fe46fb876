// The SQLite ledger's checkpoints, on a thread of their own (sqlite-checkpointer.ts starts it).
// Plain JavaScript, so that it runs as it is from the sources and from the bundle alike.
import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, intervalMs, restartAboveBytes } = workerData;
const db = new Database(file);
// A checkpoint reads the log's frames and writes them to the file: no page cache needed.
db.pragma('cache_size = 16');
db.pragma('busy_timeout = 1000');
const passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
// Waits for the writer and makes the next one start the log from its beginning.
const restart = db.prepare('PRAGMA wal_checkpoint(RESTART)');

function logBytes() {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
}

const timer = setInterval(() => {
  try {
    const { checkpointed } = passive.get();
    // Under steady writing a passive checkpoint never catches up with the log, which then
    // only grows: past the bound, the rest (what came during the passive one) with the writer held.
    if (logBytes() > restartAboveBytes) restart.get();
    if (checkpointed > 0) parentPort.postMessage({ checkpointed });
  } catch (error) {
    parentPort.postMessage({ failed: error instanceof Error ? error.message : String(error) });
  }
}, intervalMs);

parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
