import pg from 'pg';
import { PRODUCTS, type Product } from '@redline/shared';
import type { Completion, Ledger, MemberRecord, NewMember, NewOperation, OperationRecord, StoredError } from './ledger.ts';
import { newOperationValues, toMember, toOperation, type MemberRow, type OperationRow } from './rows.ts';

/**
 * The ledger in PostgreSQL, for deployments with several BFF instances. Instances may
 * forward the same operation at once after a crash or a client retry landing elsewhere:
 * they share its stored key and bytes, and the upstream's idempotency makes the second
 * call wait (409, Retry-After) and then replay, so words are still charged once.
 */

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
];

/** Serialises migrations between instances starting together. */
const MIGRATION_LOCK = 0x7265646c; // "redl"

export class PostgresLedger implements Ledger {
  private constructor(private readonly pool: pg.Pool) {}

  /** Connects and brings the schema up to date. `schema` isolates a deployment or a test. */
  static async open(connectionString: string, schema = 'public'): Promise<PostgresLedger> {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`Invalid schema name "${schema}".`);
    const pool = new pg.Pool({ connectionString, max: 10, options: `-c search_path=${schema}` });
    const ledger = new PostgresLedger(pool);
    const client = await pool.connect();
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      await client.query('CREATE TABLE IF NOT EXISTS redline_schema (version INTEGER NOT NULL)');
      const { rows } = await client.query<{ version: number }>('SELECT version FROM redline_schema');
      let version = rows[0]?.version ?? 0;
      if (rows.length === 0) await client.query('INSERT INTO redline_schema (version) VALUES (0)');
      for (; version < MIGRATIONS.length; version++) {
        await client.query('BEGIN');
        await client.query(MIGRATIONS[version]!);
        await client.query('UPDATE redline_schema SET version = $1', [version + 1]);
        await client.query('COMMIT');
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
      client.release();
    }
    return ledger;
  }

  async addMember(member: NewMember): Promise<void> {
    await this.pool.query('INSERT INTO members (id, name, token_hash, token_prefix, budgets) VALUES ($1, $2, $3, $4, $5)', [
      member.id,
      member.name,
      member.tokenHash,
      member.tokenPrefix,
      JSON.stringify(member.budgets),
    ]);
  }

  async memberByTokenHash(tokenHash: string): Promise<MemberRecord | undefined> {
    const { rows } = await this.pool.query<MemberRow>('SELECT * FROM members WHERE token_hash = $1 AND revoked_at IS NULL', [tokenHash]);
    return rows[0] && toMember(rows[0]);
  }

  async listMembers(): Promise<MemberRecord[]> {
    const { rows } = await this.pool.query<MemberRow>('SELECT * FROM members ORDER BY created_at, name');
    return rows.map(toMember);
  }

  async revokeMember(idOrName: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('UPDATE members SET revoked_at = now() WHERE (id = $1 OR name = $1) AND revoked_at IS NULL', [idOrName]);
    return (rowCount ?? 0) > 0;
  }

  async countActiveMembers(): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>('SELECT count(*) AS n FROM members WHERE revoked_at IS NULL');
    return Number(rows[0]!.n);
  }

  async findOperation(memberId: string, operationId: string): Promise<OperationRecord | undefined> {
    const { rows } = await this.pool.query<OperationRow>('SELECT * FROM operations WHERE member_id = $1 AND operation_id = $2', [memberId, operationId]);
    return rows[0] && toOperation(rows[0]);
  }

  async insertOperations(operations: NewOperation[]): Promise<boolean> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      for (const [index, operation] of operations.entries()) {
        const { rowCount } = await client.query(
          `INSERT INTO operations (member_id, operation_id, product, fingerprint, idempotency_key, request_body,
             parent_operation_id, part_index, parts, state, source)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending', $10)
           ON CONFLICT (member_id, operation_id) DO NOTHING`,
          newOperationValues(operation),
        );
        if (rowCount === 0 && index === 0) {
          await client.query('ROLLBACK');
          return false;
        }
      }
      await client.query('COMMIT');
      return true;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  async partsOf(memberId: string, parentOperationId: string): Promise<OperationRecord[]> {
    const { rows } = await this.pool.query<OperationRow>(
      'SELECT * FROM operations WHERE member_id = $1 AND parent_operation_id = $2 ORDER BY part_index',
      [memberId, parentOperationId],
    );
    return rows.map(toOperation);
  }

  async countAttempt(memberId: string, operationId: string): Promise<void> {
    await this.pool.query('UPDATE operations SET attempts = attempts + 1, updated_at = clock_timestamp() WHERE member_id = $1 AND operation_id = $2', [
      memberId,
      operationId,
    ]);
  }

  async completeOperation(memberId: string, operationId: string, completion: Completion): Promise<void> {
    await this.pool.query(
      `UPDATE operations SET state = 'completed', result = $1, source = $2, error = NULL, words_charged = $3,
         request_body = NULL, accepted_key = $4, accepted_key_source = $5, updated_at = clock_timestamp()
       WHERE member_id = $6 AND operation_id = $7`,
      [JSON.stringify(completion.result), completion.source, completion.wordsCharged, completion.acceptedKey ?? null, completion.acceptedKeySource ?? null, memberId, operationId],
    );
  }

  async failOperation(memberId: string, operationId: string, error: StoredError): Promise<void> {
    await this.pool.query(
      `UPDATE operations SET state = 'failed', error = $1, updated_at = clock_timestamp() WHERE member_id = $2 AND operation_id = $3 AND state != 'completed'`,
      [JSON.stringify(error), memberId, operationId],
    );
  }

  async pendingOperations(): Promise<OperationRecord[]> {
    const { rows } = await this.pool.query<OperationRow>(`SELECT * FROM operations WHERE state = 'pending' AND parent_operation_id IS NULL ORDER BY created_at`);
    return rows.map(toOperation);
  }

  async wordsCharged(memberId: string): Promise<Record<Product, number>> {
    const totals = Object.fromEntries(PRODUCTS.map((product) => [product, 0])) as Record<Product, number>;
    const { rows } = await this.pool.query<{ product: Product; words: string }>(
      `SELECT product, sum(words_charged) AS words FROM operations
       WHERE member_id = $1 AND state = 'completed' AND parent_operation_id IS NULL GROUP BY product`,
      [memberId],
    );
    for (const row of rows) totals[row.product] = Number(row.words);
    return totals;
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
