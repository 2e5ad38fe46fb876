import { existsSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { PRODUCTS, type Product } from '@redline/shared';
import { REOPENS_AFTER_RETENTION, UNSENT, type Completion, type Ledger, type MemberRecord, type NewMember, type NewOperation, type OpenOutcome, type OpenResult, type OperationKey, type OperationRecord, type ReopenResult, type StoredError } from './ledger.ts';
import { classifyLedgerError } from './faults.ts';
import { SQLITE_ANOTHER_ADMIN } from './last-admin.ts';
import { KEY_SECRET_QUERY, deriveIdempotencyKey, type KeyedOperation } from './idempotency-keys.ts';
import { createPrivateFile, ensurePrivateDir, ensurePrivateFile, type PermissionLog } from './private-files.ts';
import { SqliteConsoleStore } from './console-sqlite.ts';
import type { ConsoleStore } from './console-store.ts';
import { SqliteOAuthStore } from './oauth-sqlite.ts';
import { WriteBatch } from './sqlite-batch.ts';
import { SqliteCheckpointer } from './sqlite-checkpointer.ts';
import type { OAuthStore } from './oauth-store.ts';
import { CHARGED_WORDS_COUNTED, FAILED_CHARGE_AT_LEAST, newOperationValues, toMember, toOperation, type MemberRow, type OperationRow } from './rows.ts';

const MIGRATIONS = [
  `CREATE TABLE members (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL UNIQUE,
     token_hash TEXT NOT NULL UNIQUE,
     token_prefix TEXT NOT NULL,
     budgets TEXT NOT NULL DEFAULT '{}',
     created_at TEXT NOT NULL,
     revoked_at TEXT
   );
   CREATE TABLE operations (
     member_id TEXT NOT NULL,
     operation_id TEXT NOT NULL,
     product TEXT NOT NULL,
     fingerprint TEXT NOT NULL,
     idempotency_key TEXT NOT NULL UNIQUE,
     request_body TEXT,
     parent_operation_id TEXT,
     part_index INTEGER,
     state TEXT NOT NULL CHECK (state IN ('pending', 'completed', 'failed')),
     source TEXT NOT NULL,
     result TEXT,
     error TEXT,
     words_charged INTEGER NOT NULL DEFAULT 0,
     attempts INTEGER NOT NULL DEFAULT 0,
     parts INTEGER NOT NULL DEFAULT 1,
     accepted_key TEXT,
     accepted_key_source TEXT,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL,
     PRIMARY KEY (member_id, operation_id)
   );
   CREATE INDEX operations_pending ON operations (created_at) WHERE state = 'pending' AND parent_operation_id IS NULL;
   CREATE INDEX operations_parts ON operations (member_id, parent_operation_id, part_index);`,
  // Budgets: a pending top-level operation holds its predicted words, a settled one its charged
  // words. The triggers keep member_usage equal to that sum and refuse (inside the insert's or
  // reopen's own statement) a reservation that would pass the member's budget.
  `ALTER TABLE operations ADD COLUMN words_reserved INTEGER NOT NULL DEFAULT 0;
   CREATE TABLE member_usage (
     member_id TEXT NOT NULL,
     product TEXT NOT NULL,
     words INTEGER NOT NULL DEFAULT 0,
     PRIMARY KEY (member_id, product)
   );
   INSERT INTO member_usage (member_id, product, words)
     SELECT member_id, product, sum(CASE state WHEN 'pending' THEN words_reserved ELSE words_charged END)
     FROM operations WHERE parent_operation_id IS NULL GROUP BY member_id, product;
   CREATE TRIGGER operations_reserve AFTER INSERT ON operations WHEN NEW.parent_operation_id IS NULL
   BEGIN
     INSERT OR IGNORE INTO member_usage (member_id, product, words) VALUES (NEW.member_id, NEW.product, 0);
     UPDATE member_usage SET words = words + (CASE NEW.state WHEN 'pending' THEN NEW.words_reserved ELSE NEW.words_charged END)
       WHERE member_id = NEW.member_id AND product = NEW.product;
     SELECT RAISE(ABORT, 'member_budget_exceeded') FROM members m JOIN member_usage u ON u.member_id = m.id AND u.product = NEW.product
       WHERE m.id = NEW.member_id AND NEW.state = 'pending' AND u.words > json_extract(m.budgets, '$.' || NEW.product);
   END;
   CREATE TRIGGER operations_settle AFTER UPDATE OF state, words_charged, words_reserved ON operations WHEN NEW.parent_operation_id IS NULL
   BEGIN
     UPDATE member_usage SET words = words
         + (CASE NEW.state WHEN 'pending' THEN NEW.words_reserved ELSE NEW.words_charged END)
         - (CASE OLD.state WHEN 'pending' THEN OLD.words_reserved ELSE OLD.words_charged END)
       WHERE member_id = NEW.member_id AND product = NEW.product;
     SELECT RAISE(ABORT, 'member_budget_exceeded') FROM members m JOIN member_usage u ON u.member_id = m.id AND u.product = NEW.product
       WHERE m.id = NEW.member_id AND NEW.state = 'pending' AND OLD.state <> 'pending' AND u.words > json_extract(m.budgets, '$.' || NEW.product);
   END;`,
  // Retention: when the purge reduced a settled operation to its metadata.
  `ALTER TABLE operations ADD COLUMN expired_at TEXT;
   CREATE INDEX operations_settled ON operations (updated_at) WHERE state <> 'pending' AND expired_at IS NULL;`,
  // Readiness writes here: a full disk or a read-only file only shows on a write.
  `CREATE TABLE heartbeat (id INTEGER PRIMARY KEY CHECK (id = 1), at TEXT NOT NULL);`,
  // Roles for the team console: every member is a member, except the first-run owner (the
  // earliest member named "owner"), who becomes an admin. New first-run owners are made admin
  // by members.ts.
  `ALTER TABLE members ADD COLUMN role TEXT NOT NULL DEFAULT 'member' CHECK (role IN ('member', 'admin'));
   UPDATE members SET role = 'admin' WHERE id = (SELECT id FROM members WHERE name = 'owner' ORDER BY created_at, id LIMIT 1);`,
  // The upstream key an operation started with (its retries keep it unless the active key shares
  // its account), and per-member rate limits set in the console (NULL: BFF_MEMBER_RATE_LIMIT).
  `ALTER TABLE operations ADD COLUMN upstream_key_id TEXT;
   ALTER TABLE members ADD COLUMN rate_limit INTEGER CHECK (rate_limit > 0);`,
  // The secret the upstream Idempotency-Keys are derived under (idempotency-keys.ts), made once.
  `CREATE TABLE ledger_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL);
   INSERT INTO ledger_secrets (name, value) VALUES ('idempotency_keys', lower(hex(randomblob(32))));`,
  // A return to pending is refused over the budget only when it holds more words than before, as
  // on PostgreSQL: ledger.keepPending reserves what was charged, and a member already over the
  // budget (charged more than predicted) must not lose that operation's charge to a refusal.
  `DROP TRIGGER IF EXISTS operations_settle;
   CREATE TRIGGER operations_settle AFTER UPDATE OF state, words_charged, words_reserved ON operations WHEN NEW.parent_operation_id IS NULL
   BEGIN
     UPDATE member_usage SET words = words
         + (CASE NEW.state WHEN 'pending' THEN NEW.words_reserved ELSE NEW.words_charged END)
         - (CASE OLD.state WHEN 'pending' THEN OLD.words_reserved ELSE OLD.words_charged END)
       WHERE member_id = NEW.member_id AND product = NEW.product;
     SELECT RAISE(ABORT, 'member_budget_exceeded') FROM members m JOIN member_usage u ON u.member_id = m.id AND u.product = NEW.product
       WHERE m.id = NEW.member_id AND NEW.state = 'pending' AND OLD.state <> 'pending' AND u.words > json_extract(m.budgets, '$.' || NEW.product)
         AND (CASE NEW.state WHEN 'pending' THEN NEW.words_reserved ELSE NEW.words_charged END)
           <> (CASE OLD.state WHEN 'pending' THEN OLD.words_reserved ELSE OLD.words_charged END);
   END;`,
  // Attempts known to have run nothing upstream (a 429, a refusal of the key), and operations held
  // pending after a refusal of the key or account that followed an attempt that may have run
  // (ledger.ts, HeldOperation): why, how many times in a row, and when to resume them next.
  `ALTER TABLE operations ADD COLUMN attempts_not_run INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE operations ADD COLUMN held_error TEXT;
   ALTER TABLE operations ADD COLUMN held_resumes INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE operations ADD COLUMN resume_after TEXT;`,
];

function migrate(db: Database.Database): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  for (let next = version; next < MIGRATIONS.length; next++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[next]!);
      db.pragma(`user_version = ${next + 1}`);
    }).immediate();
  }
}

