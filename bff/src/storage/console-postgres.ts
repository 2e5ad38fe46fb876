import type pg from 'pg';
import type { Product } from '@redline/shared';
import { LINK_GRANT_COLUMN, LINKS_MADE_SINCE_SQL, PURGE_ENDED_SESSIONS_SQL, USED_LINK_SQL, NEEDS_ITS_KEY, QUOTA_ACCOUNT_COLUMN, removedUpstreamKeysTable, toAudit, toQuota, toSession, toUpstreamKey, upstreamKeyTables, upstreamKeyValues, wasOpen, type AuditRow, type QuotaRow, type SessionRow, type UpstreamKeyRow } from './console-rows.ts';
import type { AuditEntry, ConsoleStore, KeyTest, LinkPurpose, NewSession, NewSignInLink, SessionRecord, UpstreamKeyRecord, UpstreamQuota, UsageRow } from './console-store.ts';
import type { BudgetChange, Budgets, MemberRecord, Role } from './ledger.ts';
import { PG_ANOTHER_ADMIN, PG_LOCKING_ADMINS } from './last-admin.ts';
import { transaction } from './pg-transaction.ts';
import { UPSTREAM_KEYS_CHANNEL, announcingMembers, announcingUpstreamKeys } from './pg-channel.ts';
import { CHARGED_WORDS_COUNTED, toMember, type MemberRow } from './rows.ts';

/** The console's tables, versioned on their own (table console_schema) in the ledger's schema. */
const CONSOLE_MIGRATIONS = [
  `CREATE TABLE console_sessions (
     id TEXT PRIMARY KEY,
     secret_hash TEXT NOT NULL UNIQUE,
     member_id TEXT NOT NULL,
     created_at BIGINT NOT NULL,
     expires_at BIGINT NOT NULL,
     last_seen_at BIGINT NOT NULL,
     revoked_at BIGINT,
     address TEXT NOT NULL,
     user_agent TEXT NOT NULL
   );
   CREATE INDEX console_sessions_member ON console_sessions (member_id);
   CREATE TABLE console_links (
     code_hash TEXT PRIMARY KEY,
     member_id TEXT NOT NULL,
     purpose TEXT NOT NULL,
     created_by TEXT NOT NULL,
     created_at BIGINT NOT NULL,
     expires_at BIGINT NOT NULL,
     used_at BIGINT
   );
   CREATE TABLE console_audit (
     seq BIGSERIAL PRIMARY KEY,
     at BIGINT NOT NULL,
     actor_id TEXT,
     actor_name TEXT,
     action TEXT NOT NULL,
     target TEXT,
     detail TEXT NOT NULL,
     address TEXT NOT NULL
   );`,
  upstreamKeyTables('BIGINT'),
  QUOTA_ACCOUNT_COLUMN,
  removedUpstreamKeysTable('BIGINT'),
  LINK_GRANT_COLUMN,
];

/** Serialises console migrations between instances starting together ("rcon"). */
const CONSOLE_MIGRATION_LOCK = 0x72636f6e;
/**
 * Serialises the changes of which key is active ("rkey"), so that each reads the active key
 * after the one before committed: a row lock on the key being activated did not order two
 * activations of different keys (the second's statement still saw the old active key, and the
 * one-active index refused it: a 500), nor an activation and a return to the environment's key.
 */
const ACTIVE_KEY_LOCK = 0x726b6579;
/** The class of the per-maker locks that order limited link creations (createLimitedLink) ("rlnk"). */
const LINK_LIMIT_LOCK_CLASS = 0x726c6e6b;

export class PostgresConsoleStore implements ConsoleStore {
  private constructor(private readonly pool: pg.Pool) {}

