import type { ActiveGrant, AuthorizationCodeRecord, GrantRecord } from './oauth-store.ts';

/** OAuth rows as both SQL stores keep them (the same column names). */

export interface GrantRow {
  id: string;
  client_id: string;
  member_id: string;
  resource: string;
  scopes: string;
  created_at: number | string;
  revoked_at: number | string | null;
}

export interface CodeRow {
  code_hash: string;
  client_id: string;
  member_id: string;
  redirect_uri: string;
  /** SQLite: 0 or 1; PostgreSQL: a boolean. */
  redirect_uri_sent: number | boolean;
  code_challenge: string;
  resource: string;
  scopes: string;
  expires_at: number | string;
  used_at: number | string | null;
  grant_id: string | null;
}

// PostgreSQL hands BIGINT back as strings; both dialects share these mappers.
const num = (value: number | string) => Number(value);
const numOrNull = (value: number | string | null) => (value === null ? null : Number(value));

export const toGrant = (row: GrantRow): GrantRecord => ({
  id: row.id,
  clientId: row.client_id,
  memberId: row.member_id,
  resource: row.resource,
  scopes: JSON.parse(row.scopes) as string[],
  createdAt: num(row.created_at),
  revokedAt: numOrNull(row.revoked_at),
});

export type ActiveGrantRow = GrantRow & { refresh_expires_at: number | string; redirect_uri: string | null };

export const toActiveGrant = (row: ActiveGrantRow): ActiveGrant => ({ ...toGrant(row), refreshExpiresAt: num(row.refresh_expires_at), redirectUri: row.redirect_uri });

/** Both dialects: a refresh token `t` still usable at `now`: a grant holding one is active (a sign-in not ended). */
const LIVE_REFRESH_TOKEN = (nowParameter: string) => `t.used_at IS NULL AND t.expires_at > ${nowParameter}`;

/**
 * Both dialects, in this order, in one transaction, with parameters now and the grant's id: withdraws
 * the grant's code if it was not exchanged yet, then revokes the grant. The code first: on
 * PostgreSQL an exchange committing meanwhile holds the code's row, so the code's statement waits
 * for it (and finds the code used), and the grant's statement, which starts after, sees its grant.
 * A withdrawn code expires at 0, not now: an exchange under way read its clock earlier (or on
 * another instance, whose clock may be behind), and would find a code expiring now still valid.
 */
export const REVOKE_GRANT_SQL = (nowParameter: string, grantParameter: string) => [
  `UPDATE oauth_codes SET expires_at = 0 WHERE grant_id = ${grantParameter} AND used_at IS NULL AND expires_at > ${nowParameter}`,
  `UPDATE oauth_grants SET revoked_at = ${nowParameter} WHERE id = ${grantParameter} AND revoked_at IS NULL`,
];

/**
 * Revokes a member's grants; each row returned says whether the grant was still live (an unused
 * refresh token not past its expiry, as ACTIVE_GRANTS_SQL lists them), so that only those are
 * counted as ended.
 */
export const REVOKE_MEMBER_GRANTS_SQL = (nowParameter: string, memberParameter: string) =>
  `UPDATE oauth_grants SET revoked_at = ${nowParameter} WHERE member_id = ${memberParameter} AND revoked_at IS NULL
   RETURNING EXISTS (SELECT 1 FROM oauth_refresh_tokens t WHERE t.grant_id = oauth_grants.id AND ${LIVE_REFRESH_TOKEN(nowParameter)}) AS live`;

/**
 * Both dialects: a grant is active while it is not revoked and its unused refresh token has not
 * expired. Its redirect URI is its code's: the one the consent page showed (a client may register ten).
 */
export const ACTIVE_GRANTS_SQL = (memberParameter: string, nowParameter: string) =>
  `SELECT g.*, t.expires_at AS refresh_expires_at, (SELECT c.redirect_uri FROM oauth_codes c WHERE c.grant_id = g.id AND c.used_at IS NOT NULL) AS redirect_uri
   FROM oauth_grants g JOIN oauth_refresh_tokens t ON t.grant_id = g.id
   WHERE g.member_id = ${memberParameter} AND g.revoked_at IS NULL AND ${LIVE_REFRESH_TOKEN(nowParameter)}
   ORDER BY g.created_at DESC, g.id`;

export const toCode = (row: CodeRow): AuthorizationCodeRecord => ({
  codeHash: row.code_hash,
  clientId: row.client_id,
  memberId: row.member_id,
  redirectUri: row.redirect_uri,
  redirectUriSent: Boolean(row.redirect_uri_sent),
  codeChallenge: row.code_challenge,
  resource: row.resource,
  scopes: JSON.parse(row.scopes) as string[],
  expiresAt: num(row.expires_at),
  usedAt: numOrNull(row.used_at),
  grantId: row.grant_id,
});


/**
 * Both dialects, in this order, each with the cutoff as its one parameter: what an ended
 * sign-in leaves behind once it has been over for the keeping period. A grant has ended when it
 * was revoked, or when its unused refresh token expired (nothing can use it again); with it go
 * its code and tokens. Codes never exchanged, and used refresh tokens past their expiry (a
 * replay of one is refused either way), go too (a code names its grant from its issue: one
 * never exchanged is told by its used_at). A live grant keeps its unused token and its code.
 */
export const PURGE_ENDED_SIGN_INS_SQL = (cutoff: string) => {
  const ended = `SELECT g.id FROM oauth_grants g
    WHERE g.revoked_at < ${cutoff}
       OR (g.revoked_at IS NULL AND NOT EXISTS (
             SELECT 1 FROM oauth_refresh_tokens t WHERE t.grant_id = g.id AND t.used_at IS NULL AND t.expires_at >= ${cutoff}))`;
  return [
    `DELETE FROM oauth_codes WHERE (used_at IS NULL AND expires_at < ${cutoff}) OR grant_id IN (${ended})`,
    `DELETE FROM oauth_refresh_tokens WHERE (used_at IS NOT NULL AND expires_at < ${cutoff}) OR grant_id IN (${ended})`,
    `DELETE FROM oauth_grants WHERE id IN (${ended})`,
  ];
};
