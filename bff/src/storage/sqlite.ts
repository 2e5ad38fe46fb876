import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { PRODUCTS, type Product } from '@redline/shared';
import type { Completion, Ledger, MemberRecord, NewMember, NewOperation, OperationRecord, StoredError } from './ledger.ts';
import { newOperationValues, toMember, toOperation, type MemberRow, type OperationRow } from './rows.ts';

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
];

/** The embedded ledger: one SQLite file in WAL mode, written synchronously before each step returns. */
export class SqliteLedger implements Ledger {
  readonly #db: Database.Database;
  readonly #statements = new Map<string, Database.Statement>();

  constructor(file: string) {
    if (file !== ':memory:') mkdirSync(path.dirname(file), { recursive: true });
    this.#db = new Database(file);
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('synchronous = NORMAL');
    this.#db.pragma('busy_timeout = 5000');
    this.#migrate();
  }

  /** A prepared statement, prepared once per SQL text. */
  #sql(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) this.#statements.set(sql, (statement = this.#db.prepare(sql)));
    return statement;
  }

  #migrate(): void {
    const version = this.#db.pragma('user_version', { simple: true }) as number;
    for (let next = version; next < MIGRATIONS.length; next++) {
      this.#db.transaction(() => {
        this.#db.exec(MIGRATIONS[next]!);
        this.#db.pragma(`user_version = ${next + 1}`);
      })();
    }
  }

  async addMember(member: NewMember): Promise<void> {
    this.#sql('INSERT INTO members (id, name, token_hash, token_prefix, budgets, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(member.id, member.name, member.tokenHash, member.tokenPrefix, JSON.stringify(member.budgets), new Date().toISOString());
  }

  async memberByTokenHash(tokenHash: string): Promise<MemberRecord | undefined> {
    const row = this.#sql('SELECT * FROM members WHERE token_hash = ? AND revoked_at IS NULL').get(tokenHash) as MemberRow | undefined;
    return row && toMember(row);
  }

  async listMembers(): Promise<MemberRecord[]> {
    return (this.#sql('SELECT * FROM members ORDER BY created_at, name').all() as MemberRow[]).map(toMember);
  }

  async revokeMember(idOrName: string): Promise<boolean> {
    const { changes } = this.#sql('UPDATE members SET revoked_at = ? WHERE (id = ? OR name = ?) AND revoked_at IS NULL')
      .run(new Date().toISOString(), idOrName, idOrName);
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

  async insertOperations(operations: NewOperation[]): Promise<boolean> {
    const now = new Date().toISOString();
    const insert = this.#sql(
      `INSERT INTO operations (member_id, operation_id, product, fingerprint, idempotency_key, request_body,
         parent_operation_id, part_index, parts, state, source, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)
       ON CONFLICT (member_id, operation_id) DO NOTHING`,
    );
    return this.#db.transaction(() => {
      for (const [index, operation] of operations.entries()) {
        const { changes } = insert.run(...newOperationValues(operation), now, now);
        if (changes === 0 && index === 0) return false;
      }
      return true;
    })();
  }

  async partsOf(memberId: string, parentOperationId: string): Promise<OperationRecord[]> {
    const rows = this.#sql('SELECT * FROM operations WHERE member_id = ? AND parent_operation_id = ? ORDER BY part_index')
      .all(memberId, parentOperationId) as OperationRow[];
    return rows.map(toOperation);
  }

  async countAttempt(memberId: string, operationId: string): Promise<void> {
    this.#sql('UPDATE operations SET attempts = attempts + 1, updated_at = ? WHERE member_id = ? AND operation_id = ?')
      .run(new Date().toISOString(), memberId, operationId);
  }

  async completeOperation(memberId: string, operationId: string, completion: Completion): Promise<void> {
    this.#sql(
        `UPDATE operations SET state = 'completed', result = ?, source = ?, error = NULL, words_charged = ?,
           request_body = NULL, accepted_key = ?, accepted_key_source = ?, updated_at = ?
         WHERE member_id = ? AND operation_id = ?`,
      )
      .run(
        JSON.stringify(completion.result),
        completion.source,
        completion.wordsCharged,
        completion.acceptedKey ?? null,
        completion.acceptedKeySource ?? null,
        new Date().toISOString(),
        memberId,
        operationId,
      );
  }

  async failOperation(memberId: string, operationId: string, error: StoredError): Promise<void> {
    this.#sql(`UPDATE operations SET state = 'failed', error = ?, updated_at = ? WHERE member_id = ? AND operation_id = ? AND state != 'completed'`)
      .run(JSON.stringify(error), new Date().toISOString(), memberId, operationId);
  }

  async pendingOperations(): Promise<OperationRecord[]> {
    const rows = this.#sql(`SELECT * FROM operations WHERE state = 'pending' AND parent_operation_id IS NULL ORDER BY created_at`)
      .all() as OperationRow[];
    return rows.map(toOperation);
  }

  async wordsCharged(memberId: string): Promise<Record<Product, number>> {
    const totals = Object.fromEntries(PRODUCTS.map((product) => [product, 0])) as Record<Product, number>;
    const rows = this.#sql(
        `SELECT product, sum(words_charged) AS words FROM operations
         WHERE member_id = ? AND state = 'completed' AND parent_operation_id IS NULL GROUP BY product`,
      )
      .all(memberId) as { product: Product; words: number }[];
    for (const row of rows) totals[row.product] = row.words;
    return totals;
  }

  async ping(): Promise<void> {
    this.#sql('SELECT 1').get();
  }

  async close(): Promise<void> {
    this.#db.close();
  }
}
