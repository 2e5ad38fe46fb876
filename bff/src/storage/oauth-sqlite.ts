import type Database from 'better-sqlite3';
import type { MemberRecord } from './ledger.ts';
import { ACTIVE_GRANTS_SQL, PURGE_ENDED_SIGN_INS_SQL, REVOKE_GRANT_SQL, REVOKE_MEMBER_GRANTS_SQL, toActiveGrant, type ActiveGrantRow, toCode, toGrant, type CodeRow, type GrantRow } from './oauth-rows.ts';
import { presentedRefreshToken, type ActiveGrant, type AuthorizationCodeRecord, type GrantRecord, type NewAuthorizationCode, type NewRefreshToken, type OAuthStore, type Rotation, type StoredSigningKey } from './oauth-store.ts';
import { toMember, type MemberRow } from './rows.ts';

/** The OAuth tables, versioned on their own (table oauth_schema), appended to the ledger's file. */
const OAUTH_MIGRATIONS = [
  `CREATE TABLE oauth_clients (
     client_id TEXT PRIMARY KEY,
     metadata TEXT NOT NULL,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE oauth_signing_keys (
     kid TEXT PRIMARY KEY,
     private_jwk TEXT NOT NULL,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE oauth_grants (
     id TEXT PRIMARY KEY,
     client_id TEXT NOT NULL,
     member_id TEXT NOT NULL,
     resource TEXT NOT NULL,
     scopes TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     revoked_at INTEGER
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
     expires_at INTEGER NOT NULL,
     used_at INTEGER,
     grant_id TEXT
   );
   CREATE TABLE oauth_refresh_tokens (
     token_hash TEXT PRIMARY KEY,
     grant_id TEXT NOT NULL,
     expires_at INTEGER NOT NULL,
     used_at INTEGER
   );
   CREATE INDEX oauth_refresh_tokens_grant ON oauth_refresh_tokens (grant_id);`,
  // Whether the authorization request named redirect_uri (codes live 60 s: those before it are held to the stricter rule).
  'ALTER TABLE oauth_codes ADD COLUMN redirect_uri_sent INTEGER NOT NULL DEFAULT 1',
  // The console's list of a member's sign-ins reads each grant's code (where it was sent back).
  'CREATE INDEX oauth_codes_grant ON oauth_codes (grant_id)',
  // The token a refresh token's use issued: a repeat within the grace replaces it (oauth-store.ts).
  'ALTER TABLE oauth_refresh_tokens ADD COLUMN successor_hash TEXT',
];


export class SqliteOAuthStore implements OAuthStore {
  constructor(private readonly db: Database.Database) {
    db.exec('CREATE TABLE IF NOT EXISTS oauth_schema (version INTEGER NOT NULL)');
    db.transaction(() => {
      const row = db.prepare('SELECT version FROM oauth_schema').get() as { version: number } | undefined;
      if (!row) db.prepare('INSERT INTO oauth_schema (version) VALUES (0)').run();
      for (let version = row?.version ?? 0; version < OAUTH_MIGRATIONS.length; version++) {
        db.exec(OAUTH_MIGRATIONS[version]!);
        db.prepare('UPDATE oauth_schema SET version = ?').run(version + 1);
      }
    }).immediate();
  }

  async saveClient(clientId: string, metadata: Record<string, unknown>): Promise<void> {
    this.db.prepare('INSERT INTO oauth_clients (client_id, metadata, created_at) VALUES (?, ?, ?)').run(clientId, JSON.stringify(metadata), Date.now());
  }

  async getClient(clientId: string): Promise<Record<string, unknown> | undefined> {
    const row = this.db.prepare('SELECT metadata FROM oauth_clients WHERE client_id = ?').get(clientId) as { metadata: string } | undefined;
    return row && (JSON.parse(row.metadata) as Record<string, unknown>);
  }

  async signingKey(candidate: StoredSigningKey): Promise<StoredSigningKey> {
    return this.db.transaction(() => {
      const existing = this.db.prepare('SELECT kid, private_jwk FROM oauth_signing_keys ORDER BY created_at LIMIT 1').get() as
        | { kid: string; private_jwk: string }
        | undefined;
      if (existing) return { kid: existing.kid, privateJwk: JSON.parse(existing.private_jwk) as Record<string, unknown> };
      this.db.prepare('INSERT INTO oauth_signing_keys (kid, private_jwk, created_at) VALUES (?, ?, ?)').run(candidate.kid, JSON.stringify(candidate.privateJwk), Date.now());
      return candidate;
    }).immediate();
  }

  async saveCode(code: NewAuthorizationCode): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO oauth_codes (code_hash, client_id, member_id, redirect_uri, redirect_uri_sent, code_challenge, resource, scopes, expires_at, grant_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(code.codeHash, code.clientId, code.memberId, code.redirectUri, code.redirectUriSent ? 1 : 0, code.codeChallenge, code.resource, JSON.stringify(code.scopes), code.expiresAt, code.grantId ?? null);
  }

  async findCode(codeHash: string): Promise<AuthorizationCodeRecord | undefined> {
    const row = this.db.prepare('SELECT * FROM oauth_codes WHERE code_hash = ?').get(codeHash) as CodeRow | undefined;
    return row && toCode(row);
  }

