import type { MemberRecord } from './ledger.ts';

/**
 * What the BFF's OAuth authorization server keeps: registered clients, its signing key,
 * authorization codes, grants (one per approved sign-in) and refresh tokens. Codes and
 * refresh tokens are stored only as SHA-256 hashes. Both ledgers implement it on their own
 * connection (./oauth-sqlite.ts, ./oauth-postgres.ts), with a schema version of its own so
 * that it grows independently of the operation tables. Times are epoch milliseconds.
 */

export interface StoredSigningKey {
  kid: string;
  /** The private JWK (the public one is derived from it). */
  privateJwk: Record<string, unknown>;
}

export interface NewAuthorizationCode {
  codeHash: string;
  clientId: string;
  memberId: string;
  redirectUri: string;
  /** Whether the authorization request named redirect_uri: then /token must send the same (RFC 6749 section 4.1.3). */
  redirectUriSent: boolean;
  codeChallenge: string;
  resource: string;
  scopes: string[];
  expiresAt: number;
  /**
   * The id of the grant its exchange will open, named when the code is issued: a one-time
   * sign-in link used on the consent page stores it, to revoke that grant if presented again.
   */
  grantId?: string | null;
}

export interface AuthorizationCodeRecord extends NewAuthorizationCode {
  usedAt: number | null;
  /** The grant its exchange opens, or opened once usedAt is set (null: a code issued before codes named it). */
  grantId: string | null;
}

export interface GrantRecord {
  id: string;
  clientId: string;
  memberId: string;
  resource: string;
  scopes: string[];
  createdAt: number;
  revokedAt: number | null;
}

export interface NewRefreshToken {
  tokenHash: string;
  grantId: string;
  expiresAt: number;
}

/** A grant that can still be used: not revoked, and its current refresh token not expired. */
export interface ActiveGrant extends GrantRecord {
  /** When its current refresh token expires (each refresh moves it on). */
  refreshExpiresAt: number;
  /** Where its authorization code was sent (null if that code is no longer kept). */
  redirectUri: string | null;
}

/** What a refresh token rotation found. */
export type Rotation =
  /** `repeated`: its client presented it again within the grace (presentedRefreshToken). */
  | { kind: 'rotated'; grant: GrantRecord; repeated: boolean }
  /** The token was already used: someone replayed it, so the grant is revoked. */
  | { kind: 'reused'; grant: GrantRecord }
  | { kind: 'invalid' };

/**
 * How long after a refresh token was used its client may present it again and get a new
 * successor, as long as the successor it was given has never been used: the answer that
 * carried the successor was lost (a dropped connection), and without this the client's
 * repeat would read as a replay and end the sign-in. The successor it replaces counts as
 * used, so whoever holds it and presents it later reveals a replay as before (RFC 9700,
 * section 4.14.2; the "reuse interval" of other authorization servers).
 */
export const REFRESH_REPEAT_GRACE_MS = 60_000;

/** A stored refresh token, as a rotation reads it. */
export interface RefreshTokenState {
  expiresAt: number;
  usedAt: number | null;
  /** The token its use issued (null when it was issued before successors were kept). */
  successorHash: string | null;
}

/**
 * What presenting a refresh token does: `rotate` (unused and valid), `rotate-again` (the
 * client repeating a use whose answer it never got, see REFRESH_REPEAT_GRACE_MS), `reused`
 * (a replay: the grant is revoked) or `invalid`. `successorUsedAt` is the successor's own
 * `used_at` (undefined: no successor is known).
 */
export function presentedRefreshToken(token: RefreshTokenState, successorUsedAt: number | null | undefined, grantRevoked: boolean, now: number): 'rotate' | 'rotate-again' | 'reused' | 'invalid' {
  if (token.usedAt === null) return token.expiresAt <= now || grantRevoked ? 'invalid' : 'rotate';
  const repeat = token.successorHash !== null && successorUsedAt === null && now - token.usedAt <= REFRESH_REPEAT_GRACE_MS;
  return repeat && !grantRevoked && token.expiresAt > now ? 'rotate-again' : 'reused';
}

export interface OAuthStore {
  saveClient(clientId: string, metadata: Record<string, unknown>): Promise<void>;
  getClient(clientId: string): Promise<Record<string, unknown> | undefined>;

  /** The signing key; the candidate is stored when there is none yet (the first instance wins). */
  signingKey(candidate: StoredSigningKey): Promise<StoredSigningKey>;

  saveCode(code: NewAuthorizationCode): Promise<void>;
  findCode(codeHash: string): Promise<AuthorizationCodeRecord | undefined>;
  /**
   * Exchanges an unused, unexpired code for a new grant and its first refresh token in one
   * transaction; false (nothing written) when the code was used or expired meanwhile.
   */
  exchangeCode(codeHash: string, grant: Omit<GrantRecord, 'revokedAt'>, refresh: NewRefreshToken, now: number): Promise<boolean>;

  grant(grantId: string): Promise<GrantRecord | undefined>;
  /**
   * Marks the old refresh token used and stores its successor, atomically. A used token revokes
   * its grant, unless presentedRefreshToken() finds it repeated by its own client.
   */
  rotateRefreshToken(oldHash: string, next: Omit<NewRefreshToken, 'grantId'>, now: number): Promise<Rotation>;
  /** The grant a refresh token belongs to, used or not. */
  grantOfRefreshToken(tokenHash: string): Promise<GrantRecord | undefined>;
  /**
   * Ends a grant, or, when its code was not exchanged yet, withdraws that code (expires it) so
   * that the grant is never opened; false when there was neither an active grant nor a code to withdraw.
   */
  revokeGrant(grantId: string, now: number): Promise<boolean>;
  /** The member's active grants (assistant and extension sign-ins), newest first. */
  activeGrants(memberId: string, now: number): Promise<ActiveGrant[]>;
  /** Revokes every grant of the member; returns how many were still active (as activeGrants lists them): only those did this end. */
  revokeMemberGrants(memberId: string, now: number): Promise<number>;

  /**
   * Deletes what sign-ins that ended before `cutoff` leave (./oauth-rows.ts,
   * PURGE_ENDED_SIGN_INS_SQL) in one transaction; returns the rows deleted.
   */
  purgeEnded(cutoff: number): Promise<number>;

  /** The member, when not revoked. */
  activeMember(memberId: string): Promise<MemberRecord | undefined>;
}
