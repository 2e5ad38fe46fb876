import type pg from 'pg';
import { PRODUCTS, type Product } from '@redline/shared';
import { REOPENS_AFTER_RETENTION, UNSENT, type Completion, type Ledger, type MemberRecord, type NewMember, type NewOperation, type OpenOutcome, type OpenResult, type OperationKey, type OperationRecord, type ReopenResult, type StoredError } from './ledger.ts';
import { PostgresConsoleStore } from './console-postgres.ts';
import type { ConsoleStore } from './console-store.ts';
import { PostgresOAuthStore } from './oauth-postgres.ts';
import { announcingMembers } from './pg-channel.ts';
import type { OAuthStore } from './oauth-store.ts';
import { KEY_SECRET_QUERY, deriveIdempotencyKey, type KeyedOperation } from './idempotency-keys.ts';
import { PG_ANOTHER_ADMIN, PG_LOCKING_ADMINS } from './last-admin.ts';
import { pgDriver } from './pg-driver.ts';
import { CHARGED_WORDS_COUNTED, FAILED_CHARGE_AT_LEAST, newOperationValues, toMember, toOperation, type MemberRow, type OperationRow } from './rows.ts';
import { eachOnItsOwn, inGroups, perTurn, type Settled } from './turn-batch.ts';

/**
 * The ledger in PostgreSQL, for deployments with several BFF instances. Instances may
 * forward the same operation at once after a crash or a client retry landing elsewhere:
 * they share its stored key and bytes, and the upstream's idempotency makes the second
 * call wait (409, Retry-After) and then replay, so words are still charged once.
 */

/** The SQLSTATE the usage trigger raises when a reservation would pass a member's budget. */
const BUDGET_EXCEEDED_SQLSTATE = 'RLB01';
const isBudgetRefusal = (error: unknown) => (error as { code?: string })?.code === BUDGET_EXCEEDED_SQLSTATE;

