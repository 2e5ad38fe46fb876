import type { Product } from '@redline/shared';
import type { BudgetChange, Budgets, MemberRecord, Role } from './ledger.ts';

/**
 * What the team console keeps beside the ledger: browser sessions, one-time sign-in links
 * and the audit log, plus the few member changes only the console makes (role, budgets,
 * token rotation) and the usage it reads. Session and link secrets are stored only as
 * SHA-256 hashes. Both ledgers implement it on their own connection (./console-sqlite.ts,
 * ./console-postgres.ts) with a schema version of its own (table console_schema), like the
 * OAuth store. Times are epoch milliseconds.
 */

export interface NewSession {
  id: string;
  /** sha256 of the cookie's secret. */
  secretHash: string;
  memberId: string;
  createdAt: number;
  /** The absolute expiry: the session ends then however active it is. */
  expiresAt: number;
  address: string;
  userAgent: string;
}

export interface SessionRecord extends NewSession {
  lastSeenAt: number;
  revokedAt: number | null;
}

/** What a sign-in link opens: a console session, or the browser extension's sign-in (an OAuth grant for /v1). */
export type LinkPurpose = 'console' | 'extension';

export interface NewSignInLink {
  /** sha256 of the link's code. */
  codeHash: string;
  memberId: string;
  purpose: LinkPurpose;
  createdBy: string;
  createdAt: number;
  expiresAt: number;
}

export interface AuditEntry {
  at: number;
  /** The member who acted (null before sign-in, e.g. a refused sign-in). */
  actorId: string | null;
  actorName: string | null;
  action: string;
  /** The member or session acted on. */
  target: string | null;
  /** Non-secret details (budgets, role); never a token, key or text. */
  detail: Record<string, unknown>;
  address: string;
}

export interface UsageRow {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  memberId: string;
  product: Product;
  words: number;
}

/**
 * An upstream API key managed in the console (upstream-api.md 2.7 and 3.1): pasted
 * (`prepared`), confirmed as kept elsewhere (`saved`), `active` (new operations use it), or
 * `previous` (a key that was active, listed until removed). The value is stored only as
 * AES-GCM ciphertext (upstream/secret-box.ts); `masked` shows its last characters.
 */
export type UpstreamKeyState = 'prepared' | 'saved' | 'active' | 'previous';

export interface KeyTest {
  at: number;
  ok: boolean;
  /** What the test found, in words for the page. */
  summary: string;
  /** Words the upstream charged for the test (to this key's account, and to the active key's when they differ). */
  wordsCharged: number;
}

export interface UpstreamKeyRecord {
  id: string;
  label: string;
  masked: string;
  ciphertext: string;
  state: UpstreamKeyState;
  /**
   * Keys with the same account share the upstream's idempotency records (upstream-api.md
   * 2.8), so an operation started with one may be retried with the other. A new key gets an
   * account of its own until a test shows it shares the active key's.
   */
  account: string;
  createdAt: number;
  createdBy: string;
  test: KeyTest | null;
  savedAt: number | null;
  activatedAt: number | null;
}

/** The last `remaining_words` the upstream reported for a product (in a quota refusal), and when. */
export interface UpstreamQuota {
  product: Product;
  remainingWords: number;
  seenAt: number;
  /** The upstream account whose words these are (a key's account); '' when recorded before accounts were. */
  account: string;
}

export interface ConsoleStore {
  /** Sets an active member's role; false when there is no such active member, or when it would leave the team without an active administrator. */
  setRole(memberId: string, role: Role): Promise<boolean>;
  /** Sets an active member's requests per rate window (null: the BFF's default). */
  setRateLimit(memberId: string, requests: number | null): Promise<boolean>;
  /**
   * Changes an active member's budgets in one statement: a product set to a number gets that
   * budget, one set to null loses its budget, one left out keeps its own. The budgets after the
   * change; undefined when there is no such active member.
   */
  changeBudgets(memberId: string, change: BudgetChange): Promise<Budgets | undefined>;
  /** Gives an active member a new token (its hash and prefix); the old one stops working. */
  rotateToken(memberId: string, tokenHash: string, tokenPrefix: string): Promise<boolean>;
  member(memberId: string): Promise<MemberRecord | undefined>;
  /** When each member last started an operation (ISO time). */
  lastUsed(): Promise<Map<string, string>>;
  /** Words charged by settled top-level operations started in [from, to), per UTC day, member and product. */
  usage(from: Date, to: Date): Promise<UsageRow[]>;

