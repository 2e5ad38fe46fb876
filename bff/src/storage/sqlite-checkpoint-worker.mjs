// The SQLite ledger's checkpoints, on a thread of their own (sqlite-checkpointer.ts starts it).
// Plain JavaScript, so that it runs as it is from the sources and from the bundle alike.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, intervalMs, restartAboveBytes } = workerData;

let db;
let frameBytes;
let passive;
let restart;
let truncate;
function open() {
  db = new Database(file);
  // A checkpoint reads the log's frames and writes them to the file: no page cache needed.
  db.pragma('cache_size = 16');
  // Never wait for a lock: a restarting checkpoint that waited (for a reader) would hold the
  // writer meanwhile. One that cannot finish now gives up and is tried again at the next tick.
  db.pragma('busy_timeout = 0');
  frameBytes = db.pragma('page_size', { simple: true }) + 24;
  passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  // Takes the writer's lock (or gives up at once) and makes the next writer start the log from its beginning.
  restart = db.prepare('PRAGMA wal_checkpoint(RESTART)');
  // As restart, and the log file cut to nothing: old page versions (deleted texts) leave the disk.
  truncate = db.prepare('PRAGMA wal_checkpoint(TRUNCATE)');
}
open();

/** Ids of the truncations asked for and not yet done; all are answered by the first that completes. */
let truncations = [];
let lastCheckpointed = 0;

function tick() {
  try {
    if (truncations.length > 0 && truncate.get().busy === 0) {
      for (const id of truncations) parentPort.postMessage({ truncated: id });
      truncations = [];
      lastCheckpointed = 0;
      return;
    }
    const { log, checkpointed } = passive.get();
    // Under steady writing a passive checkpoint never catches up with the log, which then
    // only grows: past the bound (the frames in use, not the file, which never shrinks), the
    // rest (what came during the passive one) with the writer held.
    if (log * frameBytes > restartAboveBytes) restart.get();
    if (checkpointed > 0 && checkpointed !== lastCheckpointed) parentPort.postMessage({ checkpointed });
    lastCheckpointed = checkpointed;
  } catch (error) {
    if (error?.code === 'SQLITE_BUSY') return; // another connection is checkpointing: next tick
    parentPort.postMessage({ failed: error instanceof Error ? error.message : String(error) });
  }
}

const timer = setInterval(tick, intervalMs);

parentPort.on('message', (message) => {
  if (message === 'stop') {
    clearInterval(timer);
    db.close();
    parentPort.close();
  } else if (message === 'reopen') {
    // The ledger opened its file again (it may be another file under the same name now).
    try {
      db.close();
      open();
    } catch (error) {
      parentPort.postMessage({ failed: error instanceof Error ? error.message : String(error) });
    }
  } else if (typeof message?.truncate === 'number') {
    truncations.push(message.truncate);
    tick();
  }
});