const MIGRATIONS = [
  `CREATE TABLE members (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL UNIQUE,
     token_hash TEXT NOT NULL UNIQUE,
     token_prefix TEXT NOT NULL,
     budgets JSONB NOT NULL DEFAULT '{}',
     created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
     revoked_at TIMESTAMPTZ
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
     parts INTEGER NOT NULL DEFAULT 1,
     state TEXT NOT NULL CHECK (state IN ('pending', 'completed', 'failed')),
     source TEXT NOT NULL,
     result JSONB,
     error JSONB,
     words_charged BIGINT NOT NULL DEFAULT 0,
     attempts INTEGER NOT NULL DEFAULT 0,
     accepted_key TEXT,
     accepted_key_source TEXT,
     created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
     updated_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
     PRIMARY KEY (member_id, operation_id)
   );
   CREATE INDEX operations_pending ON operations (created_at) WHERE state = 'pending' AND parent_operation_id IS NULL;
   CREATE INDEX operations_parts ON operations (member_id, parent_operation_id, part_index);`,
  // Budgets (see sqlite.ts): the trigger keeps member_usage equal to the words held by pending
  // and charged by settled top-level operations. Its upsert locks the member's row, so
  // concurrent reservations on any instance are counted one after the other.
  `ALTER TABLE operations ADD COLUMN words_reserved BIGINT NOT NULL DEFAULT 0;
   CREATE TABLE member_usage (
     member_id TEXT NOT NULL,
     product TEXT NOT NULL,
     words BIGINT NOT NULL DEFAULT 0,
     PRIMARY KEY (member_id, product)
   );
   INSERT INTO member_usage (member_id, product, words)
     SELECT member_id, product, sum(CASE state WHEN 'pending' THEN words_reserved ELSE words_charged END)
     FROM operations WHERE parent_operation_id IS NULL GROUP BY member_id, product;
   CREATE FUNCTION redline_count_usage() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE
     delta BIGINT := CASE NEW.state WHEN 'pending' THEN NEW.words_reserved ELSE NEW.words_charged END;
     reserving BOOLEAN := NEW.state = 'pending';
     used BIGINT;
     budget BIGINT;
   BEGIN
     IF NEW.parent_operation_id IS NOT NULL THEN RETURN NULL; END IF;
     IF TG_OP = 'UPDATE' THEN
       delta := delta - CASE OLD.state WHEN 'pending' THEN OLD.words_reserved ELSE OLD.words_charged END;
       reserving := reserving AND OLD.state <> 'pending';
       IF delta = 0 THEN RETURN NULL; END IF;
     END IF;
     INSERT INTO member_usage AS u (member_id, product, words) VALUES (NEW.member_id, NEW.product, delta)
       ON CONFLICT (member_id, product) DO UPDATE SET words = u.words + EXCLUDED.words
       RETURNING u.words INTO used;
     IF reserving THEN
       SELECT (budgets ->> NEW.product)::BIGINT INTO budget FROM members WHERE id = NEW.member_id;
       IF used > budget THEN
         RAISE EXCEPTION 'member_budget_exceeded' USING ERRCODE = '${BUDGET_EXCEEDED_SQLSTATE}';
       END IF;
     END IF;
     RETURN NULL;
   END $$;
   CREATE TRIGGER operations_usage AFTER INSERT OR UPDATE OF state, words_charged, words_reserved ON operations
     FOR EACH ROW EXECUTE FUNCTION redline_count_usage();`,
  // Retention: when the purge reduced a settled operation to its metadata.
  `ALTER TABLE operations ADD COLUMN expired_at TIMESTAMPTZ;
   CREATE INDEX operations_settled ON operations (updated_at) WHERE state <> 'pending' AND expired_at IS NULL;`,
  // Roles for the team console: every member is a member, except the first-run owner (the
  // earliest member named "owner"), who becomes an admin. New first-run owners are made admin
  // by members.ts.
  `ALTER TABLE members ADD COLUMN role TEXT NOT NULL DEFAULT 'member' CHECK (role IN ('member', 'admin'));
   UPDATE members SET role = 'admin' WHERE id = (SELECT id FROM members WHERE name = 'owner' ORDER BY created_at, id LIMIT 1);`,
  // The upstream key an operation started with (its retries keep it unless the active key shares
  // its account), and per-member rate limits set in the console (NULL: BFF_MEMBER_RATE_LIMIT).
  `ALTER TABLE operations ADD COLUMN upstream_key_id TEXT;
   ALTER TABLE members ADD COLUMN rate_limit INTEGER CHECK (rate_limit > 0);`,
  // The secret the upstream Idempotency-Keys are derived under (idempotency-keys.ts), made once
  // (gen_random_uuid draws on the server's strong random source). A derived key is unique because
  // the operation is, so its own unique constraint goes: two instances inserting the same
  // operation at once propose the same key, and the later insert would fail on that constraint
  // (ON CONFLICT only covers the primary key) instead of finding the operation stored.
  `CREATE TABLE ledger_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL);
   INSERT INTO ledger_secrets (name, value) VALUES ('idempotency_keys', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
   ALTER TABLE operations DROP CONSTRAINT IF EXISTS operations_idempotency_key_key;`,
  // Attempts known to have run nothing upstream (a 429, a refusal of the key), and operations held
  // pending after a refusal of the key or account that followed an attempt that may have run
  // (ledger.ts, HeldOperation): why, how many times in a row, and when to resume them next.
  `ALTER TABLE operations ADD COLUMN attempts_not_run INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE operations ADD COLUMN held_error JSONB;
   ALTER TABLE operations ADD COLUMN held_resumes INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE operations ADD COLUMN resume_after TIMESTAMPTZ;`,
];

/**
 * A FROM item that turns `synchronous_commit` off for the statement's own transaction (set
 * inside the statement, so that it stays one round trip): its commit then does not wait for the
 * WAL to reach the disk. For an operation's insert and its settlement only: lost in a crash of
 * the server, the insert is made again by the operation's repeat and the settlement by its
 * resume, both under the same derived key (idempotency-keys.ts), which the upstream replays
 * without a second charge.
 */
const WITHOUT_WAITING_FOR_DISK = `(SELECT set_config('synchronous_commit', 'off', true)) AS without_waiting_for_disk`;

