import { accessSync, constants, rmSync, statSync, statfsSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Which database errors mean "the ledger cannot be used right now" (as opposed to a bug or a
 * constraint doing its job), and what to tell the operator about each. Both drivers' errors
 * are recognised by their codes: SQLite's extended result codes (better-sqlite3 `code`),
 * PostgreSQL's SQLSTATE, and Node's socket errors under pg.
 */

export type LedgerFaultReason = 'unreachable' | 'disk_full' | 'read_only' | 'busy' | 'io_error' | 'corrupt' | 'unavailable';

export interface LedgerFault {
  reason: LedgerFaultReason;
  /** For the operator's log: what is wrong and what to look at. Never user data. */
  explanation: string;
}

/** A ledger call failed because the database is unavailable; answered as 503 ledger_unavailable. */
export class LedgerUnavailableError extends Error {
  constructor(
    readonly fault: LedgerFault,
    options?: { cause?: unknown },
  ) {
    super(`ledger unavailable (${fault.reason}): ${fault.explanation}`, options);
    this.name = 'LedgerUnavailableError';
  }
}

const fault = (reason: LedgerFaultReason, explanation: string): LedgerFault => ({ reason, explanation });

/**
 * SQLite's I/O and open errors do not say why; the folder and the file do. A file system the
 * kernel remounted read-only after disk errors (errors=remount-ro) fails writes on files already
 * open as SQLITE_IOERR_WRITE, not SQLITE_READONLY; a full disk can fail a WAL write the same way;
 * a file that belongs to another user (a backup restored by root) cannot be opened at all.
 * Called only on those errors.
 */
function diagnoseSqliteFile(file: string): LedgerFault | undefined {
  const folder = path.dirname(file);
  // A write, not access(2): ext4's emergency read-only state is not a read-only mount to access(2).
  const probe = path.join(folder, '.redline-write-probe');
  try {
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EROFS') {
      return fault('read_only', `the SQLite ledger (BFF_DATA_DIR ${folder}) is on a file system mounted read-only, perhaps by the kernel after disk errors (see dmesg); repair the disk and mount it writable. If it turned read-only while the BFF ran, operations settled in the half minute before may be missing from usage after the repair (their commits did not wait for the disk): compare with the upstream's dashboard`);
    }
    if (code === 'EACCES') return fault('read_only', `the BFF user cannot write to BFF_DATA_DIR (${folder}); make it writable by the BFF user`);
    return undefined;
  }
  for (const name of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      accessSync(name, constants.R_OK | constants.W_OK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EACCES') continue;
      const { uid, mode } = statSync(name);
      return fault('read_only', `the BFF user (uid ${process.getuid?.()}) cannot read and write ${name}: it belongs to uid ${uid} with mode ${(mode & 0o777).toString(8)}; give it to the BFF user (chown), as after a restore made by another user`);
    }
  }
  try {
    if (statfsSync(folder).bavail === 0) return fault('disk_full', `the disk holding the SQLite ledger is full; free space in BFF_DATA_DIR (${folder})`);
  } catch {
    // not known
  }
  return undefined;
}

function sqliteFault(code: string, file: string | undefined): LedgerFault | undefined {
  if (file && /^SQLITE_(IOERR|CANTOPEN)/.test(code)) {
    const diagnosed = diagnoseSqliteFile(file);
    if (diagnosed) return diagnosed;
  }
  if (code === 'SQLITE_FULL') return fault('disk_full', 'the disk holding the SQLite ledger is full; free space in BFF_DATA_DIR');
  if (code.startsWith('SQLITE_READONLY')) return fault('read_only', 'the SQLite ledger file or its folder is read-only; make BFF_DATA_DIR writable by the BFF user');
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return fault('busy', 'another process holds the SQLite ledger lock for too long; several BFF processes need BFF_DATABASE_URL (PostgreSQL), not one SQLite file');
  }
  if (code.startsWith('SQLITE_CANTOPEN')) {
    return fault('io_error', 'the SQLite ledger file cannot be opened (SQLITE_CANTOPEN): BFF_DATA_DIR must exist and be writable by the BFF user, not on a read-only mount');
  }
  if (code.startsWith('SQLITE_IOERR')) return fault('io_error', `the SQLite ledger file cannot be read or written (${code}); check the disk under BFF_DATA_DIR`);
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') return fault('corrupt', 'the SQLite ledger file is damaged; restore it from a backup');
  return undefined;
}

const NODE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

// Messages pg uses for a lost or unobtainable connection (it gives these errors no code).
const PG_CONNECTION_MESSAGES = [
  'Connection terminated',
  'connection timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

function postgresFault(code: string | undefined, message: string): LedgerFault | undefined {
  if (code && NODE_SOCKET_CODES.has(code)) return fault('unreachable', `PostgreSQL cannot be reached (${code}); check that it runs and BFF_DATABASE_URL`);
  if (code === '53100') return fault('disk_full', 'the PostgreSQL server is out of disk space');
  if (code === '25006') return fault('read_only', 'PostgreSQL accepts no writes (a read-only replica or default_transaction_read_only)');
  if (code && /^(08|57P|53|58)/.test(code)) return fault('unavailable', `PostgreSQL refused or lost the connection (SQLSTATE ${code}): restarting, shutting down or out of resources`);
  if (PG_CONNECTION_MESSAGES.some((known) => message.includes(known))) return fault('unreachable', 'the connection to PostgreSQL was lost or could not be opened');
  return undefined;
}

/**
 * The fault an error means, or undefined when it is not about the database's availability.
 * `sqliteFile`, the SQLite ledger's file, lets an I/O or open error be told apart (read-only, full, not the BFF user's).
 */
export function classifyLedgerError(error: unknown, sqliteFile?: string): LedgerFault | undefined {
  if (error instanceof LedgerUnavailableError) return error.fault;
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('SQLITE_')) return sqliteFault(code, sqliteFile);
  // Node gives a connection refused on every address as an AggregateError carrying the code.
  return postgresFault(typeof code === 'string' ? code : undefined, error.message);
}
