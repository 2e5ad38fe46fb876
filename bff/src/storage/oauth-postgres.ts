import type pg from 'pg';
import type { MemberRecord } from './ledger.ts';
import { ACTIVE_GRANTS_SQL, PURGE_ENDED_SIGN_INS_SQL, REVOKE_GRANT_SQL, REVOKE_MEMBER_GRANTS_SQL, toActiveGrant, type ActiveGrantRow, toCode, toGrant, type CodeRow, type GrantRow } from './oauth-rows.ts';
import { presentedRefreshToken, type ActiveGrant, type AuthorizationCodeRecord, type GrantRecord, type NewAuthorizationCode, type NewRefreshToken, type OAuthStore, type Rotation, type StoredSigningKey } from './oauth-store.ts';
import { toMember, type MemberRow } from './rows.ts';
import { transaction } from './pg-transaction.ts';

/** The OAuth tables, versioned on their own (table oauth_schema) in the ledger's schema. */
const OAUTH_MIGRATIONS = [
  `CREATE TABLE oauth_clients (
     client_id TEXT PRIMARY KEY,
     metadata TEXT NOT NULL,
     created_at BIGINT NOT NULL
   );
   CREATE TABLE oauth_signing_keys (
     kid TEXT PRIMARY KEY,
     private_jwk TEXT NOT NULL,
     created_at BIGINT NOT NULL
   );
   CREATE TABLE oauth_grants (
     id TEXT PRIMARY KEY,
     client_id TEXT NOT NULL,
     member_id TEXT NOT NULL,
     resource TEXT NOT NULL,
     scopes TEXT NOT NULL,
     created_at BIGINT NOT NULL,
     revoked_at BIGINT
   );
   CREATE INDEX oauth_grants_member ON oauth_grants (member_id);
   CREATE TABLE oauth_codes (
     code_hash TEXT PRIMARY KEY,
     client_id TEXT NOT NULL,
     member_id TEXT NOT NULL,
     redirect_uri TEXT NOT NULL,
     code_challenge TEXT NOT NULL,
     resource TEXT NOT NULL,
     scopes TEXT NOT NULL,
     expires_at BIGINT NOT NULL,
     used_at BIGINT,
     grant_id TEXT
   );
   CREATE TABLE oauth_refresh_tokens (
     token_hash TEXT PRIMARY KEY,
     grant_id TEXT NOT NULL,
     expires_at BIGINT NOT NULL,
     used_at BIGINT
   );
   CREATE INDEX oauth_refresh_tokens_grant ON oauth_refresh_tokens (grant_id);`,
  // Whether the authorization request named redirect_uri (codes live 60 s: those before it are held to the stricter rule).
  'ALTER TABLE oauth_codes ADD COLUMN redirect_uri_sent BOOLEAN NOT NULL DEFAULT TRUE',
  // The console's list of a member's sign-ins reads each grant's code (where it was sent back).
  'CREATE INDEX oauth_codes_grant ON oauth_codes (grant_id)',
  // The token a refresh token's use issued: a repeat within the grace replaces it (oauth-store.ts).
  'ALTER TABLE oauth_refresh_tokens ADD COLUMN successor_hash TEXT',
];

/** Serialises OAuth migrations between instances starting together ("roau"). */
const OAUTH_MIGRATION_LOCK = 0x726f6175;

export class PostgresOAuthStore implements OAuthStore {
  private constructor(private readonly pool: pg.Pool) {}