/**
 * Finds or inserts an operation in one statement (named: prepared once per connection). The
 * usage trigger reserves a top-level operation's words inside it. A conflict returns the row
 * stored before, as this statement's snapshot sees it; `inserted_now` tells the two apart.
 */
export const OPEN_OPERATION = {
  name: 'redline_open_operation',
  text: `WITH inserted AS (
           INSERT INTO operations (member_id, operation_id, product, fingerprint, idempotency_key, request_body,
             parent_operation_id, part_index, parts, state, source, words_reserved, upstream_key_id, attempts)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending', $10, $11, $12, $13)
           ON CONFLICT (member_id, operation_id) DO NOTHING
           RETURNING *
         )
         SELECT inserted.*, true AS inserted_now FROM inserted, ${WITHOUT_WAITING_FOR_DISK}
         UNION ALL
         SELECT *, false FROM operations WHERE member_id = $1 AND operation_id = $2 AND NOT EXISTS (SELECT 1 FROM inserted)`,
};

/**
 * OPEN_OPERATION for the single operations of one turn (perTurn): one statement, one commit.
 * Rows come back for the operations inserted and for those stored before; an operation another
 * transaction inserted meanwhile has none (read again, as in OPEN_OPERATION).
 */
export const OPEN_OPERATIONS = {
  name: 'redline_open_operations',
  text: `WITH v AS (
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::integer[],
             $9::integer[], $10::text[], $11::bigint[], $12::text[], $13::integer[]) WITH ORDINALITY
             AS v (member_id, operation_id, product, fingerprint, idempotency_key, request_body, parent_operation_id, part_index,
               parts, source, words_reserved, upstream_key_id, attempts, position)
         ), inserted AS (
           INSERT INTO operations (member_id, operation_id, product, fingerprint, idempotency_key, request_body,
             parent_operation_id, part_index, parts, state, source, words_reserved, upstream_key_id, attempts)
           SELECT member_id, operation_id, product, fingerprint, idempotency_key, request_body,
             parent_operation_id, part_index, parts, 'pending', source, words_reserved, upstream_key_id, attempts
           FROM v ORDER BY position
           ON CONFLICT (member_id, operation_id) DO NOTHING
           RETURNING *
         )
         SELECT inserted.*, true AS inserted_now FROM inserted, ${WITHOUT_WAITING_FOR_DISK}
         UNION ALL
         SELECT o.*, false FROM operations o JOIN (SELECT DISTINCT member_id, operation_id FROM v) k
           ON o.member_id = k.member_id AND o.operation_id = k.operation_id
         WHERE NOT EXISTS (SELECT 1 FROM inserted i WHERE i.member_id = o.member_id AND i.operation_id = o.operation_id)`,
};

/** Completes operations: those of one turn together (perTurn), or one; without waiting for the disk. */
export const COMPLETE_OPERATIONS = {
  name: 'redline_complete_operations',
  text: `UPDATE operations o SET state = 'completed', result = v.result::jsonb, source = v.source, error = NULL,
           words_charged = v.words_charged, request_body = NULL, accepted_key = v.accepted_key,
           accepted_key_source = v.accepted_key_source, updated_at = clock_timestamp(), expired_at = NULL,
           held_error = NULL, held_resumes = 0, resume_after = NULL
         FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[])
           AS v (result, source, words_charged, accepted_key, accepted_key_source, member_id, operation_id),
           ${WITHOUT_WAITING_FOR_DISK}
         WHERE o.member_id = v.member_id AND o.operation_id = v.operation_id AND o.state != 'completed'
         RETURNING o.member_id, o.operation_id`,
};

/**
 * A batched statement that failed because of one operation's data (a budget refusal, a
 * constraint), or was chosen to end a deadlock, wrote nothing: its operations are written one by
 * one, so only that one fails. Any other failure (the server is unreachable) fails them all, as
 * it would fail each.
 */
const writeOneByOne = (error: unknown) => /^(22|23|RL|40P01)/.test((error as { code?: string })?.code ?? '');

