/**
 * Micro-benchmark: the ledger's cost per operation, sequentially, on SQLite and PostgreSQL.
 * Each operation goes through the real OperationEngine and ledger (a new operation id, the
 * budget reservation, the first attempt, the completion) with an in-process forwarder that
 * answers a precomputed detector result at once, so what is timed is the ledger path and
 * not the upstream or HTTP. Median µs per operation over several rounds.
 *
 *   npm run bench:ledger [-- --operations 2000 --rounds 5 --ledgers sqlite,postgres]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { detect } from '@redline/shared/analysis';
import { createLogger } from '@redline/bff/logging';
import { createMetrics } from '@redline/bff/metrics';
import { OperationEngine } from '@redline/bff/operations/engine';
import type { Ledger, MemberRecord } from '@redline/bff/storage/ledger';
import { PostgresLedger } from '@redline/bff/storage/postgres';
import { SqliteLedger } from '@redline/bff/storage/sqlite';
import type { Forwarder } from '@redline/bff/upstream/forwarder';
import { TEST_DATABASE_URL } from '../system.ts';
import { MIXED_TEXT } from '../upstream/fixtures.ts';

const { values } = parseArgs({
  options: {
    operations: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '5' },
    ledgers: { type: 'string', default: 'sqlite,postgres' },
    url: { type: 'string', default: TEST_DATABASE_URL },
  },
});
const operations = Number(values.operations);
const rounds = Number(values.rounds);

const text = MIXED_TEXT;
const { chunks, ai_percentage, words_processed } = detect(text, 'v3');
const answer = { success: true, data: { details: { chunks, ai_percentage }, version: 'v3', words_processed } };
const forwarder: Forwarder = {
  source: 'upstream',
  forward: async () => ({ ok: true, body: answer }),
  close: async () => {},
};

/**
 * Counts the statements the ledger sends: every pg query (a round trip) and every
 * better-sqlite3 statement run, BEGIN and COMMIT of a transaction included on both.
 */
let statements = 0;
const countCalls = (prototype: Record<string, unknown>, methods: string[]) => {
  for (const method of methods) {
    const original = prototype[method] as (...args: unknown[]) => unknown;
    prototype[method] = function (this: unknown, ...args: unknown[]) {
      statements++;
      return original.apply(this, args);
    };
  }
};
countCalls(pg.Client.prototype as unknown as Record<string, unknown>, ['query']);
const sqliteStatement = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1')) as Record<string, unknown>;
countCalls(sqliteStatement, ['run', 'get', 'all', 'iterate']);

const member: MemberRecord = { id: 'm_bench', name: 'bench', tokenPrefix: 'rl_bench', budgets: {}, role: 'member', rateLimit: null, createdAt: new Date().toISOString(), revokedAt: null };

async function measure(name: string, ledger: Ledger): Promise<void> {
  await ledger.addMember({ id: member.id, name: member.name, tokenHash: 'bench-hash', tokenPrefix: member.tokenPrefix, budgets: {} });
  const engine = new OperationEngine({
    ledger,
    forwarder,
    metrics: createMetrics(),
    logger: createLogger('warn'),
    partConcurrency: 2,
    resultRetentionHours: 24,
  });
  const perOperation: number[] = [];
  let sequence = 0;
  const run = () => engine.run(member, { product: 'detector', operationId: `op-${sequence++}`, text, version: 'v3' });
  for (let i = 0; i < Math.min(200, operations); i++) await run(); // warm-up: prepared statements, JIT
  const counted = statements;
  for (let round = 0; round < rounds; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < operations; i++) await run();
    perOperation.push(Number(process.hrtime.bigint() - start) / 1000 / operations);
  }
  const perOperationStatements = (statements - counted) / (rounds * operations);
  const sorted = [...perOperation].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  console.log(`${name.padEnd(11)} ${median.toFixed(0).padStart(6)} µs/operation, ${perOperationStatements.toFixed(1)} statements/operation (median of ${rounds} rounds of ${operations}; rounds: ${perOperation.map((v) => v.toFixed(0)).join(', ')})`);
}

const wanted = new Set(values.ledgers.split(','));
if (wanted.has('sqlite')) {
  const folder = mkdtempSync(path.join(tmpdir(), 'redline-ledger-bench-'));
  const ledger = new SqliteLedger(path.join(folder, 'ledger.sqlite'));
  try {
    await measure('SQLite', ledger);
  } finally {
    await ledger.close();
    rmSync(folder, { recursive: true, force: true });
  }
}
if (wanted.has('postgres')) {
  const schema = `ledger_bench_${process.pid}`;
  const ledger = await PostgresLedger.open(values.url, schema);
  try {
    await measure('PostgreSQL', ledger);
  } finally {
    await ledger.close();
    const client = new pg.Client({ connectionString: values.url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  }
}
