import type { Product } from '@redline/shared';
import type { MemberRecord, NewOperation, OperationRecord, StoredError } from './ledger.ts';

/**
 * Rows as both SQL ledgers store them (the same column names). SQLite hands JSON back as
 * text and times as ISO strings; PostgreSQL hands back parsed JSONB and Date objects, and
 * BIGINT as a string. These mappers accept either.
 */

export interface MemberRow {
  id: string;
  name: string;
  token_prefix: string;
  budgets: string | MemberRecord['budgets'];
  role?: MemberRecord['role'];
  rate_limit?: number | null;
  created_at: string | Date;
  revoked_at: string | Date | null;
}

export interface OperationRow {
  member_id: string;
  operation_id: string;
  product: Product;
  fingerprint: string;
  idempotency_key: string;
  request_body: string | null;
  parent_operation_id: string | null;
  part_index: number | null;
  parts: number;
  state: OperationRecord['state'];
  source: OperationRecord['source'];
  result: unknown;
  error: string | StoredError | null;
  words_charged: number | string;
  attempts: number;
  attempts_not_run?: number;
  held_error?: string | StoredError | null;
  held_resumes?: number;
  resume_after?: string | Date | null;
  accepted_key: string | null;
  accepted_key_source: string | null;
  expired_at: string | Date | null;
  upstream_key_id?: string | null;
  /** PostgreSQL's open statements: true for the row this statement inserted, false for one stored before. */
  inserted_now?: boolean;
}

const json = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;
const time = (value: string | Date) => (value instanceof Date ? value.toISOString() : value);

export const toMember = (row: MemberRow): MemberRecord => ({
  id: row.id,
  name: row.name,
  tokenPrefix: row.token_prefix,
  budgets: json(row.budgets),
  role: row.role ?? 'member',
  rateLimit: row.rate_limit ?? null,
  createdAt: time(row.created_at),
  revokedAt: row.revoked_at === null ? null : time(row.revoked_at),
});

export const toOperation = (row: OperationRow): OperationRecord => ({
  memberId: row.member_id,
  operationId: row.operation_id,
  product: row.product,
  fingerprint: row.fingerprint,
  idempotencyKey: row.idempotency_key,
  requestBody: row.request_body,
  parentOperationId: row.parent_operation_id,
  partIndex: row.part_index,
  state: row.state,
  source: row.source,
  result: row.result === null ? null : json(row.result),
  error: row.error === null ? null : json<StoredError>(row.error),
  wordsCharged: Number(row.words_charged),
  attempts: row.attempts,
  attemptsNotRun: row.attempts_not_run ?? 0,
  held:
    row.state === 'pending' && row.held_error != null && row.resume_after != null
      ? { error: json<StoredError>(row.held_error), resumes: row.held_resumes ?? 1, resumeAfter: time(row.resume_after) }
      : null,
  parts: row.parts,
  acceptedKey: row.accepted_key,
  acceptedKeySource: row.accepted_key_source,
  expiredAt: row.expired_at === null ? null : time(row.expired_at),
  upstreamKeyId: row.upstream_key_id ?? null,
});

/** A new operation's values in the column order both ledgers insert them. */
export const newOperationValues = (operation: NewOperation) => [
  operation.memberId,
  operation.operationId,
  operation.product,
  operation.fingerprint,
  operation.idempotencyKey,
  operation.requestBody,
  operation.parentOperationId,
  operation.partIndex,
  operation.parts,
  operation.source,
  operation.wordsReserved,
  operation.upstreamKeyId ?? null,
];

/**
 * Both dialects: the operations whose charged words count in usage, once each: those with no
 * parts (a single check, or a part of a large document, counted as soon as it settles, while its
 * document may still be running). A document is the sum of its parts. One pending again after a
 * charge (an answer it could not read, repeated while an open outcome keeps it pending) keeps
 * those words: a pending operation has no charged words otherwise.
 */
export const CHARGED_WORDS_COUNTED = `words_charged > 0 AND NOT EXISTS (
  SELECT 1 FROM operations part WHERE part.member_id = operations.member_id AND part.parent_operation_id = operations.operation_id)`;

/**
 * Both dialects: the words a failed operation is settled with (in an UPDATE of `operations`),
 * never fewer than it holds already nor than its parts (of a document) were charged, as the
 * ledger holds them at the settlement. The engine's count was read before: another instance may
 * have settled the same operation with a charge since (a part it completed, an answer it could not
 * read), and a smaller count written after it would lose those words from usage and the budget.
 */
export const FAILED_CHARGE_AT_LEAST = (words: string, memberId: string, operationId: string) =>
  `(SELECT max(charges.words) FROM (
      SELECT CAST(${words} AS BIGINT) AS words
      UNION ALL SELECT operations.words_charged
      UNION ALL SELECT coalesce(sum(part.words_charged), 0) FROM operations part WHERE part.member_id = ${memberId} AND part.parent_operation_id = ${operationId}
    ) AS charges)`;
