import type { Logger } from './logging.ts';
import { MEMBERS_CHANNEL, listenChannel } from './storage/pg-channel.ts';
import { authenticate, hashToken, looksLikeToken } from './members.ts';
import type { Ledger, MemberRecord } from './storage/ledger.ts';

export interface MemberAuthenticator {
  /** The active member holding this token, if any. */
  authenticate(token: string): Promise<MemberRecord | undefined>;
  close(): Promise<void>;
}

export interface MemberCacheOptions {
  ledger: Ledger;
  /** The PostgreSQL ledger's URL: its LISTEN/NOTIFY channel carries revocations to every instance. */
  databaseUrl?: string;
  ttlMs?: number;
  maxEntries?: number;
  logger: Logger;
}

/**
 * Member authentication. With a PostgreSQL ledger, members found are kept for a short while
 * (keyed by token hash) so a request does not cost a database round trip for them; every
 * instance LISTENs on `redline_members` and forgets them all when a revocation is announced
 * there, so a revoked token stops working on every instance at once. While that listening
 * connection is down, nothing is cached: each request asks the ledger. With SQLite (one
 * instance, a local lookup of a few microseconds) nothing is cached at all.
 */
export function createMemberAuthenticator({ ledger, databaseUrl, ttlMs = 30_000, maxEntries = 10_000, logger }: MemberCacheOptions): MemberAuthenticator {
  const lookUp = (token: string) => authenticate(ledger, token);
  if (!databaseUrl) return { authenticate: lookUp, close: async () => {} };

  const cache = new Map<string, { member: MemberRecord; expiresAt: number }>();
  /** Bumped on every announcement and reconnect: a lookup started before it must not be cached. */
  let generation = 0;
  let listening = false;

  const forgetAll = () => {
    generation++;
    cache.clear();
  };
  // A connection lost, or silent past its heartbeat (pg-channel.ts): nothing is cached until it listens again.
  const listener = listenChannel(
    databaseUrl,
    MEMBERS_CHANNEL,
    {
      onListening: () => {
        forgetAll(); // anything announced while not listening
        listening = true;
      },
      onNotification: forgetAll,
      onLost: () => {
        listening = false;
        forgetAll();
      },
    },
    logger,
    'member cache: lost the revocation channel; authenticating every request from the ledger until it is back',
  );

  return {
    async authenticate(token) {
      if (!looksLikeToken(token)) return undefined;
      const tokenHash = hashToken(token);
      if (listening) {
        const hit = cache.get(tokenHash);
        if (hit && hit.expiresAt > performance.now()) return hit.member;
        if (hit) cache.delete(tokenHash);
      }
      const started = generation;
      const member = await ledger.memberByTokenHash(tokenHash);
      if (member && listening && generation === started) {
        if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
        cache.set(tokenHash, { member, expiresAt: performance.now() + ttlMs });
      }
      return member;
    },
    async close() {
      listening = false;
      await listener.close();
    },
  };
}
