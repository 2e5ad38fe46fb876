import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '@redline/bff/members';
import type { Ledger, NewOperation } from '@redline/bff/storage/ledger';
import { PostgresLedger } from '@redline/bff/storage/postgres';
import { SqliteLedger } from '@redline/bff/storage/sqlite';
import { POSTGRES_URL, dropSchema } from './harness.ts';

// One contract, two ledgers: the embedded SQLite file and the machine's real PostgreSQL.
const schema = `ledger_test_${process.pid}`;
const folder = mkdtempSync(path.join(tmpdir(), 'redline-ledger-'));

const ledgers: [string, () => Promise<Ledger>][] = [
  ['SQLite', async () => new SqliteLedger(path.join(folder, 'ledger.sqlite'))],
  ['PostgreSQL', () => PostgresLedger.open(POSTGRES_URL, schema)],
];

afterAll(async () => {
  rmSync(folder, { recursive: true, force: true });
  await dropSchema(schema);
});

const operation = (operationId: string, extra: Partial<NewOperation> = {}): NewOperation => ({
  memberId: 'm_1',
  operationId,
  product: 'detector',
  fingerprint: `fp-${operationId}`,
  idempotencyKey: `key-${operationId}-${Math.random().toString(36).slice(2)}`,
  requestBody: '{"text":"Hello.","version":"v3"}',
  parentOperationId: null,
  partIndex: null,
  parts: 1,
  source: 'upstream',
  ...extra,
});

describe.each(ledgers)('%s ledger', (_name, open) => {
  let ledger: Ledger;
  beforeAll(async () => {
    ledger = await open();
  });
  afterAll(() => ledger?.close());

  it('keeps members by token hash, lists and revokes them', async () => {
    await ledger.addMember({ id: 'm_1', name: 'ada', tokenHash: hashToken('t1'), tokenPrefix: 'rl_abcd…', budgets: { detector: 100 } });
    expect(await ledger.memberByTokenHash(hashToken('t1'))).toMatchObject({ id: 'm_1', name: 'ada', budgets: { detector: 100 }, revokedAt: null });
    await ledger.addMember({ id: 'm_2', name: 'bob', tokenHash: hashToken('t2'), tokenPrefix: 'rl_efgh…', budgets: {} });
    await expect(ledger.addMember({ id: 'm_3', name: 'ada', tokenHash: hashToken('t3'), tokenPrefix: 'x', budgets: {} })).rejects.toThrow();
    expect(await ledger.countActiveMembers()).toBe(2);
    expect(await ledger.revokeMember('bob')).toBe(true);
    expect(await ledger.revokeMember('bob')).toBe(false);
    expect(await ledger.memberByTokenHash(hashToken('t2'))).toBeUndefined();
    expect((await ledger.listMembers()).map((member) => [member.name, member.revokedAt !== null])).toEqual([
      ['ada', false],
      ['bob', true],
    ]);
  });

  it('inserts an operation once, with its parts in one step', async () => {
    expect(await ledger.insertOperations([operation('doc', { parts: 2 }), operation('doc#0', { parentOperationId: 'doc', partIndex: 0 }), operation('doc#1', { parentOperationId: 'doc', partIndex: 1 })])).toBe(true);
    expect(await ledger.insertOperations([operation('doc')])).toBe(false);
    expect((await ledger.partsOf('m_1', 'doc')).map((part) => part.operationId)).toEqual(['doc#0', 'doc#1']);
    expect((await ledger.pendingOperations()).map((pending) => pending.operationId)).toEqual(['doc']);
  });

  it('records attempts, completion (dropping the request bytes) and failure; sums words per product', async () => {
    await ledger.insertOperations([operation('single')]);
    await ledger.countAttempt('m_1', 'single');
    await ledger.countAttempt('m_1', 'single');
    await ledger.completeOperation('m_1', 'single', { result: { data: { ok: [1, 'ü😀'] } }, source: 'offline', wordsCharged: 42, acceptedKey: 'their-key', acceptedKeySource: 'server-generated' });
    expect(await ledger.findOperation('m_1', 'single')).toMatchObject({
      state: 'completed',
      attempts: 2,
      requestBody: null,
      result: { data: { ok: [1, 'ü😀'] } },
      source: 'offline',
      wordsCharged: 42,
      acceptedKey: 'their-key',
      acceptedKeySource: 'server-generated',
    });
    await ledger.failOperation('m_1', 'single', { status: 410, error: { code: 'result_expired', message: 'old' } });
    expect((await ledger.findOperation('m_1', 'single'))?.state).toBe('completed'); // a result is never lost

    await ledger.insertOperations([operation('failing', { product: 'humanizer' })]);
    await ledger.failOperation('m_1', 'failing', { status: 402, error: { code: 'quota_exceeded', message: 'no words', remainingWords: 3 } });
    expect(await ledger.findOperation('m_1', 'failing')).toMatchObject({ state: 'failed', error: { status: 402, error: { remainingWords: 3 } } });
    expect(await ledger.wordsCharged('m_1')).toEqual({ detector: 42, humanizer: 0, plagiarism: 0 });
  });

  it('answers readiness pings', async () => {
    await expect(ledger.ping()).resolves.toBeUndefined();
  });
});