const BUDGET_EXCEEDED = 'member_budget_exceeded';
/** SQLite's own `wal_autocheckpoint`, for when the checkpoint thread is not running. */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;
const isBudgetRefusal = (error: unknown) => error instanceof Database.SqliteError && error.message === BUDGET_EXCEEDED;

export interface SqliteLedgerOptions {
  /** Told when a file or folder open to other users was narrowed. */
  onPermissionsNarrowed?: PermissionLog;
  /** How long a write waits for another process's lock before failing with SQLITE_BUSY. */
  busyTimeoutMs?: number;
  /**
   * FULL (the default): each commit reaches the disk before the step returns. NORMAL: the last
   * commits before a power cut may be lost (a crash of the process loses nothing either way).
   * A single operation's insert and its settlement never wait (see WriteBatch): their loss is
   * repaired by the repeat or the resume, under the same derived key.
   */
  synchronous?: 'FULL' | 'NORMAL';
  /** Checkpoints on a thread of their own instead of inside a commit (./sqlite-checkpointer.ts; BFF_SQLITE_CHECKPOINTS=thread). */
  checkpointInThread?: boolean;
  /** Told when that thread stopped on its own (the ledger checkpoints inside commits again). */
  onCheckpointerStopped?: (reason: string) => void;
}

/** The embedded ledger: one SQLite file in WAL mode, each step committed before it returns. */
export class SqliteLedger implements Ledger {
  readonly #statements = new Map<string, Database.Statement>();
  readonly #file: string;
  readonly #log: PermissionLog | undefined;
  readonly #busyTimeoutMs: number;
  readonly #synchronous: 'FULL' | 'NORMAL';
  #connection: Database.Database | undefined;
  #keySecret: Buffer | undefined;
  readonly #checkpointInThread: boolean;
  readonly #onCheckpointerStopped: ((reason: string) => void) | undefined;
  #checkpointer: SqliteCheckpointer | undefined;
  #closed = false;
  readonly #batch: WriteBatch;