/**
 * How a turn's operations are split into statements. Each statement holds one member's usage
 * row of one product (the usage trigger locks it), as a single operation's did: statements of
 * several members would lock their usage rows in different orders and deadlock each other. In a
 * statement, operations go in the order of their ids, so two instances writing the same
 * operations wait for each other in the same order. At most BATCH_OPERATIONS per statement.
 */
const usageRow = (operation: { memberId: string; product: string }) => `${operation.memberId}\u0000${operation.product}`;
const byOperationId = <T extends { operationId: string }>(operations: T[]) => [...operations].sort((a, b) => (a.operationId < b.operationId ? -1 : a.operationId > b.operationId ? 1 : 0));
const BATCH_OPERATIONS = 64;

/** Columns of a batch, one array per statement parameter. */
const columns = (rows: unknown[][]) => rows[0]!.map((_, column) => rows.map((row) => row[column]));

/** Serialises migrations between instances starting together. */
const MIGRATION_LOCK = 0x7265646c; // "redl"
/** Serialises member additions, so that the check of a new name sees every member added before it ("rmem"). */
const MEMBER_ADDITION_LOCK = 0x726d656d;

export interface PostgresLedgerOptions {
  /** Isolates a deployment or a test; also names the connections (application_name) so an operator can find them. */
  schema?: string;
  /**
   * Connections kept at most (BFF_DATABASE_POOL_SIZE, default 10). Each ledger call holds one
   * for a single statement, so a few serve many concurrent operations; past the pool, calls wait.
   */
  poolSize?: number;
  /** Told about errors on idle or checked-out connections (a server restart, a terminated backend). */
  onConnectionError?: (error: Error) => void;
}

type CompleteCall = { operation: OperationKey; completion: Completion };

export class PostgresLedger implements Ledger {
  /** The secret this ledger's idempotency keys are derived under, read once at open. */
  #keySecret = Buffer.alloc(0);

  private constructor(private readonly pool: pg.Pool) {}

  /** The single operations opened in one turn, a statement per member and product. */
  readonly #openSingle = perTurn<NewOperation, OperationRow | undefined>((operations) =>
    inGroups(operations, usageRow, BATCH_OPERATIONS, (group) => this.#openTogether(group)),
  );

