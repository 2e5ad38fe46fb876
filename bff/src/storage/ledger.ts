import type { BffError, Product, ResultSource } from '@redline/shared';
import type { ConsoleStore } from './console-store.ts';
import type { KeyedOperation } from './idempotency-keys.ts';
import type { OAuthStore } from './oauth-store.ts';

/**
 * The BFF's durable state: members and the operation ledger. The embedded implementation
 * is SQLite (./sqlite.ts); the interface is asynchronous so that a PostgreSQL one can be
 * added for deployments with several BFF instances.
 */

export type Budgets = Partial<Record<Product, number>>;
/** A change of budgets: a number sets a product's, null removes it, a product left out keeps its own. */
export type BudgetChange = Partial<Record<Product, number | null>>;

/** Admins manage the team in the console; members see their own usage. */
export type Role = 'member' | 'admin';
export const ROLES: readonly Role[] = ['member', 'admin'];

export interface MemberRecord {
  id: string;
  name: string;
  tokenPrefix: string;
  budgets: Budgets;
  role: Role;
  /** Requests per rate window set in the console; null: the BFF's default (BFF_MEMBER_RATE_LIMIT). */
  rateLimit: number | null;
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
  /** The upstream Idempotency-Key, stored before the first attempt (derived from the operation; random before that rule). */
  idempotencyKey: string;
  /** The exact request bytes sent upstream (for a large document: the client's request). Dropped when the operation settles. */
  requestBody: string | null;
  parentOperationId: string | null;
  partIndex: number | null;
  state: OperationState;
  source: ResultSource;
  result: unknown;
  error: StoredError | null;
  wordsCharged: number;
  attempts: number;
  /**
   * Of those attempts, how many are known to have run nothing upstream: every call they made was
   * refused before the upstream looks up the Idempotency-Key's record (a 429, a refusal of the key
   * or account, an abort that charged nothing) or never sent. An attempt not known so (counted
   * before it is sent) may have run and been charged: see engine.ts, #attempt's mayHaveRun.
   */
  attemptsNotRun: number;
  /**
   * A pending operation whose last attempt may have run earlier and was then refused before the
   * upstream's record (the key or account refused, no key of its account, a wrong address): it is
   * held pending, never settled failed (its charge would be lost), and its resumes back off.
   * Null otherwise (and once it settles).
   */
  held: HeldOperation | null;
  /** How many upstream operations the text needs: 1, or the parts of a large document. */
  parts: number;
  /** The key the upstream said it accepted, when it differs from ours or was server-generated. */
  acceptedKey: string | null;
  acceptedKeySource: string | null;
  /** When the retention purge reduced this settled operation to its metadata (result and error gone). */
  expiredAt: string | null;
  /**
   * The upstream key the operation started with (a console key's id, `env` for the
   * environment's key; null before keys were recorded): its retries keep it unless the
   * active key belongs to the same upstream account (upstream/keyring.ts).
   */
  upstreamKeyId: string | null;
}

/** Why a pending operation is held, since when its resumes back off, and when it is resumed next. */
export interface HeldOperation {
  error: StoredError;
  /** Consecutive attempts held so (the back-off doubles with each). */
  resumes: number;
  /** Not resumed unasked before this time (ISO); a restart, the ledger's recovery and a client's repeat resume it at once. */
  resumeAfter: string;
}

/** What an attempt whose outcome is open (the operation stays pending) leaves in the ledger. */
export interface OpenOutcome {
  /** Nothing it sent can have run upstream: its attempt is counted as one that did not run. */
  ranNothing: boolean;
  /** Held pending (HeldOperation) with this refusal until `resumeAfter`; null clears a hold. */
  held: { error: StoredError; resumeAfter: Date } | null;
}

/**
 * A failed operation past the retention period may run again when it was one upstream call that
 * charged nothing: nothing it did is lost, and its repeat brings the text. (A document's parts
 * and anything charged are gone with their results: such a repeat is refused as expired.) The
 * ledgers' reopenOperation holds the same rule in SQL: REOPENS_AFTER_RETENTION.
 */
