import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';

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

/** Creates the folder as 0700, or narrows an existing one to its owner. */
export function ensurePrivateDir(dir: string, log?: PermissionLog): void {
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  narrow(dir, 0o700, log);
}

/** Narrows an existing file to its owner (0600 at most); absent files are left absent. */
export function ensurePrivateFile(file: string, log?: PermissionLog): void {
  if (existsSync(file)) narrow(file, 0o600, log);
}

/** Creates an empty file as 0600 unless it exists, so that it is never open to others, even for a moment. */
export function createPrivateFile(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
}
