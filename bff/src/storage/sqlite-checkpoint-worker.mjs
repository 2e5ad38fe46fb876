// The SQLite ledger's checkpoints, on a thread of their own (sqlite-checkpointer.ts starts it).
// Plain JavaScript, so that it runs as it is from the sources and from the bundle alike.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, intervalMs, restartAboveBytes } = workerData;
const db = new Database(file);
// A checkpoint reads the log's frames and writes them to the file: no page cache needed.
db.pragma('cache_size = 16');
// Never wait for a lock: a restarting checkpoint that waited (for a reader) would hold the
// writer meanwhile. One that cannot finish now gives up and is tried again at the next tick.
db.pragma('busy_timeout = 0');
const frameBytes = db.pragma('page_size', { simple: true }) + 24;
const passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
// Takes the writer's lock (or gives up at once) and makes the next writer start the log from its beginning.
const restart = db.prepare('PRAGMA wal_checkpoint(RESTART)');

let lastCheckpointed = 0;
const timer = setInterval(() => {
  try {
    const { log, checkpointed } = passive.get();
    // Under steady writing a passive checkpoint never catches up with the log, which then
    // only grows: past the bound (the frames in use, not the file, which never shrinks), the
    // rest (what came during the passive one) with the writer held.
    if (log * frameBytes > restartAboveBytes) restart.get();
    if (checkpointed > 0 && checkpointed !== lastCheckpointed) parentPort.postMessage({ checkpointed });
    lastCheckpointed = checkpointed;
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