  /**
   * Opens the file and brings its schema up to date. A file that cannot be opened or written
   * now (a read-only or full disk) does not stop the BFF from starting: the connection is
   * opened on first use, and ping() reopens a connection that went stale.
   */
  constructor(file: string, options: SqliteLedgerOptions = {}) {
    this.#file = file;
    this.#log = options.onPermissionsNarrowed;
    this.#busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    this.#synchronous = options.synchronous ?? 'FULL';
    this.#onCheckpointerStopped = options.onCheckpointerStopped;
    this.#checkpointInThread = Boolean(options.checkpointInThread) && file !== ':memory:';
    this.#batch = new WriteBatch(() => this.#db, this.#synchronous);
    if (file !== ':memory:') {
      // SQLite gives the -wal and -shm files the database file's mode, so a 0600 database keeps them private.
      ensurePrivateDir(path.dirname(file), this.#log);
      if (!existsSync(file)) createPrivateFile(file);
      ensurePrivateFile(file, this.#log);
    }
    try {
      this.#connection = this.#connect();
    } catch (error) {
      if (!classifyLedgerError(error)) throw error;
    }
  }

  get sqliteFile(): string | undefined {
    return this.#file === ':memory:' ? undefined : this.#file;
  }

  /** Where the WAL checkpoints run now: on their thread, or inside commits (as asked, or because the thread stopped). */
  get checkpointsRunIn(): 'thread' | 'commit' {
    return this.#checkpointer?.running ? 'thread' : 'commit';
  }

  get #db(): Database.Database {
    if (this.#closed) throw new Error('The SQLite ledger is closed.');
    return (this.#connection ??= this.#connect());
  }

  #connect(): Database.Database {
    const db = new Database(this.#file);
    try {
      db.pragma('journal_mode = WAL');
      // Deleted texts are overwritten with zeros, not left in free pages and cells.
      db.pragma('secure_delete = ON');
      db.pragma(`busy_timeout = ${this.#busyTimeoutMs}`);
      // Whatever the setting: a migration (the key secret above all) must not be lost.
      db.pragma('synchronous = FULL');
      migrate(db);
      db.pragma(`synchronous = ${this.#synchronous}`);
      this.#keySecret = Buffer.from((db.prepare(KEY_SECRET_QUERY).get() as { value: string }).value, 'hex');
    } catch (error) {
      db.close();
      throw error;
    }
    if (this.#file !== ':memory:') for (const suffix of ['-wal', '-shm']) ensurePrivateFile(this.#file + suffix, this.#log);
    if (this.#checkpointInThread) this.#checkpointsFollow(db);
    return db;
  }

  /**
   * The checkpoint thread follows the connection: started with the first one that opens (or
   * again, if it had stopped), told to open the file again with every later one (the name may
   * now be another file: one replaced, or one that became writable again).
   */
  #checkpointsFollow(db: Database.Database): void {
    if (this.#checkpointer?.running) {
      this.#checkpointer.reopen();
    } else {
      const checkpointer: SqliteCheckpointer = new SqliteCheckpointer(this.#file, {
        onStopped: (reason) => {
          if (this.#checkpointer !== checkpointer) return;
          this.#connection?.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
          this.#onCheckpointerStopped?.(reason);
        },
      });
      this.#checkpointer = checkpointer;
    }
    db.pragma('wal_autocheckpoint = 0');
  }

  /** Drops a connection that can no longer write (opened while the file was read-only), to open it again. */
  #disconnect(): void {
    this.#statements.clear();
    try {
      this.#connection?.close();
    } catch {
      // already unusable
    }
    this.#connection = undefined;
  }

  /** A prepared statement, prepared once per SQL text. */
  #sql(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) this.#statements.set(sql, (statement = this.#db.prepare(sql)));
    return statement;
  }

  async addMember(member: NewMember, refuse?: (members: readonly MemberRecord[]) => void): Promise<void> {
    // One immediate transaction: the write lock is taken before the members are read (a CLI's process too).
    this.#db
      .transaction(() => {
        refuse?.((this.#sql('SELECT * FROM members ORDER BY created_at, name').all() as MemberRow[]).map(toMember));
        this.#sql('INSERT INTO members (id, name, token_hash, token_prefix, budgets, created_at) VALUES (?, ?, ?, ?, ?, ?)')
          .run(member.id, member.name, member.tokenHash, member.tokenPrefix, JSON.stringify(member.budgets), new Date().toISOString());
      })
      .immediate();
  }

  async addFirstMember(member: NewMember): Promise<boolean> {
    // One statement: SQLite takes the write lock before it reads, so two processes cannot both see no members.
    const { changes } = this.#sql(
      `INSERT INTO members (id, name, token_hash, token_prefix, budgets, created_at, role)
       SELECT ?, ?, ?, ?, ?, ?, 'admin' WHERE NOT EXISTS (SELECT 1 FROM members)`,
    ).run(member.id, member.name, member.tokenHash, member.tokenPrefix, JSON.stringify(member.budgets), new Date().toISOString());
    return changes > 0;
  }

  async memberByTokenHash(tokenHash: string): Promise<MemberRecord | undefined> {
    const row = this.#sql('SELECT * FROM members WHERE token_hash = ? AND revoked_at IS NULL').get(tokenHash) as MemberRow | undefined;
    return row && toMember(row);
  }

  async listMembers(): Promise<MemberRecord[]> {
    return (this.#sql('SELECT * FROM members ORDER BY created_at, name').all() as MemberRow[]).map(toMember);
  }

  async revokeMember(memberId: string): Promise<boolean> {
    const { changes } = this.#sql(
      `UPDATE members SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL
         AND (role <> 'admin' OR ${SQLITE_ANOTHER_ADMIN})`,
    ).run(new Date().toISOString(), memberId);
    return changes > 0;
  }

  async countActiveMembers(): Promise<number> {
    return (this.#sql('SELECT count(*) AS n FROM members WHERE revoked_at IS NULL').get() as { n: number }).n;
  }

  async findOperation(memberId: string, operationId: string): Promise<OperationRecord | undefined> {
    const row = this.#sql('SELECT * FROM operations WHERE member_id = ? AND operation_id = ?')
      .get(memberId, operationId) as OperationRow | undefined;
    return row && toOperation(row);
  }

  async idempotencyKeyFor(operation: KeyedOperation): Promise<string> {
    if (!this.#keySecret) void this.#db; // connects, or throws why it cannot
    return deriveIdempotencyKey(this.#keySecret!, operation);
  }

  async openOperation(operations: NewOperation[]): Promise<OpenResult> {
    const [first] = operations;
    const now = new Date().toISOString();
    const insert = () =>
      this.#sql(
        `INSERT INTO operations (member_id, operation_id, product, fingerprint, idempotency_key, request_body,
           parent_operation_id, part_index, parts, state, source, words_reserved, upstream_key_id, attempts, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?)
         ON CONFLICT (member_id, operation_id) DO NOTHING
         RETURNING *`,
      );
    const single = operations.length === 1;
    try {
      // One statement for a single operation (committed with the others of this turn, see
      // WriteBatch), without waiting for the disk: lost in a power cut, the operation is stored
      // again by its repeat under the same derived key, which the upstream replays. A document's
      // parts join it in one IMMEDIATE transaction: the write lock is taken before anything is
      // read, so a second process waits (busy_timeout) instead of failing on a stale read snapshot.
      // all(), not get(): the statement runs to its end, where an autocommit's failure (a full
      // disk) is reported; get() stops at the first returned row and the failed commit goes unseen.
      const [row] = single
        ? await this.#batch.run(() => insert().all(...newOperationValues(first!), 1, now, now) as OperationRow[], { waitForDisk: false })
        : this.#db.transaction((): OperationRow[] => {
            const parent = insert().all(...newOperationValues(first!), 0, now, now) as OperationRow[];
            if (parent.length > 0) for (const part of operations.slice(1)) insert().all(...newOperationValues(part), 0, now, now);
            return parent;
          }).immediate();
      if (row) return { status: 'inserted', record: toOperation(row) };
      return { status: 'exists', record: (await this.findOperation(first!.memberId, first!.operationId))! };
    } catch (error) {
      if (!isBudgetRefusal(error)) throw error;
      return this.#overBudget(first!.memberId, first!.product);
    }
  }

  async reopenOperation(memberId: string, operationId: string, requestBody: string, wordsReserved: number, upstreamKeyId?: string | null): Promise<ReopenResult> {
    const reopen = this.#sql(
      `UPDATE operations SET state = 'pending', error = NULL, request_body = ?, words_reserved = ?, updated_at = ?, expired_at = NULL,
         upstream_key_id = coalesce(?, upstream_key_id), attempts_not_run = CASE WHEN words_charged = 0 THEN attempts ELSE attempts_not_run END
       WHERE member_id = ? AND operation_id = ? AND state = 'failed' AND ${REOPENS_AFTER_RETENTION}`,
    );
    try {
      const { changes } = reopen.run(requestBody, wordsReserved, new Date().toISOString(), upstreamKeyId ?? null, memberId, operationId);
      return changes > 0 ? { status: 'inserted' } : { status: 'changed' };
    } catch (error) {
      if (!isBudgetRefusal(error)) throw error;
      const product = (this.#sql('SELECT product FROM operations WHERE member_id = ? AND operation_id = ?').get(memberId, operationId) as { product: Product }).product;
      return this.#overBudget(memberId, product);
    }
  }

  #overBudget(memberId: string, product: Product): { status: 'over_budget'; remainingWords: number } {
    const row = this.#sql(
      `SELECT json_extract(m.budgets, '$.' || ?) AS budget, coalesce(u.words, 0) AS used
       FROM members m LEFT JOIN member_usage u ON u.member_id = m.id AND u.product = ? WHERE m.id = ?`,
    ).get(product, product, memberId) as { budget: number; used: number };
    return { status: 'over_budget', remainingWords: Math.max(0, row.budget - row.used) };
  }

  async partsOf(memberId: string, parentOperationId: string): Promise<OperationRecord[]> {
    const rows = this.#sql('SELECT * FROM operations WHERE member_id = ? AND parent_operation_id = ? ORDER BY part_index')
      .all(memberId, parentOperationId) as OperationRow[];
    return rows.map(toOperation);
  }

  async countAttempt(memberId: string, operationId: string, keyInUse: string | null = null): Promise<string | null> {
    const row = this.#sql(
      `UPDATE operations SET attempts = attempts + 1, updated_at = ?,
         upstream_key_id = CASE WHEN ${UNSENT} THEN coalesce(?, upstream_key_id) ELSE upstream_key_id END
       WHERE member_id = ? AND operation_id = ? RETURNING upstream_key_id`,
    ).get(new Date().toISOString(), keyInUse, memberId, operationId) as { upstream_key_id: string | null } | undefined;
    return row?.upstream_key_id ?? null;
  }