export const runsAgainAfterRetention = (record: OperationRecord): boolean =>
  record.state === 'failed' && record.parts === 1 && record.parentOperationId === null && record.wordsCharged === 0;
export const REOPENS_AFTER_RETENTION = '(expired_at IS NULL OR (parts = 1 AND parent_operation_id IS NULL AND words_charged = 0))';
/** A pending operation none of whose attempts may have run upstream (engine.ts, mayHaveRunBefore): countAttempt moves it to the key in use. */
export const UNSENT = "(state = 'pending' AND attempts = attempts_not_run)";

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
> & {
  /** Words held against the member's budget while the operation is pending (top level only; parts hold 0). */
  wordsReserved: number;
  /** The upstream key it starts with; null in offline mode. */
  upstreamKeyId?: string | null;
};

/**
 * How a reservation went. A top-level operation reserves its words against the member's
 * budget in the same statement as its insert (or reopen), so concurrent operations (on any
 * instance) can never together pass the budget.
 */
export type InsertResult = { status: 'inserted' } | { status: 'over_budget'; remainingWords: number };

/** How reopening a failure went; `changed`: it was no longer a kept failure (reopened meanwhile by another request or instance, or purged). */
export type ReopenResult = InsertResult | { status: 'changed' };

/**
 * How opening an operation went: the stored record either way (the new one, or the one
 * stored before under this member and operation id, whoever inserted it), or a refusal.
 */
export type OpenResult =
  | { status: 'inserted'; record: OperationRecord }
  | { status: 'exists'; record: OperationRecord }
  | { status: 'over_budget'; remainingWords: number };

/** Which operation: its member, its id, and its product (whose usage it counts in). */
export type OperationKey = Pick<OperationRecord, 'memberId' | 'operationId' | 'product'>;

export interface Completion {
  result: unknown;
  source: ResultSource;
  wordsCharged: number;
  acceptedKey?: string | undefined;
  acceptedKeySource?: string | undefined;
}

export interface Ledger {
  /**
   * Adds a member. `refuse` is handed the members as they are just before the insert, with other
   * additions held back until it is done (on every instance), and throws to refuse this one: a
   * name that reads as another's is refused even when two administrators add them at once.
   */
  addMember(member: NewMember, refuse?: (members: readonly MemberRecord[]) => void): Promise<void>;
  /** Adds the member, an administrator, only while there are no members at all (one statement): true for exactly one of several instances starting at once. */
  addFirstMember(member: NewMember): Promise<boolean>;
  memberByTokenHash(tokenHash: string): Promise<MemberRecord | undefined>;
  listMembers(): Promise<MemberRecord[]>;
  /** Revokes an active member's token; false when there is no such active member, or when it is the team's last active administrator. */
  revokeMember(memberId: string): Promise<boolean>;
  countActiveMembers(): Promise<number>;