  /** Brings the OAuth tables up to date on the ledger's pool (and its search_path). */
  static async open(pool: pg.Pool): Promise<PostgresOAuthStore> {
    const client = await pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [OAUTH_MIGRATION_LOCK]);
      await client.query('CREATE TABLE IF NOT EXISTS oauth_schema (version INTEGER NOT NULL)');
      const { rows } = await client.query<{ version: number }>('SELECT version FROM oauth_schema');
      let version = rows[0]?.version ?? 0;
      if (rows.length === 0) await client.query('INSERT INTO oauth_schema (version) VALUES (0)');
      for (; version < OAUTH_MIGRATIONS.length; version++) {
        await client.query('BEGIN');
        await client.query(OAUTH_MIGRATIONS[version]!);
        await client.query('UPDATE oauth_schema SET version = $1', [version + 1]);
        await client.query('COMMIT');
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [OAUTH_MIGRATION_LOCK]).catch(() => {});
      client.release();
    }
    return new PostgresOAuthStore(pool);
  }

  async saveClient(clientId: string, metadata: Record<string, unknown>): Promise<void> {
    await this.pool.query('INSERT INTO oauth_clients (client_id, metadata, created_at) VALUES ($1, $2, $3)', [clientId, JSON.stringify(metadata), Date.now()]);
  }

  async getClient(clientId: string): Promise<Record<string, unknown> | undefined> {
    const { rows } = await this.pool.query<{ metadata: string }>('SELECT metadata FROM oauth_clients WHERE client_id = $1', [clientId]);
    return rows[0] && (JSON.parse(rows[0].metadata) as Record<string, unknown>);
  }

  async signingKey(candidate: StoredSigningKey): Promise<StoredSigningKey> {
    // Concurrent first starts: one insert wins; everyone reads the oldest key.
    await this.pool.query(
      `INSERT INTO oauth_signing_keys (kid, private_jwk, created_at)
       SELECT $1, $2, $3 WHERE NOT EXISTS (SELECT 1 FROM oauth_signing_keys)`,
      [candidate.kid, JSON.stringify(candidate.privateJwk), Date.now()],
    );
    const { rows } = await this.pool.query<{ kid: string; private_jwk: string }>('SELECT kid, private_jwk FROM oauth_signing_keys ORDER BY created_at, kid LIMIT 1');
    return { kid: rows[0]!.kid, privateJwk: JSON.parse(rows[0]!.private_jwk) as Record<string, unknown> };
  }

  async saveCode(code: NewAuthorizationCode): Promise<void> {
    await this.pool.query(
      `INSERT INTO oauth_codes (code_hash, client_id, member_id, redirect_uri, redirect_uri_sent, code_challenge, resource, scopes, expires_at, grant_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [code.codeHash, code.clientId, code.memberId, code.redirectUri, code.redirectUriSent, code.codeChallenge, code.resource, JSON.stringify(code.scopes), code.expiresAt, code.grantId ?? null],
    );
  }

  async findCode(codeHash: string): Promise<AuthorizationCodeRecord | undefined> {
    const { rows } = await this.pool.query<CodeRow>('SELECT * FROM oauth_codes WHERE code_hash = $1', [codeHash]);
    return rows[0] && toCode(rows[0]);
  }

  async exchangeCode(codeHash: string, grant: Omit<GrantRecord, 'revokedAt'>, refresh: NewRefreshToken, now: number): Promise<boolean> {
    return transaction(this.pool, async (client) => {
      const { rowCount } = await client.query(
        'UPDATE oauth_codes SET used_at = $1, grant_id = $2 WHERE code_hash = $3 AND used_at IS NULL AND expires_at > $1',
        [now, grant.id, codeHash],
      );
      if (!rowCount) return false;
      await client.query('INSERT INTO oauth_grants (id, client_id, member_id, resource, scopes, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
        grant.id,
        grant.clientId,
        grant.memberId,
        grant.resource,
        JSON.stringify(grant.scopes),
        grant.createdAt,
      ]);
      await client.query('INSERT INTO oauth_refresh_tokens (token_hash, grant_id, expires_at) VALUES ($1, $2, $3)', [refresh.tokenHash, refresh.grantId, refresh.expiresAt]);
      return true;
    });
  }

  async grant(grantId: string): Promise<GrantRecord | undefined> {
    const { rows } = await this.pool.query<GrantRow>('SELECT * FROM oauth_grants WHERE id = $1', [grantId]);
    return rows[0] && toGrant(rows[0]);
  }

  async rotateRefreshToken(oldHash: string, next: Omit<NewRefreshToken, 'grantId'>, now: number): Promise<Rotation> {
    return transaction(this.pool, async (client): Promise<Rotation> => {
      // The row lock makes two instances racing with one token see each other: one rotates, the other sees it used.
      const { rows: tokens } = await client.query<{ grant_id: string; expires_at: string; used_at: string | null; successor_hash: string | null }>(
        'SELECT grant_id, expires_at, used_at, successor_hash FROM oauth_refresh_tokens WHERE token_hash = $1 FOR UPDATE',
        [oldHash],
      );
      const token = tokens[0];
      if (!token) return { kind: 'invalid' };
      const { rows } = await client.query<GrantRow>('SELECT * FROM oauth_grants WHERE id = $1', [token.grant_id]);
      if (!rows[0]) return { kind: 'invalid' };
      const { rows: successors } = token.successor_hash
        ? await client.query<{ used_at: string | null }>('SELECT used_at FROM oauth_refresh_tokens WHERE token_hash = $1 FOR UPDATE', [token.successor_hash])
        : { rows: [] };
      const successorUsedAt = successors[0] && (successors[0].used_at === null ? null : Number(successors[0].used_at));
      const state = { expiresAt: Number(token.expires_at), usedAt: token.used_at === null ? null : Number(token.used_at), successorHash: token.successor_hash };
      const presented = presentedRefreshToken(state, successorUsedAt, rows[0].revoked_at !== null, now);
      if (presented === 'invalid') return { kind: 'invalid' };
      if (presented === 'reused') {
        await client.query('UPDATE oauth_grants SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [now, rows[0].id]);
        return { kind: 'reused', grant: toGrant(rows[0]) };
      }
      if (presented === 'rotate-again') await client.query('UPDATE oauth_refresh_tokens SET used_at = $1 WHERE token_hash = $2', [now, token.successor_hash]);
      // A repeat keeps the first use's time: the grace counts from it.
      await client.query('UPDATE oauth_refresh_tokens SET used_at = coalesce(used_at, $1), successor_hash = $2 WHERE token_hash = $3', [now, next.tokenHash, oldHash]);
      await client.query('INSERT INTO oauth_refresh_tokens (token_hash, grant_id, expires_at) VALUES ($1, $2, $3)', [next.tokenHash, rows[0].id, next.expiresAt]);
      return { kind: 'rotated', grant: toGrant(rows[0]), repeated: presented === 'rotate-again' };
    });
  }

  async grantOfRefreshToken(tokenHash: string): Promise<GrantRecord | undefined> {
    const { rows } = await this.pool.query<GrantRow>(
      'SELECT g.* FROM oauth_refresh_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.token_hash = $1',
      [tokenHash],
    );
    return rows[0] && toGrant(rows[0]);
  }

  async revokeGrant(grantId: string, now: number): Promise<boolean> {
    return transaction(this.pool, async (client) => {
      let ended = false;
      // One statement each, in this order: see REVOKE_GRANT_SQL.
      for (const sql of REVOKE_GRANT_SQL('$1', '$2')) ended = ((await client.query(sql, [now, grantId])).rowCount ?? 0) > 0 || ended;
      return ended;
    });
  }

  async activeGrants(memberId: string, now: number): Promise<ActiveGrant[]> {
    const { rows } = await this.pool.query<ActiveGrantRow>(ACTIVE_GRANTS_SQL('$1', '$2'), [memberId, now]);
    return rows.map(toActiveGrant);
  }

  async revokeMemberGrants(memberId: string, now: number): Promise<number> {
    const { rows } = await this.pool.query<{ live: boolean }>(REVOKE_MEMBER_GRANTS_SQL('$1', '$2'), [now, memberId]);
    return rows.filter((grant) => grant.live).length;
  }

  async purgeEnded(cutoff: number): Promise<number> {
    return transaction(this.pool, async (client) => {
      let deleted = 0;
      for (const sql of PURGE_ENDED_SIGN_INS_SQL('$1')) deleted += (await client.query(sql, [cutoff])).rowCount ?? 0;
      return deleted;
    });
  }

  async activeMember(memberId: string): Promise<MemberRecord | undefined> {
    const { rows } = await this.pool.query<MemberRow>('SELECT * FROM members WHERE id = $1 AND revoked_at IS NULL', [memberId]);
    return rows[0] && toMember(rows[0]);
  }
}
