import { chmodSync, existsSync, writeFileSync } from 'node:fs';
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
  const owner = await createFirstMember(ledger, 'owner');
  if (!owner) return { tokenFile, created: false };
  writeFileSync(tokenFile, `${owner.token}\n`, { mode: 0o600 });
  chmodSync(tokenFile, 0o600); // the mode above only applies when the file is new
  return { tokenFile, created: true };
}

export const tokenFileLeftBehind = (run: FirstRun) => !run.created && existsSync(run.tokenFile);