  createSession(session: NewSession): Promise<void>;
  /** The session with this secret, unless revoked; its member's state is the caller's to check. */
  sessionBySecret(secretHash: string): Promise<SessionRecord | undefined>;
  touchSession(id: string, now: number): Promise<void>;
  /** Sessions not revoked and not past their absolute expiry, newest first. */
  listSessions(now: number): Promise<SessionRecord[]>;
  /** Ends a session; true when it was still open (before its absolute expiry and seen after `idleSince`). */
  revokeSession(id: string, now: number, idleSince?: number): Promise<boolean>;
  /**
   * Ends a member's sessions but `keep`; returns how many of them were still open (before their
   * absolute expiry, and seen after `idleSince`): one already expired is revoked too, but
   * counting it would tell the administrator (and the audit log) it was ended by this.
   */
  revokeMemberSessions(memberId: string, now: number, keep?: string, idleSince?: number): Promise<number>;

  /**
   * Deletes console sessions and sign-in links that ended (expired, revoked) before `cutoff`,
   * but for used links whose OAuth grant is still kept (usedLink); returns the rows deleted.
   */
  purgeEnded(cutoff: number): Promise<number>;

  createLink(link: NewSignInLink): Promise<void>;
  /**
   * Stores the link unless its maker has made `limit` links of its purpose for its member since
   * `since` (the ledger counts, so every instance, and a restarted one, sees the same links);
   * otherwise stores nothing and says when the oldest of those was made.
   */
  createLimitedLink(link: NewSignInLink, limit: number, since: number): Promise<{ stored: true } | { stored: false; oldestAt: number }>;
  /** The member of an unused, unexpired link of this purpose, without using it up. */
  linkMember(codeHash: string, now: number, purpose: LinkPurpose): Promise<string | undefined>;
  /**
   * Marks an unused, unexpired link of this purpose (default: console) used and returns its
   * member; undefined when used, expired, unknown or meant for the other purpose. `audit` is
   * written in the same transaction, only when the link was used up here. A sign-in stores
   * what the link opens first and uses the link up last, so a failure in between leaves the
   * link working. `grantId`, the OAuth grant an extension link opened, is stored with the mark
   * (the same statement), for usedLink.
   */
  consumeLink(codeHash: string, now: number, purpose?: LinkPurpose, audit?: AuditEntry, grantId?: string): Promise<{ memberId: string; purpose: LinkPurpose } | undefined>;
  /** A used link of this purpose (expired or not): its member and the grant its use opened (null when none was stored with it). */
  usedLink(codeHash: string, purpose: LinkPurpose): Promise<{ memberId: string; grantId: string | null } | undefined>;

  upstreamKeys(): Promise<UpstreamKeyRecord[]>;
  addUpstreamKey(key: UpstreamKeyRecord): Promise<void>;
  /** Records a test and the account it found; false when there is no such key. */
  recordKeyTest(id: string, test: KeyTest, account: string): Promise<boolean>;
  /** prepared → saved; false unless the key is prepared. */
  markKeySaved(id: string, now: number): Promise<boolean>;
  /** Makes a saved or previous key active and the active one previous, in one transaction; false unless the key is saved or previous. */
  activateUpstreamKey(id: string, now: number): Promise<boolean>;
  /** Makes the active stored key previous, so the environment's key is used again; false when none was active. */
  useEnvironmentKey(): Promise<boolean>;
  /**
   * Deletes a key that is not active and that no pending operation started with, keeping its
   * account (removedKeyAccounts); false when it is active, unknown or still needed.
   */
  removeUpstreamKey(id: string, now: number): Promise<boolean>;
  /** The accounts of the keys removed from the console, by key id. */
  removedKeyAccounts(): Promise<Map<string, string>>;
  /** Operations that started with this key and still need it to finish (NEEDS_ITS_KEY). */
  pendingOperationsWithKey(id: string): Promise<number>;
  recordQuota(quota: UpstreamQuota): Promise<void>;
  quotas(): Promise<UpstreamQuota[]>;

  audit(entry: AuditEntry): Promise<void>;
  /** Newest first. */
  auditLog(limit: number): Promise<AuditEntry[]>;
}