  findOperation(memberId: string, operationId: string): Promise<OperationRecord | undefined>;
  /**
   * The upstream Idempotency-Key of a new operation, derived from it under this ledger's
   * secret (./idempotency-keys.ts): the same operation gets the same key every time, on every
   * instance, even after the ledger lost it.
   */
  idempotencyKeyFor(operation: KeyedOperation): Promise<string>;
  /**
   * Finds or inserts an operation: inserts the first operation with the rest (a document's
   * parts) in one transaction, reserving the first one's words against the member's budget,
   * and returns the stored record; nothing is inserted when the first already exists or the
   * budget is short. A single operation (one given, no parts) is one statement, and its first
   * attempt is counted with its insert (attempts = 1): the caller forwards it next.
   */
  openOperation(operations: NewOperation[]): Promise<OpenResult>;
  /**
   * Puts a settled failure back to pending to run it again, with its request bytes (dropped
   * when it failed; the client's repeat brings the same text) and its words reserved anew.
   * `upstreamKeyId`: the key it starts with now, for a failure that never ran upstream (null or
   * absent: the one it started with).
   */
  reopenOperation(memberId: string, operationId: string, requestBody: string, wordsReserved: number, upstreamKeyId?: string | null): Promise<ReopenResult>;
  /** The parts of a large document's operation, in order. */
  partsOf(memberId: string, parentOperationId: string): Promise<OperationRecord[]>;
  /**
   * Counts an attempt beyond the one a single operation's insert counted, and returns the upstream
   * key it is sent with, in one statement: `keyInUse` for a pending operation none of whose
   * attempts may have run (UNSENT: in no account's records yet), else the key it holds. So two
   * requests or instances attempting it at once send it with one key, whichever counted first.
   */
  countAttempt(memberId: string, operationId: string, keyInUse?: string | null): Promise<string | null>;
  /**
   * Records what an attempt that left the operation pending learnt (OpenOutcome): nothing when it
   * is no longer pending. A hold counts one more held attempt (the back-off's exponent); no hold
   * resets it.
   */
  noteOpenOutcome(memberId: string, operationId: string, outcome: OpenOutcome): Promise<void>;
  /** Top-level operations held pending (HeldOperation), a member's or everyone's, oldest first. */
  heldOperations(memberId?: string): Promise<OperationRecord[]>;
  /**
   * Settles an operation as completed; false when it already was (another request or instance
   * completed it first), and nothing changed: that caller's answer is a replay of the charge.
   */
  completeOperation(operation: OperationKey, completion: Completion): Promise<boolean>;
  /**
   * Settles an operation as failed and drops the request bytes (of a document's parts too). `wordsCharged`: what the upstream charged for a failed
   * document's completed parts, which stays counted against the member's budget.
   */
  failOperation(memberId: string, operationId: string, error: StoredError, wordsCharged?: number): Promise<void>;
  /**
   * Puts an operation back to pending, with its request bytes, when another request or instance
   * settled it failed while this one's attempt of the same key has an open outcome (it may run
   * upstream and be charged, and a failed operation is never resumed). Nothing when it is not
   * failed. It holds no more words of the budget than it was charged.
   */
  keepPending(memberId: string, operationId: string, requestBody: string): Promise<void>;
  /**
   * Retention: operations settled before `settledBefore` keep only what usage and exactly-once
   * need (ids, fingerprint, key, words, times); their results and errors are deleted. Parts of
   * a document still pending are kept. Returns how many operations were reduced.
   */
  purgeSettled(settledBefore: Date): Promise<number>;
  /** Top-level operations left pending (by a crash or a deadline), oldest first. */
  pendingOperations(): Promise<OperationRecord[]>;
  /**
   * The Idempotency-Key of one operation the upstream completed with this upstream key (sent
   * with it, not a key the upstream generated): a key the upstream account of that key holds a
   * record of, even past the replay window. Undefined when there is none.
   */
  completedKeyOf(upstreamKeyId: string): Promise<{ idempotencyKey: string; product: Product } | undefined>;
  /**
   * Words charged per product for a member: every completed upstream operation, that is
   * single operations and the parts of large documents (so a document's parts stay counted
   * when another part failed or is still pending), never a document and its parts twice.
   */
  wordsCharged(memberId: string): Promise<Record<Product, number>>;
  /**
   * Words counted against a member's budgets per product: charged by settled operations plus
   * reserved by pending ones. Kept by the database itself (triggers) on every insert and
   * state change of a top-level operation.
   */
  budgetUsage(memberId: string): Promise<Record<Product, number>>;

  ping(): Promise<void>;
  close(): Promise<void>;
  /** The file of a file-based ledger (SQLite), where its faults can be diagnosed. */
  readonly sqliteFile?: string | undefined;

  /** The OAuth authorization server's storage on this ledger's connection (./oauth-store.ts). */
  oauthStore(): Promise<OAuthStore>;

  /** The team console's storage on this ledger's connection (./console-store.ts). */
  consoleStore(): Promise<ConsoleStore>;
}
