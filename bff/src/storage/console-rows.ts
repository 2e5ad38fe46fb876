import type { Product } from '@redline/shared';
import type { AuditEntry, SessionRecord, UpstreamKeyRecord, UpstreamQuota } from './console-store.ts';
import { UNSENT } from './ledger.ts';

/** Console rows as both SQL ledgers store them; PostgreSQL hands BIGINT back as a string. */

export interface SessionRow {
  id: string;
  secret_hash: string;
  member_id: string;
  created_at: number | string;
  expires_at: number | string;
  last_seen_at: number | string;
  revoked_at: number | string | null;
  address: string;
  user_agent: string;
}

/** Both dialects: a session a revocation at `now` ended (not already past its absolute expiry, and seen after `idleSince`). */
export const wasOpen = (session: Pick<SessionRow, 'expires_at' | 'last_seen_at'>, now: number, idleSince: number) =>
  Number(session.expires_at) > now && Number(session.last_seen_at) > idleSince;

export interface AuditRow {
  at: number | string;
  actor_id: string | null;
  actor_name: string | null;
  action: string;
  target: string | null;
  detail: string;
  address: string;
}

export const toSession = (row: SessionRow): SessionRecord => ({
  id: row.id,
  secretHash: row.secret_hash,
  memberId: row.member_id,
  createdAt: Number(row.created_at),
  expiresAt: Number(row.expires_at),
  lastSeenAt: Number(row.last_seen_at),
  revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  address: row.address,
  userAgent: row.user_agent,
});

export const toAudit = (row: AuditRow): AuditEntry => ({
  at: Number(row.at),
  actorId: row.actor_id,
  actorName: row.actor_name,
  action: row.action,
  target: row.target,
  detail: JSON.parse(row.detail) as Record<string, unknown>,
  address: row.address,
});

export interface UpstreamKeyRow {
  id: string;
  label: string;
  masked: string;
  ciphertext: string;
  state: UpstreamKeyRecord['state'];
  account: string;
  created_at: number | string;
  created_by: string;
  test: string | null;
  saved_at: number | string | null;
  activated_at: number | string | null;
}

const maybeNumber = (value: number | string | null) => (value === null ? null : Number(value));

export const toUpstreamKey = (row: UpstreamKeyRow): UpstreamKeyRecord => ({
  id: row.id,
  label: row.label,
  masked: row.masked,
  ciphertext: row.ciphertext,
  state: row.state,
  account: row.account,
  createdAt: Number(row.created_at),
  createdBy: row.created_by,
  test: row.test === null ? null : JSON.parse(row.test),
  savedAt: maybeNumber(row.saved_at),
  activatedAt: maybeNumber(row.activated_at),
});

/** The new key's values in the column order both stores insert them. */
export const upstreamKeyValues = (key: UpstreamKeyRecord) => [
  key.id,
  key.label,
  key.masked,
  key.ciphertext,
  key.state,
  key.account,
  key.createdAt,
  key.createdBy,
  key.test === null ? null : JSON.stringify(key.test),
  key.savedAt,
  key.activatedAt,
];

export interface QuotaRow {
  product: Product;
  remaining_words: number | string;
  seen_at: number | string;
  account: string;
}

export const toQuota = (row: QuotaRow): UpstreamQuota => ({ product: row.product, remainingWords: Number(row.remaining_words), seenAt: Number(row.seen_at), account: row.account });

/** The third console migration: a quota says which account's words it counts. */
export const QUOTA_ACCOUNT_COLUMN = "ALTER TABLE upstream_quotas ADD COLUMN account TEXT NOT NULL DEFAULT ''";

/**
 * The fifth console migration: the grant an extension link's redemption issued, set in the
 * statement that marks the link used, so that the link presented again revokes it.
 */
export const LINK_GRANT_COLUMN = 'ALTER TABLE console_links ADD COLUMN grant_id TEXT';

/**
 * Operations that still need the key they started with (both dialects, for `WHERE upstream_key_id
 * = … AND`): pending ones, except those none of whose attempts may have run (UNSENT), which go out
 * with the key in use (ledger.countAttempt), such as a part that never ran of a document settled
 * failed. Counting those, a key could never be removed, "still running", after such a document.
 */
export const NEEDS_ITS_KEY = `state = 'pending' AND NOT ${UNSENT}`;

/**
 * The fourth console migration: the account of each key removed from the console. An instance
 * that had not heard of the removal (a missed notice, up to its next re-read) can still start an
 * operation with the key; the account tells whether the active key may fetch its result.
 */
export const removedUpstreamKeysTable = (bigint: 'INTEGER' | 'BIGINT') =>
  `CREATE TABLE removed_upstream_keys (id TEXT PRIMARY KEY, account TEXT NOT NULL, removed_at ${bigint} NOT NULL)`;

/** The second console migration's tables (the same SQL on both databases). */
export const upstreamKeyTables = (bigint: 'INTEGER' | 'BIGINT') => `CREATE TABLE upstream_keys (
     id TEXT PRIMARY KEY,
     label TEXT NOT NULL,
     masked TEXT NOT NULL,
     ciphertext TEXT NOT NULL,
     state TEXT NOT NULL CHECK (state IN ('prepared', 'saved', 'active', 'previous')),
     account TEXT NOT NULL,
     created_at ${bigint} NOT NULL,
     created_by TEXT NOT NULL,
     test TEXT,
     saved_at ${bigint},
     activated_at ${bigint}
   );
   CREATE UNIQUE INDEX upstream_keys_one_active ON upstream_keys (state) WHERE state = 'active';
   CREATE TABLE upstream_quotas (
     product TEXT PRIMARY KEY,
     remaining_words ${bigint} NOT NULL,
     seen_at ${bigint} NOT NULL
   );`;

/**
 * Both dialects, each with the cutoff as its one parameter: console sessions and sign-in links
 * that ended before it. A used link is kept while the OAuth grant it opened is (oauth-rows.ts,
 * PURGE_ENDED_SIGN_INS_SQL): presented again, it revokes that grant, however long ago it was used.
 */
export const PURGE_ENDED_SESSIONS_SQL = (cutoff: string) => [
  `DELETE FROM console_sessions WHERE expires_at < ${cutoff} OR revoked_at < ${cutoff}`,
  `DELETE FROM console_links WHERE expires_at < ${cutoff} AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.id = console_links.grant_id)`,
];

/** Both dialects, with parameters code_hash, purpose: a used link's member and grant. */
export const USED_LINK_SQL = (p: [string, string]) => `SELECT member_id, grant_id FROM console_links WHERE code_hash = ${p[0]} AND purpose = ${p[1]} AND used_at IS NOT NULL`;

/** Both dialects, with parameters member_id, purpose, created_by, since: the maker's links for the member since then, and the oldest's time. */
export const LINKS_MADE_SINCE_SQL = (p: [string, string, string, string]) =>
  `SELECT count(*) AS n, min(created_at) AS oldest FROM console_links WHERE member_id = ${p[0]} AND purpose = ${p[1]} AND created_by = ${p[2]} AND created_at >= ${p[3]}`;
