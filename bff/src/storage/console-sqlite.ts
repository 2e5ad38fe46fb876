import type Database from 'better-sqlite3';
import type { Product } from '@redline/shared';
import { LINK_GRANT_COLUMN, LINKS_MADE_SINCE_SQL, PURGE_ENDED_SESSIONS_SQL, USED_LINK_SQL, NEEDS_ITS_KEY, QUOTA_ACCOUNT_COLUMN, removedUpstreamKeysTable, toAudit, toQuota, toSession, toUpstreamKey, upstreamKeyTables, upstreamKeyValues, wasOpen, type AuditRow, type QuotaRow, type SessionRow, type UpstreamKeyRow } from './console-rows.ts';
import type { AuditEntry, ConsoleStore, KeyTest, LinkPurpose, NewSession, NewSignInLink, SessionRecord, UpstreamKeyRecord, UpstreamQuota, UsageRow } from './console-store.ts';
import type { BudgetChange, Budgets, MemberRecord, Role } from './ledger.ts';
import { SQLITE_ANOTHER_ADMIN } from './last-admin.ts';
import { CHARGED_WORDS_COUNTED, toMember, type MemberRow } from './rows.ts';

/** The console's tables, versioned on their own (table console_schema), in the ledger's file. */
const CONSOLE_MIGRATIONS = [
  `CREATE TABLE console_sessions (
     id TEXT PRIMARY KEY,
     secret_hash TEXT NOT NULL UNIQUE,
     member_id TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL,
     last_seen_at INTEGER NOT NULL,
     revoked_at INTEGER,
     address TEXT NOT NULL,
     user_agent TEXT NOT NULL
   );
   CREATE INDEX console_sessions_member ON console_sessions (member_id);
   CREATE TABLE console_links (
     code_hash TEXT PRIMARY KEY,
     member_id TEXT NOT NULL,
     purpose TEXT NOT NULL,
     created_by TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL,
     used_at INTEGER
   );
   CREATE TABLE console_audit (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     at INTEGER NOT NULL,
     actor_id TEXT,
     actor_name TEXT,
     action TEXT NOT NULL,
     target TEXT,
     detail TEXT NOT NULL,
     address TEXT NOT NULL
   );`,
  upstreamKeyTables('INTEGER'),
  QUOTA_ACCOUNT_COLUMN,
  removedUpstreamKeysTable('INTEGER'),
  LINK_GRANT_COLUMN,
];

export class SqliteConsoleStore implements ConsoleStore {
  /** `connection` is asked on every call: the ledger reopens its connection after a disk fault. */
  constructor(private readonly connection: () => Database.Database) {
    const db = connection();
    db.exec('CREATE TABLE IF NOT EXISTS console_schema (version INTEGER NOT NULL)');
    db.transaction(() => {
      const row = db.prepare('SELECT version FROM console_schema').get() as { version: number } | undefined;
      if (!row) db.prepare('INSERT INTO console_schema (version) VALUES (0)').run();
      for (let version = row?.version ?? 0; version < CONSOLE_MIGRATIONS.length; version++) {
        db.exec(CONSOLE_MIGRATIONS[version]!);
        db.prepare('UPDATE console_schema SET version = ?').run(version + 1);
      }
    }).immediate();
  }

  private get db(): Database.Database {
    return this.connection();
  }

  async setRole(memberId: string, role: Role): Promise<boolean> {
    return (
      this.db
        .prepare(
          `UPDATE members SET role = @role WHERE id = @memberId AND revoked_at IS NULL
             AND (@role = 'admin' OR role <> 'admin' OR ${SQLITE_ANOTHER_ADMIN})`,
        )
        .run({ role, memberId }).changes > 0
    );
  }

  async setRateLimit(memberId: string, requests: number | null): Promise<boolean> {
    return this.db.prepare('UPDATE members SET rate_limit = ? WHERE id = ? AND revoked_at IS NULL').run(requests, memberId).changes > 0;
  }

  async changeBudgets(memberId: string, change: BudgetChange): Promise<Budgets | undefined> {
    // json_patch is a JSON merge patch (RFC 7396): a null removes the key.
    const row = this.db.prepare('UPDATE members SET budgets = json_patch(budgets, ?) WHERE id = ? AND revoked_at IS NULL RETURNING budgets').get(JSON.stringify(change), memberId) as
      | { budgets: string }
      | undefined;
    return row && (JSON.parse(row.budgets) as Budgets);
  }

  async rotateToken(memberId: string, tokenHash: string, tokenPrefix: string): Promise<boolean> {
    return this.db.prepare('UPDATE members SET token_hash = ?, token_prefix = ? WHERE id = ? AND revoked_at IS NULL').run(tokenHash, tokenPrefix, memberId).changes > 0;
  }

  async member(memberId: string): Promise<MemberRecord | undefined> {
    const row = this.db.prepare('SELECT * FROM members WHERE id = ?').get(memberId) as MemberRow | undefined;
    return row && toMember(row);
  }

