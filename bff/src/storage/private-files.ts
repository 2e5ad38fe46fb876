import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';

/**
 * The data folder holds submitted texts, token hashes and the first member's token: only the
 * BFF's own user may read it, whatever the umask of the shell that started it. Anything
 * found open to others is narrowed at start, with a log line saying what changed.
 */

export type PermissionLog = (fields: { path: string; was: string; now: string; error?: string }, message: string) => void;

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

function narrow(target: string, allowed: number, log: PermissionLog | undefined): void {
  const mode = statSync(target).mode & 0o777;
  if ((mode & ~allowed) === 0) return;
  try {
    chmodSync(target, mode & allowed);
  } catch (error) {
    // A read-only file system: say so, and let the ledger report what it can and cannot do.
    log?.({ path: target, was: octal(mode), now: octal(mode), error: (error as NodeJS.ErrnoException).code }, 'data is readable by other users and its permissions could not be narrowed');
    return;
  }
  log?.({ path: target, was: octal(mode), now: octal(mode & allowed) }, 'data was readable by other users; permissions narrowed');
}

/** What the BFF keeps in its data folder (a saved source index is written next to itself first). */
const OWN_FILE = /^(?:bff\.sqlite(?:-wal|-shm|-journal)?|first-member-token\.txt|source-index\.bin(?:\.\d+\.tmp)?)$/;

/**
 * Creates the folder as 0700, or narrows an existing one to its owner, but only a folder that
 * is the BFF's alone: a folder shared with other users (sticky, like /tmp) or holding files
 * that are not the BFF's (a home folder) is left as it is, with a log line saying so; the
 * BFF's own files in it are narrowed each. A path that is not a folder is refused, untouched.
 */
export function ensurePrivateDir(dir: string, log?: PermissionLog): void {
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = statSync(dir);
  if (!stat.isDirectory()) {
    throw Object.assign(new Error(`The data folder ${dir} is not a folder. Set BFF_DATA_DIR to a folder of the BFF's own (it is created when missing).`), { code: 'ENOTDIR' });
  }
  const shared = (stat.mode & 0o1000) !== 0 || readdirSync(dir).some((name) => !OWN_FILE.test(name));
  if (!shared) return narrow(dir, 0o700, log);
  if ((stat.mode & 0o077) !== 0) {
    log?.(
      { path: dir, was: octal(stat.mode), now: octal(stat.mode) },
      'the data folder is shared with other files or users, so its permissions were left as they are (the BFF narrows its own files in it); give BFF_DATA_DIR a folder of its own',
    );
  }
}

/** Narrows an existing file to its owner (0600 at most); absent files are left absent. */
export function ensurePrivateFile(file: string, log?: PermissionLog): void {
  if (existsSync(file)) narrow(file, 0o600, log);
}

/** Creates an empty file as 0600 unless it exists, so that it is never open to others, even for a moment. */
export function createPrivateFile(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
}
