import { randomBytes } from 'node:crypto';
import type { ConsoleStore } from '../storage/console-store.ts';
import { hashSecret } from './sessions.ts';

/** A sign-in link works once, within this time. */
export const SIGN_IN_LINK_TTL_MS = 24 * 3600_000;

/**
 * A one-time console sign-in link for a member. The code travels in the URL's fragment, which
 * browsers never send to a server (so it is in no access log or Referer); the console page
 * posts it once. Only its hash is stored.
 */
export async function createSignInLink(store: ConsoleStore, memberId: string, createdBy: string, origin: string, now: number) {
  const code = randomBytes(32).toString('base64url');
  const expiresAt = now + SIGN_IN_LINK_TTL_MS;
  await store.createLink({ codeHash: hashSecret(code), memberId, purpose: 'console', createdBy, createdAt: now, expiresAt });
  return { url: `${origin}/console/#link=${code}`, expiresAt };
}
