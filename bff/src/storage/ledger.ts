import type { BffError, Product, ResultSource } from '@redline/shared';

/**
 * The BFF's durable state: members and the operation ledger. The embedded implementation
 * is SQLite (./sqlite.ts); the interface is asynchronous so that a PostgreSQL one can be
 * added for deployments with several BFF instances.
 */

export type Budgets = Partial<Record<Product, number>>;

export interface MemberRecord {
  id: string;
  name: string;
  tokenPrefix: string;
  budgets: Budgets;
  createdAt: string;
  revokedAt: string | null;
}

export interface NewMember {
  id: string;
  name: string;
  tokenHash: string;
  tokenPrefix: string;
  budgets: Budgets;
}

export type OperationState = 'pending' | 'completed' | 'failed';

/** An error the BFF answered for an operation, with its HTTP status. */
export interface StoredError {
  status: number;
  error: BffError;
}

export interface OperationRecord {
  memberId: string;
  operationId: string;
  product: Product;
  /** sha256 of product, version or model, and text: detects an id reused for other work. */
  fingerprint: string;
  /** The upstream Idempotency-Key, assigned once before the first attempt. */
  idempotencyKey: string;
  /** The exact request bytes sent upstream (for a large document: the client's request). Dropped on completion. */
  requestBody: string | null;
  parentOperationId: string | null;
  partIndex: number | null;
  state: OperationState;
  source: ResultSource;
  result: unknown;
  error: StoredError | null;
  wordsCharged: number;
  attempts: number;
  /** How many upstream operations the text needs: 1, or the parts of a large document. */
  parts: number;
  /** The key the upstream said it accepted, when it differs from ours or was server-generated. */
  acceptedKey: string | null;
  acceptedKeySource: string | null;
}

export type NewOperation = Pick<
  OperationRecord,
  | 'memberId'
  | 'operationId'
  | 'product'
  | 'fingerprint'
  | 'idempotencyKey'
  | 'requestBody'
  | 'parentOperationId'
  | 'partIndex'
  | 'parts'
  | 'source'
>;

export interface Completion {
  result: unknown;
  source: ResultSource;
  wordsCharged: number;
  acceptedKey?: string | undefined;
  acceptedKeySource?: string | undefined;
}

export interface Ledger {
  addMember(member: NewMember): Promise<void>;
  memberByTokenHash(tokenHash: string): Promise<MemberRecord | undefined>;
  listMembers(): Promise<MemberRecord[]>;
  /** Revokes by id or name; false when there is no such active member. */
  revokeMember(idOrName: string): Promise<boolean>;
  countActiveMembers(): Promise<number>;

  findOperation(memberId: string, operationId: string): Promise<OperationRecord | undefined>;
  /** Inserts new operations in one transaction; false (and nothing inserted) when the first already exists. */
  insertOperations(operations: NewOperation[]): Promise<boolean>;
  /** The parts of a large document's operation, in order. */
  partsOf(memberId: string, parentOperationId: string): Promise<OperationRecord[]>;
  countAttempt(memberId: string, operationId: string): Promise<void>;
  completeOperation(memberId: string, operationId: string, completion: Completion): Promise<void>;
  failOperation(memberId: string, operationId: string, error: StoredError): Promise<void>;
  /** Top-level operations left pending (by a crash or a deadline), oldest first. */
  pendingOperations(): Promise<OperationRecord[]>;
  /** Words charged per product for a member's completed top-level operations. */
  wordsCharged(memberId: string): Promise<Record<Product, number>>;

  ping(): Promise<void>;
  close(): Promise<void>;
}