  async noteOpenOutcome(memberId: string, operationId: string, outcome: OpenOutcome): Promise<void> {
    this.#sql(
      `UPDATE operations SET attempts_not_run = attempts_not_run + ?, held_error = ?, resume_after = ?,
         held_resumes = CASE WHEN ? IS NULL THEN 0 ELSE held_resumes + 1 END
       WHERE member_id = ? AND operation_id = ? AND state = 'pending'`,
    ).run(
      outcome.ranNothing ? 1 : 0,
      outcome.held ? JSON.stringify(outcome.held.error) : null,
      outcome.held ? outcome.held.resumeAfter.toISOString() : null,
      outcome.held ? 1 : null,
      memberId,
      operationId,
    );
  }

  async heldOperations(memberId?: string): Promise<OperationRecord[]> {
    const rows = this.#sql(
      `SELECT * FROM operations WHERE state = 'pending' AND parent_operation_id IS NULL AND held_error IS NOT NULL
         AND (? IS NULL OR member_id = ?) ORDER BY created_at`,
    ).all(memberId ?? null, memberId ?? null) as OperationRow[];
    return rows.map(toOperation);
  }

  async completeOperation({ memberId, operationId }: OperationKey, completion: Completion): Promise<boolean> {
    const result = JSON.stringify(completion.result);
    const now = new Date().toISOString();
    const { changes } = await this.#batch.run(() =>
      this.#sql(
        `UPDATE operations SET state = 'completed', result = ?, source = ?, error = NULL, words_charged = ?,
           request_body = NULL, accepted_key = ?, accepted_key_source = ?, updated_at = ?, expired_at = NULL,
           held_error = NULL, held_resumes = 0, resume_after = NULL
         WHERE member_id = ? AND operation_id = ? AND state != 'completed'`,
      ).run(result, completion.source, completion.wordsCharged, completion.acceptedKey ?? null, completion.acceptedKeySource ?? null, now, memberId, operationId),
      // Lost in a power cut, the operation is pending again with its key: its resume gets the
      // upstream's stored response without a second charge.
      { waitForDisk: false },
    );
    return changes > 0;
  }

  async failOperation(memberId: string, operationId: string, error: StoredError, wordsCharged = 0): Promise<void> {
    const now = new Date().toISOString();
    this.#db.transaction(() => {
      this.#sql(
        `UPDATE operations SET state = 'failed', error = @error, words_charged = ${FAILED_CHARGE_AT_LEAST('@wordsCharged', '@memberId', '@operationId')}, request_body = NULL, updated_at = @now,
           held_error = NULL, held_resumes = 0, resume_after = NULL
         WHERE member_id = @memberId AND operation_id = @operationId AND state != 'completed'`,
      ).run({ error: JSON.stringify(error), wordsCharged, now, memberId, operationId });
      this.#sql('UPDATE operations SET request_body = NULL WHERE member_id = ? AND parent_operation_id = ? AND request_body IS NOT NULL')
        .run(memberId, operationId);
    }).immediate();
  }

  async keepPending(memberId: string, operationId: string, requestBody: string): Promise<void> {
    this.#sql(
      `UPDATE operations SET state = 'pending', error = NULL, request_body = ?, words_reserved = words_charged, updated_at = ?
       WHERE member_id = ? AND operation_id = ? AND state = 'failed'`,
    ).run(requestBody, new Date().toISOString(), memberId, operationId);
  }

  async purgeSettled(settledBefore: Date): Promise<number> {
    const { changes } = this.#sql(
      `UPDATE operations SET result = NULL, error = NULL, request_body = NULL, expired_at = @now
       WHERE state <> 'pending' AND expired_at IS NULL AND updated_at < @cutoff
         AND (parent_operation_id IS NULL OR EXISTS (
               SELECT 1 FROM operations parent WHERE parent.member_id = operations.member_id AND parent.operation_id = operations.parent_operation_id
                 AND parent.state <> 'pending' AND (parent.expired_at IS NOT NULL OR parent.updated_at < @cutoff)))`,
    ).run({ now: new Date().toISOString(), cutoff: settledBefore.toISOString() });
    // Old page versions (texts included) live on in the write-ahead log until a checkpoint
    // copies the new ones over and the log is truncated: on the checkpoint thread when it
    // runs (copying the log holds no request), else here.
    if (!(await this.#checkpointer?.truncate(2000)) && !this.#checkpointer?.running) this.#truncateLog();
    return changes;
  }

  /**
   * Copies the log into the database file and cuts it to nothing, here on the event loop's thread:
   * without waiting for readers (a backup, an `sqlite3` shell) that hold an older snapshot. Waiting
   * calls the busy handler, which held every request for the whole busy timeout at each purge run
   * while such a reader stayed; a log not cut now is cut at a later run.
   */
  #truncateLog(): void {
    const db = this.#db;
    db.pragma('busy_timeout = 0');
    try {
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.pragma(`busy_timeout = ${this.#busyTimeoutMs}`);
    }
  }

  async pendingOperations(): Promise<OperationRecord[]> {
    const rows = this.#sql(`SELECT * FROM operations WHERE state = 'pending' AND parent_operation_id IS NULL ORDER BY created_at`)
      .all() as OperationRow[];
    return rows.map(toOperation);
  }

  async completedKeyOf(upstreamKeyId: string): Promise<{ idempotencyKey: string; product: Product } | undefined> {
    const row = this.#sql(
      `SELECT idempotency_key, product FROM operations WHERE upstream_key_id = ? AND state = 'completed' AND source = 'upstream' AND accepted_key IS NULL LIMIT 1`,
    ).get(upstreamKeyId) as { idempotency_key: string; product: Product } | undefined;
    return row && { idempotencyKey: row.idempotency_key, product: row.product };
  }

  async wordsCharged(memberId: string): Promise<Record<Product, number>> {
    const totals = Object.fromEntries(PRODUCTS.map((product) => [product, 0])) as Record<Product, number>;
    const rows = this.#sql(
        `SELECT product, sum(words_charged) AS words FROM operations
         WHERE member_id = ? AND ${CHARGED_WORDS_COUNTED}
         GROUP BY product`,
      )
      .all(memberId) as { product: Product; words: number }[];
    for (const row of rows) totals[row.product] = row.words;
    return totals;
  }

  async budgetUsage(memberId: string): Promise<Record<Product, number>> {
    const totals = Object.fromEntries(PRODUCTS.map((product) => [product, 0])) as Record<Product, number>;
    const rows = this.#sql('SELECT product, words FROM member_usage WHERE member_id = ?').all(memberId) as { product: Product; words: number }[];
    for (const row of rows) totals[row.product] = row.words;
    return totals;
  }

  /**
   * A small committed write (a full disk or a read-only file only shows on a write), waiting
   * briefly for another process's lock rather than the full busy timeout. A connection that
   * cannot write is reopened once, so the BFF recovers when the file becomes writable again.
   */
  async ping(): Promise<void> {
    try {
      this.#heartbeat();
    } catch (error) {
      if (!this.#connection || !/^SQLITE_(READONLY|CANTOPEN|IOERR)/.test((error as { code?: string }).code ?? '')) throw error;
      this.#disconnect();
      this.#heartbeat();
    }
  }

  #heartbeat(): void {
    const db = this.#db;
    db.pragma('busy_timeout = 100');
    try {
      this.#sql('INSERT INTO heartbeat (id, at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at').run(new Date().toISOString());
    } finally {
      db.pragma(`busy_timeout = ${this.#busyTimeoutMs}`);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#checkpointer?.stop();
    this.#connection?.close();
    this.#connection = undefined;
  }

  #oauth: SqliteOAuthStore | undefined;

  /** OAuth tables live in the same file, versioned on their own (./oauth-sqlite.ts). */
  async oauthStore(): Promise<OAuthStore> {
    return (this.#oauth ??= new SqliteOAuthStore(this.#db));
  }

  #console: SqliteConsoleStore | undefined;

  /** Console tables live in the same file, versioned on their own (./console-sqlite.ts), after the OAuth tables, which their link purge reads. */
  async consoleStore(): Promise<ConsoleStore> {
    await this.oauthStore();
    return (this.#console ??= new SqliteConsoleStore(() => this.#db));
  }
}