  async lastUsed(): Promise<Map<string, string>> {
    const rows = this.db.prepare('SELECT member_id, max(created_at) AS at FROM operations WHERE parent_operation_id IS NULL GROUP BY member_id').all() as {
      member_id: string;
      at: string;
    }[];
    return new Map(rows.map((row) => [row.member_id, row.at]));
  }

  async usage(from: Date, to: Date): Promise<UsageRow[]> {
    const rows = this.db
      .prepare(
        `SELECT substr(created_at, 1, 10) AS day, member_id, product, sum(words_charged) AS words FROM operations
         WHERE ${CHARGED_WORDS_COUNTED} AND created_at >= ? AND created_at < ?
         GROUP BY day, member_id, product ORDER BY day, member_id, product`,
      )
      .all(from.toISOString(), to.toISOString()) as { day: string; member_id: string; product: Product; words: number }[];
    return rows.map((row) => ({ day: row.day, memberId: row.member_id, product: row.product, words: row.words }));
  }

  async createSession(session: NewSession): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO console_sessions (id, secret_hash, member_id, created_at, expires_at, last_seen_at, address, user_agent)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(session.id, session.secretHash, session.memberId, session.createdAt, session.expiresAt, session.createdAt, session.address, session.userAgent);
  }

  async sessionBySecret(secretHash: string): Promise<SessionRecord | undefined> {
    const row = this.db.prepare('SELECT * FROM console_sessions WHERE secret_hash = ? AND revoked_at IS NULL').get(secretHash) as SessionRow | undefined;
    return row && toSession(row);
  }

  async touchSession(id: string, now: number): Promise<void> {
    this.db.prepare('UPDATE console_sessions SET last_seen_at = ? WHERE id = ?').run(now, id);
  }

  async listSessions(now: number): Promise<SessionRecord[]> {
    const rows = this.db.prepare('SELECT * FROM console_sessions WHERE revoked_at IS NULL AND expires_at > ? ORDER BY created_at DESC').all(now) as SessionRow[];
    return rows.map(toSession);
  }

  async revokeSession(id: string, now: number, idleSince = -Infinity): Promise<boolean> {
    const ended = this.db.prepare('UPDATE console_sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING expires_at, last_seen_at').get(now, id) as
      | { expires_at: number; last_seen_at: number }
      | undefined;
    return ended !== undefined && wasOpen(ended, now, idleSince);
  }

  async revokeMemberSessions(memberId: string, now: number, keep = '', idleSince = -Infinity): Promise<number> {
    const ended = this.db
      .prepare('UPDATE console_sessions SET revoked_at = ? WHERE member_id = ? AND revoked_at IS NULL AND id <> ? RETURNING expires_at, last_seen_at')
      .all(now, memberId, keep) as { expires_at: number; last_seen_at: number }[];
    return ended.filter((session) => wasOpen(session, now, idleSince)).length;
  }

  async purgeEnded(cutoff: number): Promise<number> {
    const db = this.db;
    return db.transaction(() => PURGE_ENDED_SESSIONS_SQL('@cutoff').reduce((deleted, sql) => deleted + db.prepare(sql).run({ cutoff }).changes, 0)).immediate();
  }

  async createLink(link: NewSignInLink): Promise<void> {
    this.#insertLink(link);
  }

  #insertLink(link: NewSignInLink): void {
    this.db
      .prepare('INSERT INTO console_links (code_hash, member_id, purpose, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(link.codeHash, link.memberId, link.purpose, link.createdBy, link.createdAt, link.expiresAt);
  }

  async createLimitedLink(link: NewSignInLink, limit: number, since: number): Promise<{ stored: true } | { stored: false; oldestAt: number }> {
    return this.db.transaction(() => {
      const made = this.db.prepare(LINKS_MADE_SINCE_SQL(['?', '?', '?', '?'])).get(link.memberId, link.purpose, link.createdBy, since) as { n: number; oldest: number | null };
      if (made.n >= limit) return { stored: false as const, oldestAt: made.oldest! };
      this.#insertLink(link);
      return { stored: true as const };
    }).immediate();
  }

  async linkMember(codeHash: string, now: number, purpose: LinkPurpose): Promise<string | undefined> {
    const row = this.db.prepare('SELECT member_id FROM console_links WHERE code_hash = ? AND used_at IS NULL AND expires_at > ? AND purpose = ?').get(codeHash, now, purpose) as
      | { member_id: string }
      | undefined;
    return row?.member_id;
  }

  async consumeLink(codeHash: string, now: number, purpose: LinkPurpose = 'console', audit?: AuditEntry, grantId?: string): Promise<{ memberId: string; purpose: LinkPurpose } | undefined> {
    return this.db.transaction(() => {
      // One statement: of two requests with the same code, only one sees used_at IS NULL (and a used link always has its grant).
      const row = this.db
        .prepare('UPDATE console_links SET used_at = ?, grant_id = ? WHERE code_hash = ? AND used_at IS NULL AND expires_at > ? AND purpose = ? RETURNING member_id, purpose')
        .get(now, grantId ?? null, codeHash, now, purpose) as { member_id: string; purpose: LinkPurpose } | undefined;
      if (row && audit) this.#audit(audit);
      return row && { memberId: row.member_id, purpose: row.purpose };
    }).immediate();
  }

  async usedLink(codeHash: string, purpose: LinkPurpose): Promise<{ memberId: string; grantId: string | null } | undefined> {
    const row = this.db.prepare(USED_LINK_SQL(['?', '?'])).get(codeHash, purpose) as { member_id: string; grant_id: string | null } | undefined;
    return row && { memberId: row.member_id, grantId: row.grant_id };
  }

  async upstreamKeys(): Promise<UpstreamKeyRecord[]> {
    return (this.db.prepare('SELECT * FROM upstream_keys ORDER BY created_at DESC, id').all() as UpstreamKeyRow[]).map(toUpstreamKey);
  }

  async addUpstreamKey(key: UpstreamKeyRecord): Promise<void> {
    this.db
      .prepare('INSERT INTO upstream_keys (id, label, masked, ciphertext, state, account, created_at, created_by, test, saved_at, activated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(...upstreamKeyValues(key));
  }

  async recordKeyTest(id: string, test: KeyTest, account: string): Promise<boolean> {
    return this.db.prepare('UPDATE upstream_keys SET test = ?, account = ? WHERE id = ?').run(JSON.stringify(test), account, id).changes > 0;
  }

  async markKeySaved(id: string, now: number): Promise<boolean> {
    return this.db.prepare("UPDATE upstream_keys SET state = 'saved', saved_at = ? WHERE id = ? AND state = 'prepared'").run(now, id).changes > 0;
  }

  async activateUpstreamKey(id: string, now: number): Promise<boolean> {
    return this.db.transaction(() => {
      const key = this.db.prepare("SELECT id FROM upstream_keys WHERE id = ? AND state IN ('saved', 'previous')").get(id);
      if (!key) return false;
      this.db.prepare("UPDATE upstream_keys SET state = 'previous' WHERE state = 'active'").run();
      this.db.prepare("UPDATE upstream_keys SET state = 'active', activated_at = ? WHERE id = ?").run(now, id);
      return true;
    }).immediate();
  }

  async useEnvironmentKey(): Promise<boolean> {
    return this.db.prepare("UPDATE upstream_keys SET state = 'previous' WHERE state = 'active'").run().changes > 0;
  }

  async removeUpstreamKey(id: string, now: number): Promise<boolean> {
    return this.db.transaction(() => {
      const key = this.db
        .prepare(`SELECT account FROM upstream_keys WHERE id = ? AND state <> 'active' AND NOT EXISTS (SELECT 1 FROM operations WHERE upstream_key_id = ? AND ${NEEDS_ITS_KEY})`)
        .get(id, id) as { account: string } | undefined;
      if (!key) return false;
      this.db.prepare('DELETE FROM upstream_keys WHERE id = ?').run(id);
      this.db.prepare('INSERT OR REPLACE INTO removed_upstream_keys (id, account, removed_at) VALUES (?, ?, ?)').run(id, key.account, now);
      return true;
    }).immediate();
  }

  async removedKeyAccounts(): Promise<Map<string, string>> {
    const rows = this.db.prepare('SELECT id, account FROM removed_upstream_keys').all() as { id: string; account: string }[];
    return new Map(rows.map((row) => [row.id, row.account]));
  }

  async pendingOperationsWithKey(id: string): Promise<number> {
    return (this.db.prepare(`SELECT count(*) AS n FROM operations WHERE upstream_key_id = ? AND ${NEEDS_ITS_KEY}`).get(id) as { n: number }).n;
  }

  async recordQuota(quota: UpstreamQuota): Promise<void> {
    this.db
      .prepare(
        'INSERT INTO upstream_quotas (product, remaining_words, seen_at, account) VALUES (?, ?, ?, ?) ON CONFLICT (product) DO UPDATE SET remaining_words = excluded.remaining_words, seen_at = excluded.seen_at, account = excluded.account WHERE excluded.seen_at >= upstream_quotas.seen_at',
      )
      .run(quota.product, quota.remainingWords, quota.seenAt, quota.account);
  }

  async quotas(): Promise<UpstreamQuota[]> {
    return (this.db.prepare('SELECT * FROM upstream_quotas ORDER BY product').all() as QuotaRow[]).map(toQuota);
  }

  async audit(entry: AuditEntry): Promise<void> {
    this.#audit(entry);
  }

  #audit(entry: AuditEntry): void {
    this.db
      .prepare('INSERT INTO console_audit (at, actor_id, actor_name, action, target, detail, address) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(entry.at, entry.actorId, entry.actorName, entry.action, entry.target, JSON.stringify(entry.detail), entry.address);
  }

  async auditLog(limit: number): Promise<AuditEntry[]> {
    return (this.db.prepare('SELECT * FROM console_audit ORDER BY seq DESC LIMIT ?').all(limit) as AuditRow[]).map(toAudit);
  }
}
