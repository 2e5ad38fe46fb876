import { chmodSync, existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createFirstMember } from './members.ts';
import type { Ledger } from './storage/ledger.ts';

export interface FirstRun {
  tokenFile: string;
  /** True for the one instance that created the owner (several may start at once on one database). */
  created: boolean;
}

/**
 * The BFF never runs open. On first run it creates one member, "owner", and hands its token
 * over in a file only this user can read, rather than in the log.
 */
export async function ensureFirstMember(ledger: Ledger, dataDir: string): Promise<FirstRun> {
  const tokenFile = path.resolve(dataDir, 'first-member-token.txt');
  // Written before the owner exists (a file of this process's own: instances may share the
  // folder), and named the token file only once the owner is there.
  const pending = `${tokenFile}.${process.pid}.new`;
  let created = false;
  try {
    created = await createFirstMember(ledger, 'owner', (token) => {
      writeFileSync(pending, `${token}\n`, { mode: 0o600 });
      chmodSync(pending, 0o600); // the mode above only applies when the file is new
    });
    if (created) renameSync(pending, tokenFile);
  } finally {
    if (!created) rmSync(pending, { force: true });
  }
  return { tokenFile, created };
}

export const tokenFileLeftBehind = (run: FirstRun) => !run.created && existsSync(run.tokenFile);