  static async open(pool: pg.Pool): Promise<PostgresConsoleStore> {
    const client = await pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [CONSOLE_MIGRATION_LOCK]);
      await client.query('CREATE TABLE IF NOT EXISTS console_schema (version INTEGER NOT NULL)');
      const { rows } = await client.query<{ version: number }>('SELECT version FROM console_schema');
      let version = rows[0]?.version ?? 0;
      if (rows.length === 0) await client.query('INSERT INTO console_schema (version) VALUES (0)');
      for (; version < CONSOLE_MIGRATIONS.length; version++) {
        await client.query('BEGIN');
        await client.query(CONSOLE_MIGRATIONS[version]!);
        await client.query('UPDATE console_schema SET version = $1', [version + 1]);
        await client.query('COMMIT');
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [CONSOLE_MIGRATION_LOCK]).catch(() => {});
      client.release();
    }
    return new PostgresConsoleStore(pool);
  }

  async #changed(sql: string, values: unknown[]): Promise<number> {
    return (await this.pool.query(sql, values)).rowCount ?? 0;
  }

  async setRole(memberId: string, role: Role): Promise<boolean> {
    return (await this.#changed(`${PG_LOCKING_ADMINS} UPDATE members SET role = $2 WHERE id = $1 AND revoked_at IS NULL AND ($2 = 'admin' OR role <> 'admin' OR ${PG_ANOTHER_ADMIN})`, [memberId, role])) > 0;
  }

  // Members are cached per instance with their token, budgets and limit: each change announces itself (pg-channel.ts).
  async setRateLimit(memberId: string, requests: number | null): Promise<boolean> {
    return (await this.#changed(announcingMembers('UPDATE members SET rate_limit = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING id'), [requests, memberId])) > 0;
  }

  async changeBudgets(memberId: string, change: BudgetChange): Promise<Budgets | undefined> {
    const { rows } = await this.pool.query<{ budgets: Budgets }>(
      announcingMembers('UPDATE members SET budgets = jsonb_strip_nulls(budgets || $1::jsonb) WHERE id = $2 AND revoked_at IS NULL RETURNING id, budgets', 'budgets'),
      [JSON.stringify(change), memberId],
    );
    return rows[0]?.budgets;
  }

  async rotateToken(memberId: string, tokenHash: string, tokenPrefix: string): Promise<boolean> {
    return (
      (await this.#changed(announcingMembers('UPDATE members SET token_hash = $1, token_prefix = $2 WHERE id = $3 AND revoked_at IS NULL RETURNING id'), [tokenHash, tokenPrefix, memberId])) > 0
    );
  }

  async member(memberId: string): Promise<MemberRecord | undefined> {
    const { rows } = await this.pool.query<MemberRow>('SELECT * FROM members WHERE id = $1', [memberId]);
    return rows[0] && toMember(rows[0]);
  }

  async lastUsed(): Promise<Map<string, string>> {
    const { rows } = await this.pool.query<{ member_id: string; at: Date }>(
      'SELECT member_id, max(created_at) AS at FROM operations WHERE parent_operation_id IS NULL GROUP BY member_id',
    );
    return new Map(rows.map((row) => [row.member_id, row.at.toISOString()]));
  }

  async usage(from: Date, to: Date): Promise<UsageRow[]> {
    const { rows } = await this.pool.query<{ day: string; member_id: string; product: Product; words: string }>(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, member_id, product, sum(words_charged) AS words FROM operations
       WHERE ${CHARGED_WORDS_COUNTED} AND created_at >= $1 AND created_at < $2
       GROUP BY day, member_id, product ORDER BY day, member_id, product`,
      [from, to],
    );
    return rows.map((row) => ({ day: row.day, memberId: row.member_id, product: row.product, words: Number(row.words) }));
  }

  async createSession(session: NewSession): Promise<void> {
    await this.pool.query(
      `INSERT INTO console_sessions (id, secret_hash, member_id, created_at, expires_at, last_seen_at, address, user_agent)
       VALUES ($1, $2, $3, $4, $5, $4, $6, $7)`,
      [session.id, session.secretHash, session.memberId, session.createdAt, session.expiresAt, session.address, session.userAgent],
    );
  }

  async sessionBySecret(secretHash: string): Promise<SessionRecord | undefined> {
    const { rows } = await this.pool.query<SessionRow>('SELECT * FROM console_sessions WHERE secret_hash = $1 AND revoked_at IS NULL', [secretHash]);
    return rows[0] && toSession(rows[0]);
  }

  async touchSession(id: string, now: number): Promise<void> {
    await this.pool.query('UPDATE console_sessions SET last_seen_at = $1 WHERE id = $2', [now, id]);
  }

  async listSessions(now: number): Promise<SessionRecord[]> {
    const { rows } = await this.pool.query<SessionRow>('SELECT * FROM console_sessions WHERE revoked_at IS NULL AND expires_at > $1 ORDER BY created_at DESC', [now]);
    return rows.map(toSession);
  }

  async revokeSession(id: string, now: number, idleSince = -Infinity): Promise<boolean> {
    const { rows } = await this.pool.query<{ expires_at: string; last_seen_at: string }>(
      'UPDATE console_sessions SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING expires_at, last_seen_at',
      [now, id],
    );
    return rows.some((session) => wasOpen(session, now, idleSince));
  }

  async revokeMemberSessions(memberId: string, now: number, keep = '', idleSince = -Infinity): Promise<number> {
    const { rows } = await this.pool.query<{ expires_at: string; last_seen_at: string }>(
      'UPDATE console_sessions SET revoked_at = $1 WHERE member_id = $2 AND revoked_at IS NULL AND id <> $3 RETURNING expires_at, last_seen_at',
      [now, memberId, keep],
    );
    return rows.filter((session) => wasOpen(session, now, idleSince)).length;
  }

  async purgeEnded(cutoff: number): Promise<number> {
    let deleted = 0;
    for (const sql of PURGE_ENDED_SESSIONS_SQL('$1')) deleted += (await this.pool.query(sql, [cutoff])).rowCount ?? 0;
    return deleted;
  }

  async createLink(link: NewSignInLink): Promise<void> {
    await this.pool.query(INSERT_LINK_SQL, linkValues(link));
  }

  async createLimitedLink(link: NewSignInLink, limit: number, since: number): Promise<{ stored: true } | { stored: false; oldestAt: number }> {
    return transaction(this.pool, async (client) => {
      // Two requests at once (on two instances) count one after the other: the maker and member's own lock.
      // (The two-key form: its key space is apart from the one-key locks above.)
      await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2 || ':' || $3 || ':' || $4))", [LINK_LIMIT_LOCK_CLASS, link.memberId, link.purpose, link.createdBy]);
      const { rows } = await client.query<{ n: string; oldest: string | null }>(LINKS_MADE_SINCE_SQL(['$1', '$2', '$3', '$4']), [link.memberId, link.purpose, link.createdBy, since]);
      if (Number(rows[0]!.n) >= limit) return { stored: false, oldestAt: Number(rows[0]!.oldest) };
      await client.query(INSERT_LINK_SQL, linkValues(link));
      return { stored: true };
    });
  }

  async linkMember(codeHash: string, now: number, purpose: LinkPurpose): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ member_id: string }>(
      'SELECT member_id FROM console_links WHERE code_hash = $1 AND used_at IS NULL AND expires_at > $2 AND purpose = $3',
      [codeHash, now, purpose],
    );
    return rows[0]?.member_id;
  }

  async consumeLink(codeHash: string, now: number, purpose: LinkPurpose = 'console', audit?: AuditEntry, grantId?: string): Promise<{ memberId: string; purpose: LinkPurpose } | undefined> {
    // One statement: a used link always has its grant.
    const consume = {
      text: 'UPDATE console_links SET used_at = $1, grant_id = $4 WHERE code_hash = $2 AND used_at IS NULL AND expires_at > $1 AND purpose = $3 RETURNING member_id, purpose',
      values: [now, codeHash, purpose, grantId ?? null],
    };
    if (!audit) {
      const { rows } = await this.pool.query<{ member_id: string; purpose: LinkPurpose }>(consume);
      return rows[0] && { memberId: rows[0].member_id, purpose: rows[0].purpose };
    }
    // The link and its audit entry in one statement (one transaction): both or neither.
    const { rows } = await this.pool.query<{ member_id: string; purpose: LinkPurpose }>(
      `WITH used AS (${consume.text}),
       logged AS (INSERT INTO console_audit (at, actor_id, actor_name, action, target, detail, address) SELECT $5, $6, $7, $8, $9, $10, $11 FROM used)
       SELECT member_id, purpose FROM used`,
      [...consume.values, ...auditValues(audit)],
    );
    return rows[0] && { memberId: rows[0].member_id, purpose: rows[0].purpose };
  }

  async usedLink(codeHash: string, purpose: LinkPurpose): Promise<{ memberId: string; grantId: string | null } | undefined> {
    const { rows } = await this.pool.query<{ member_id: string; grant_id: string | null }>(USED_LINK_SQL(['$1', '$2']), [codeHash, purpose]);
    return rows[0] && { memberId: rows[0].member_id, grantId: rows[0].grant_id };
  }

  async upstreamKeys(): Promise<UpstreamKeyRecord[]> {
    const { rows } = await this.pool.query<UpstreamKeyRow>('SELECT * FROM upstream_keys ORDER BY created_at DESC, id');
    return rows.map(toUpstreamKey);
  }

  async addUpstreamKey(key: UpstreamKeyRecord): Promise<void> {
    await this.pool.query(
      'INSERT INTO upstream_keys (id, label, masked, ciphertext, state, account, created_at, created_by, test, saved_at, activated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)',
      upstreamKeyValues(key),
    );
  }

  // Every instance's keyring holds the active and previous keys with their accounts: each change to them announces itself (pg-channel.ts).
  // A prepared or saved key (added, marked saved) is not in any keyring.
  async recordKeyTest(id: string, test: KeyTest, account: string): Promise<boolean> {
    return (await this.#changed(announcingUpstreamKeys('UPDATE upstream_keys SET test = $1, account = $2 WHERE id = $3 RETURNING id'), [JSON.stringify(test), account, id])) > 0;
  }

  async markKeySaved(id: string, now: number): Promise<boolean> {
    return (await this.#changed("UPDATE upstream_keys SET state = 'saved', saved_at = $1 WHERE id = $2 AND state = 'prepared'", [now, id])) > 0;
  }

  async activateUpstreamKey(id: string, now: number): Promise<boolean> {
    return this.#changingActiveKey(async (client) => {
      const { rowCount } = await client.query("SELECT id FROM upstream_keys WHERE id = $1 AND state IN ('saved', 'previous') FOR UPDATE", [id]);
      if (!rowCount) return false;
      await client.query("UPDATE upstream_keys SET state = 'previous' WHERE state = 'active'");
      await client.query(announcingUpstreamKeys("UPDATE upstream_keys SET state = 'active', activated_at = $1 WHERE id = $2 RETURNING id"), [now, id]);
      return true;
    });
  }

  async useEnvironmentKey(): Promise<boolean> {
    return this.#changingActiveKey(
      async (client) => ((await client.query(announcingUpstreamKeys("UPDATE upstream_keys SET state = 'previous' WHERE state = 'active' RETURNING id"))).rowCount ?? 0) > 0,
    );
  }

  /** Runs `change` in a transaction holding ACTIVE_KEY_LOCK (a change that finds nothing to do writes nothing). */
  #changingActiveKey(change: (client: pg.PoolClient) => Promise<boolean>): Promise<boolean> {
    return transaction(this.pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [ACTIVE_KEY_LOCK]);
      return change(client);
    });
  }

  // One statement: an operation inserted after a separate count (by an instance that still takes
  // the key for the active one) would be left with a key nobody can find the account of.
  async removeUpstreamKey(id: string, now: number): Promise<boolean> {
    // Announced like every change of the keys (announcingUpstreamKeys, which cannot wrap two changes).
    const removal = `WITH removed AS (
         DELETE FROM upstream_keys WHERE id = $1 AND state <> 'active'
           AND NOT EXISTS (SELECT 1 FROM operations WHERE upstream_key_id = $1 AND ${NEEDS_ITS_KEY})
         RETURNING id, account
       ), kept AS (INSERT INTO removed_upstream_keys (id, account, removed_at) SELECT id, account, $2 FROM removed)
       SELECT pg_notify('${UPSTREAM_KEYS_CHANNEL}', id) FROM removed`;
    return (await this.#changed(removal, [id, now])) > 0;
  }

  async removedKeyAccounts(): Promise<Map<string, string>> {
    const { rows } = await this.pool.query<{ id: string; account: string }>('SELECT id, account FROM removed_upstream_keys');
    return new Map(rows.map((row) => [row.id, row.account]));
  }

  async pendingOperationsWithKey(id: string): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>(`SELECT count(*) AS n FROM operations WHERE upstream_key_id = $1 AND ${NEEDS_ITS_KEY}`, [id]);
    return Number(rows[0]!.n);
  }

  async recordQuota(quota: UpstreamQuota): Promise<void> {
    await this.pool.query(
      `INSERT INTO upstream_quotas AS q (product, remaining_words, seen_at, account) VALUES ($1, $2, $3, $4)
       ON CONFLICT (product) DO UPDATE SET remaining_words = EXCLUDED.remaining_words, seen_at = EXCLUDED.seen_at, account = EXCLUDED.account WHERE EXCLUDED.seen_at >= q.seen_at`,
      [quota.product, quota.remainingWords, quota.seenAt, quota.account],
    );
  }

  async quotas(): Promise<UpstreamQuota[]> {
    const { rows } = await this.pool.query<QuotaRow>('SELECT * FROM upstream_quotas ORDER BY product');
    return rows.map(toQuota);
  }

  async audit(entry: AuditEntry): Promise<void> {
    await this.pool.query(
      'INSERT INTO console_audit (at, actor_id, actor_name, action, target, detail, address) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      auditValues(entry),
    );
  }

  async auditLog(limit: number): Promise<AuditEntry[]> {
    const { rows } = await this.pool.query<AuditRow>('SELECT * FROM console_audit ORDER BY seq DESC LIMIT $1', [limit]);
    return rows.map(toAudit);
  }
}

const INSERT_LINK_SQL = 'INSERT INTO console_links (code_hash, member_id, purpose, created_by, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)';
const linkValues = (link: NewSignInLink) => [link.codeHash, link.memberId, link.purpose, link.createdBy, link.createdAt, link.expiresAt];
const auditValues = (entry: AuditEntry) => [entry.at, entry.actorId, entry.actorName, entry.action, entry.target, JSON.stringify(entry.detail), entry.address];
