import type { AuditEntry, SessionRecord } from './console-store.ts';

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