  async exchangeCode(codeHash: string, grant: Omit<GrantRecord, 'revokedAt'>, refresh: NewRefreshToken, now: number): Promise<boolean> {
    return this.db.transaction(() => {
      const { changes } = this.db
        .prepare('UPDATE oauth_codes SET used_at = ?, grant_id = ? WHERE code_hash = ? AND used_at IS NULL AND expires_at > ?')
        .run(now, grant.id, codeHash, now);
      if (changes === 0) return false;
      this.db
        .prepare('INSERT INTO oauth_grants (id, client_id, member_id, resource, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(grant.id, grant.clientId, grant.memberId, grant.resource, JSON.stringify(grant.scopes), grant.createdAt);
      this.db.prepare('INSERT INTO oauth_refresh_tokens (token_hash, grant_id, expires_at) VALUES (?, ?, ?)').run(refresh.tokenHash, refresh.grantId, refresh.expiresAt);
      return true;
    }).immediate();
  }

  async grant(grantId: string): Promise<GrantRecord | undefined> {
    const row = this.db.prepare('SELECT * FROM oauth_grants WHERE id = ?').get(grantId) as GrantRow | undefined;
    return row && toGrant(row);
  }

  async rotateRefreshToken(oldHash: string, next: Omit<NewRefreshToken, 'grantId'>, now: number): Promise<Rotation> {
    return this.db.transaction((): Rotation => {
      const token = this.db.prepare('SELECT grant_id, expires_at, used_at, successor_hash FROM oauth_refresh_tokens WHERE token_hash = ?').get(oldHash) as
        | { grant_id: string; expires_at: number; used_at: number | null; successor_hash: string | null }
        | undefined;
      if (!token) return { kind: 'invalid' };
      const row = this.db.prepare('SELECT * FROM oauth_grants WHERE id = ?').get(token.grant_id) as GrantRow | undefined;
      if (!row) return { kind: 'invalid' };
      const successor = token.successor_hash
        ? (this.db.prepare('SELECT used_at FROM oauth_refresh_tokens WHERE token_hash = ?').get(token.successor_hash) as { used_at: number | null } | undefined)
        : undefined;
      const state = { expiresAt: token.expires_at, usedAt: token.used_at, successorHash: token.successor_hash };
      const presented = presentedRefreshToken(state, successor?.used_at, row.revoked_at !== null, now);
      if (presented === 'invalid') return { kind: 'invalid' };
      if (presented === 'reused') {
        this.db.prepare('UPDATE oauth_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(now, row.id);
        return { kind: 'reused', grant: toGrant(row) };
      }
      if (presented === 'rotate-again') this.db.prepare('UPDATE oauth_refresh_tokens SET used_at = ? WHERE token_hash = ?').run(now, token.successor_hash);
      // A repeat keeps the first use's time: the grace counts from it.
      this.db.prepare('UPDATE oauth_refresh_tokens SET used_at = coalesce(used_at, ?), successor_hash = ? WHERE token_hash = ?').run(now, next.tokenHash, oldHash);
      this.db.prepare('INSERT INTO oauth_refresh_tokens (token_hash, grant_id, expires_at) VALUES (?, ?, ?)').run(next.tokenHash, row.id, next.expiresAt);
      return { kind: 'rotated', grant: toGrant(row), repeated: presented === 'rotate-again' };
    }).immediate();
  }

  async grantOfRefreshToken(tokenHash: string): Promise<GrantRecord | undefined> {
    const row = this.db
      .prepare('SELECT g.* FROM oauth_refresh_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.token_hash = ?')
      .get(tokenHash) as GrantRow | undefined;
    return row && toGrant(row);
  }

  async revokeGrant(grantId: string, now: number): Promise<boolean> {
    return this.db.transaction(() => REVOKE_GRANT_SQL('@now', '@grantId').reduce((ended, sql) => this.db.prepare(sql).run({ now, grantId }).changes > 0 || ended, false)).immediate();
  }

  async activeGrants(memberId: string, now: number): Promise<ActiveGrant[]> {
    const rows = this.db.prepare(ACTIVE_GRANTS_SQL('?', '?')).all(memberId, now) as ActiveGrantRow[];
    return rows.map(toActiveGrant);
  }

  async revokeMemberGrants(memberId: string, now: number): Promise<number> {
    const ended = this.db.prepare(REVOKE_MEMBER_GRANTS_SQL('@now', '@memberId')).all({ now, memberId }) as { live: number }[];
    return ended.filter((grant) => grant.live).length;
  }

  async purgeEnded(cutoff: number): Promise<number> {
    return this.db.transaction(() => PURGE_ENDED_SIGN_INS_SQL('@cutoff').reduce((deleted, sql) => deleted + this.db.prepare(sql).run({ cutoff }).changes, 0)).immediate();
  }

  async activeMember(memberId: string): Promise<MemberRecord | undefined> {
    const row = this.db.prepare('SELECT * FROM members WHERE id = ? AND revoked_at IS NULL').get(memberId) as MemberRow | undefined;
    return row && toMember(row);
  }
}