  /** Opens `operations` in one statement; the outcomes in their order. */
  async #openTogether(operations: NewOperation[]): Promise<Settled<OperationRow | undefined>[]> {
    const one = async (operation: NewOperation) =>
      (await this.pool.query<OperationRow>({ ...OPEN_OPERATION, values: [...newOperationValues(operation), 1] })).rows[0];
    if (operations.length === 1) return eachOnItsOwn(operations, one);
    let rows: OperationRow[];
    try {
      const values = columns(byOperationId(operations).map((operation) => [...newOperationValues(operation), 1]));
      rows = (await this.pool.query<OperationRow>({ ...OPEN_OPERATIONS, values })).rows;
    } catch (error) {
      if (writeOneByOne(error)) return eachOnItsOwn(operations, one);
      throw error;
    }
    const byOperation = (operation: NewOperation) => (row: OperationRow) => row.member_id === operation.memberId && row.operation_id === operation.operationId;
    // The same operation twice in one turn: the first one inserted it, the other finds it stored.
    const claimed = new Set<OperationRow>();
    return operations.map((operation) => {
      const row = rows.find(byOperation(operation));
      if (row?.inserted_now && claimed.has(row)) return { ok: true, value: { ...row, inserted_now: false } };
      if (row) claimed.add(row);
      return { ok: true, value: row };
    });
  }

  /** The completions of one turn, a statement per member and product. */
  readonly #complete = perTurn<CompleteCall, boolean>((calls) =>
    inGroups(calls, (call) => usageRow(call.operation), BATCH_OPERATIONS, (group) => this.#completeTogether(group)),
  );

  /** Completes `calls` in one statement; the outcomes in their order (whether each call completed its operation). */
  async #completeTogether(calls: CompleteCall[]): Promise<Settled<boolean>[]> {
    const values = ({ operation, completion }: CompleteCall) => [
      JSON.stringify(completion.result),
      completion.source,
      completion.wordsCharged,
      completion.acceptedKey ?? null,
      completion.acceptedKeySource ?? null,
      operation.memberId,
      operation.operationId,
    ];
    const write = async (some: CompleteCall[]) => {
      const { rows } = await this.pool.query<{ member_id: string; operation_id: string }>({ ...COMPLETE_OPERATIONS, values: columns(some.map(values)) });
      // An operation completed once in the statement counts for the first of its calls only.
      const completed = new Set(rows.map((row) => `${row.member_id}\u0000${row.operation_id}`));
      return some.map(({ operation }) => completed.delete(`${operation.memberId}\u0000${operation.operationId}`));
    };
    const one = async (call: CompleteCall) => (await write([call]))[0]!;
    if (calls.length === 1) return eachOnItsOwn(calls, one);
    let completed: boolean[];
    try {
      completed = await write(calls);
    } catch (error) {
      if (writeOneByOne(error)) return eachOnItsOwn(calls, one);
      throw error;
    }
    return completed.map((value) => ({ ok: true, value }));
  }

  /** Connects and brings the schema up to date. */
  static async open(connectionString: string, schemaOrOptions: string | PostgresLedgerOptions = {}): Promise<PostgresLedger> {
    const options = typeof schemaOrOptions === 'string' ? { schema: schemaOrOptions } : schemaOrOptions;
    const schema = options.schema ?? 'public';
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`Invalid schema name "${schema}".`);
    const { Pool } = await pgDriver();
    const pool = new Pool({
      connectionString,
      max: options.poolSize ?? 10,
      options: `-c search_path=${schema}`,
      application_name: `redline-bff:${schema}`,
      // A server that does not answer is unavailable, not a reason to hang requests.
      connectionTimeoutMillis: 5000,
    });
    // Without these listeners a server restart (57P01 on idle or busy connections) is an
    // unhandled 'error' event that ends the process. The failed query itself still rejects.
    const onError = (error: Error) => options.onConnectionError?.(error);
    pool.on('error', onError);
    pool.on('connect', (client) => client.on('error', onError));
    const ledger = new PostgresLedger(pool);
    try {
      await ledger.#migrate(schema);
      ledger.#keySecret = Buffer.from((await pool.query<{ value: string }>(KEY_SECRET_QUERY)).rows[0]!.value, 'hex');
    } catch (error) {
      await pool.end().catch(() => {});
      throw error;
    }
    return ledger;
  }

  async #migrate(schema: string): Promise<void> {
    const client = await this.pool.connect();
    let locked = false;
    try {
      // The lock comes first: CREATE SCHEMA IF NOT EXISTS itself races between instances starting together.
      await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      locked = true;
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query('CREATE TABLE IF NOT EXISTS redline_schema (version INTEGER NOT NULL)');
      const { rows } = await client.query<{ version: number }>('SELECT version FROM redline_schema');
      let version = rows[0]?.version ?? 0;
      if (rows.length === 0) await client.query('INSERT INTO redline_schema (version) VALUES (0)');
      for (; version < MIGRATIONS.length; version++) {
        await client.query('BEGIN');
        // Whatever the server's default: a migration (the key secret above all) must not be lost.
        await client.query('SET LOCAL synchronous_commit = on');
        await client.query(MIGRATIONS[version]!);
        await client.query('UPDATE redline_schema SET version = $1', [version + 1]);
        await client.query('COMMIT');
      }
    } finally {
      if (locked) await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
      client.release();
    }
  }

  async addMember(member: NewMember, refuse?: (members: readonly MemberRecord[]) => void): Promise<void> {
    await this.#transaction(async (client) => {
      // Additions one at a time (every instance, and the CLI): each reads the members after the one before committed.
      await client.query('SELECT pg_advisory_xact_lock($1)', [MEMBER_ADDITION_LOCK]);
      if (refuse) refuse((await client.query<MemberRow>('SELECT * FROM members ORDER BY created_at, name')).rows.map(toMember));
      await client.query('INSERT INTO members (id, name, token_hash, token_prefix, budgets) VALUES ($1, $2, $3, $4, $5)', [
        member.id,
        member.name,
        member.tokenHash,
        member.tokenPrefix,
        JSON.stringify(member.budgets),
      ]);
    });
  }

  async addFirstMember(member: NewMember): Promise<boolean> {
    // Instances starting together may all see no members; the unique name lets exactly one insert.
    const { rowCount } = await this.pool.query(
      `INSERT INTO members (id, name, token_hash, token_prefix, budgets, role)
       SELECT $1, $2, $3, $4, $5, 'admin' WHERE NOT EXISTS (SELECT 1 FROM members)
       ON CONFLICT DO NOTHING`,
      [member.id, member.name, member.tokenHash, member.tokenPrefix, JSON.stringify(member.budgets)],
    );
    return (rowCount ?? 0) > 0;
  }

  async memberByTokenHash(tokenHash: string): Promise<MemberRecord | undefined> {
    const { rows } = await this.pool.query<MemberRow>({
      name: 'redline_member_by_token',
      text: 'SELECT * FROM members WHERE token_hash = $1 AND revoked_at IS NULL',
      values: [tokenHash],
    });
    return rows[0] && toMember(rows[0]);
  }

  async listMembers(): Promise<MemberRecord[]> {
    const { rows } = await this.pool.query<MemberRow>('SELECT * FROM members ORDER BY created_at, name');
    return rows.map(toMember);
  }

  async revokeMember(memberId: string): Promise<boolean> {
    // Announced to every instance's member cache in the same statement (delivered on commit).
    const { rowCount } = await this.pool.query(
      announcingMembers(`${PG_LOCKING_ADMINS} UPDATE members SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL AND (role <> 'admin' OR ${PG_ANOTHER_ADMIN}) RETURNING id`),
      [memberId],
    );
    return (rowCount ?? 0) > 0;
  }

  async countActiveMembers(): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>('SELECT count(*) AS n FROM members WHERE revoked_at IS NULL');
    return Number(rows[0]!.n);
  }

  async findOperation(memberId: string, operationId: string): Promise<OperationRecord | undefined> {
    const { rows } = await this.pool.query<OperationRow>({
      name: 'redline_find_operation',
      text: 'SELECT * FROM operations WHERE member_id = $1 AND operation_id = $2',
      values: [memberId, operationId],
    });
    return rows[0] && toOperation(rows[0]);
  }

  async idempotencyKeyFor(operation: KeyedOperation): Promise<string> {
    return deriveIdempotencyKey(this.#keySecret, operation);
  }

  async openOperation(operations: NewOperation[]): Promise<OpenResult> {
    const [first] = operations;
    const single = operations.length === 1;
    try {
      if (single) return await this.#opened(first!, await this.#openSingle(first!));
      return await this.#transaction(async (client) => {
        const { rows } = await client.query<OperationRow>({ ...OPEN_OPERATION, values: [...newOperationValues(first!), 0] });
        if (rows[0]?.inserted_now) {
          for (const part of operations.slice(1)) await client.query({ ...OPEN_OPERATION, values: [...newOperationValues(part), 0] });
        }
        return this.#opened(first!, rows[0]);
      });
    } catch (error) {
      if (!isBudgetRefusal(error)) throw error;
      return this.#overBudget(first!.memberId, first!.product);
    }
  }

  /**
   * Our insert returns its row marked `inserted_now`; a row without the mark was stored before.
   * No row: another transaction inserted it after this statement's snapshot was taken (ON
   * CONFLICT waited for it), so it is read again, now committed.
   */
  async #opened(operation: NewOperation, row: OperationRow | undefined): Promise<OpenResult> {
    if (row?.inserted_now) return { status: 'inserted', record: toOperation(row) };
    const record = row ? toOperation(row) : await this.findOperation(operation.memberId, operation.operationId);
    return { status: 'exists', record: record! };
  }

  /** Runs `work` in one transaction on one connection; a connection that failed mid-transaction is discarded. */
  async #transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      client.release();
      return result;
    } catch (error) {
      const rolledBack = await client.query('ROLLBACK').then(() => true, () => false);
      client.release(rolledBack && isBudgetRefusal(error) ? undefined : (error as Error));
      throw error;
    }
  }

  async reopenOperation(memberId: string, operationId: string, requestBody: string, wordsReserved: number, upstreamKeyId?: string | null): Promise<ReopenResult> {
    try {
      const { rowCount } = await this.pool.query(
        `UPDATE operations SET state = 'pending', error = NULL, request_body = $1, words_reserved = $2, updated_at = clock_timestamp(), expired_at = NULL,
           upstream_key_id = coalesce($5, upstream_key_id), attempts_not_run = CASE WHEN words_charged = 0 THEN attempts ELSE attempts_not_run END
         WHERE member_id = $3 AND operation_id = $4 AND state = 'failed' AND ${REOPENS_AFTER_RETENTION}`,
        [requestBody, wordsReserved, memberId, operationId, upstreamKeyId ?? null],
      );
      return rowCount ? { status: 'inserted' } : { status: 'changed' };
    } catch (error) {
      if (!isBudgetRefusal(error)) throw error;
      const { rows } = await this.pool.query<{ product: Product }>('SELECT product FROM operations WHERE member_id = $1 AND operation_id = $2', [memberId, operationId]);
      return this.#overBudget(memberId, rows[0]!.product);
    }
  }

  async #overBudget(memberId: string, product: Product): Promise<{ status: 'over_budget'; remainingWords: number }> {
    const { rows } = await this.pool.query<{ budget: string; used: string }>(
      `SELECT (m.budgets ->> $1::text)::BIGINT AS budget, coalesce(u.words, 0) AS used
       FROM members m LEFT JOIN member_usage u ON u.member_id = m.id AND u.product = $1 WHERE m.id = $2`,
      [product, memberId],
    );
    return { status: 'over_budget', remainingWords: Math.max(0, Number(rows[0]!.budget) - Number(rows[0]!.used)) };
  }

  async partsOf(memberId: string, parentOperationId: string): Promise<OperationRecord[]> {
    const { rows } = await this.pool.query<OperationRow>(
      'SELECT * FROM operations WHERE member_id = $1 AND parent_operation_id = $2 ORDER BY part_index',
      [memberId, parentOperationId],
    );
    return rows.map(toOperation);
  }

  async countAttempt(memberId: string, operationId: string, keyInUse: string | null = null): Promise<string | null> {
    const { rows } = await this.pool.query<{ upstream_key_id: string | null }>({
      name: 'redline_count_attempt',
      text: `UPDATE operations SET attempts = attempts + 1, updated_at = clock_timestamp(),
               upstream_key_id = CASE WHEN ${UNSENT} THEN coalesce($3, upstream_key_id) ELSE upstream_key_id END
             WHERE member_id = $1 AND operation_id = $2 RETURNING upstream_key_id`,
      values: [memberId, operationId, keyInUse],
    });
    return rows[0]?.upstream_key_id ?? null;
  }

  async noteOpenOutcome(memberId: string, operationId: string, outcome: OpenOutcome): Promise<void> {
    await this.pool.query(
      `UPDATE operations SET attempts_not_run = attempts_not_run + $1, held_error = $2::jsonb, resume_after = $3,
         held_resumes = CASE WHEN $2::jsonb IS NULL THEN 0 ELSE held_resumes + 1 END
       WHERE member_id = $4 AND operation_id = $5 AND state = 'pending'`,
      [outcome.ranNothing ? 1 : 0, outcome.held ? JSON.stringify(outcome.held.error) : null, outcome.held?.resumeAfter ?? null, memberId, operationId],
    );
  }

  async heldOperations(memberId?: string): Promise<OperationRecord[]> {
    const { rows } = await this.pool.query<OperationRow>(
      `SELECT * FROM operations WHERE state = 'pending' AND parent_operation_id IS NULL AND held_error IS NOT NULL
         AND ($1::text IS NULL OR member_id = $1) ORDER BY created_at`,
      [memberId ?? null],
    );
    return rows.map(toOperation);
  }

  async completeOperation(operation: OperationKey, completion: Completion): Promise<boolean> {
    return this.#complete({ operation, completion });
  }

  async failOperation(memberId: string, operationId: string, error: StoredError, wordsCharged = 0): Promise<void> {
    await this.pool.query(
      `WITH parts AS (
         UPDATE operations SET request_body = NULL WHERE member_id = $2 AND parent_operation_id = $3 AND request_body IS NOT NULL
       )
       UPDATE operations SET state = 'failed', error = $1, words_charged = ${FAILED_CHARGE_AT_LEAST('$4', '$2', '$3')}, request_body = NULL, updated_at = clock_timestamp(),
         held_error = NULL, held_resumes = 0, resume_after = NULL
       WHERE member_id = $2 AND operation_id = $3 AND state != 'completed'`,
      [JSON.stringify(error), memberId, operationId, wordsCharged],
    );
  }

  async keepPending(memberId: string, operationId: string, requestBody: string): Promise<void> {
    await this.pool.query(
      `UPDATE operations SET state = 'pending', error = NULL, request_body = $1, words_reserved = words_charged, updated_at = clock_timestamp()
       WHERE member_id = $2 AND operation_id = $3 AND state = 'failed'`,
      [requestBody, memberId, operationId],
    );
  }

  async purgeSettled(settledBefore: Date): Promise<number> {
    // The old row versions become dead tuples; autovacuum reclaims their space.
    const { rowCount } = await this.pool.query(
      `UPDATE operations o SET result = NULL, error = NULL, request_body = NULL, expired_at = clock_timestamp()
       WHERE state <> 'pending' AND expired_at IS NULL AND updated_at < $1
         AND (o.parent_operation_id IS NULL OR EXISTS (
               SELECT 1 FROM operations parent WHERE parent.member_id = o.member_id AND parent.operation_id = o.parent_operation_id
                 AND parent.state <> 'pending' AND (parent.expired_at IS NOT NULL OR parent.updated_at < $1)))`,
      [settledBefore],
    );
    return rowCount ?? 0;
  }

  async pendingOperations(): Promise<OperationRecord[]> {
    const { rows } = await this.pool.query<OperationRow>(`SELECT * FROM operations WHERE state = 'pending' AND parent_operation_id IS NULL ORDER BY created_at`);
    return rows.map(toOperation);
  }

  async completedKeyOf(upstreamKeyId: string): Promise<{ idempotencyKey: string; product: Product } | undefined> {
    const { rows } = await this.pool.query<{ idempotency_key: string; product: Product }>(
      `SELECT idempotency_key, product FROM operations WHERE upstream_key_id = $1 AND state = 'completed' AND source = 'upstream' AND accepted_key IS NULL LIMIT 1`,
      [upstreamKeyId],
    );
    const row = rows[0];
    return row && { idempotencyKey: row.idempotency_key, product: row.product };
  }

  async wordsCharged(memberId: string): Promise<Record<Product, number>> {
    const totals = Object.fromEntries(PRODUCTS.map((product) => [product, 0])) as Record<Product, number>;
    const { rows } = await this.pool.query<{ product: Product; words: string }>(
      `SELECT product, sum(words_charged) AS words FROM operations
       WHERE member_id = $1 AND ${CHARGED_WORDS_COUNTED}
         GROUP BY product`,
      [memberId],
    );
    for (const row of rows) totals[row.product] = Number(row.words);
    return totals;
  }

  async budgetUsage(memberId: string): Promise<Record<Product, number>> {
    const totals = Object.fromEntries(PRODUCTS.map((product) => [product, 0])) as Record<Product, number>;
    const { rows } = await this.pool.query<{ product: Product; words: string }>('SELECT product, words FROM member_usage WHERE member_id = $1', [memberId]);
    for (const row of rows) totals[row.product] = Number(row.words);
    return totals;
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  #oauth: Promise<OAuthStore> | undefined;

  /** OAuth tables live in the same schema, versioned on their own (./oauth-postgres.ts). */
  oauthStore(): Promise<OAuthStore> {
    return (this.#oauth ??= PostgresOAuthStore.open(this.pool));
  }

  #console: Promise<ConsoleStore> | undefined;

  /** Console tables live in the same schema, versioned on their own (./console-postgres.ts), after the OAuth tables, which their link purge reads. */
  consoleStore(): Promise<ConsoleStore> {
    return (this.#console ??= this.oauthStore().then(() => PostgresConsoleStore.open(this.pool)));
  }
}
