import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '@redline/bff/members';
import type { Ledger, NewOperation } from '@redline/bff/storage/ledger';
import { COMPLETE_OPERATIONS, OPEN_OPERATION, OPEN_OPERATIONS, PostgresLedger } from '@redline/bff/storage/postgres';
import { newOperationValues } from '@redline/bff/storage/rows';
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
  wordsReserved: 0,
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
    expect(await ledger.revokeMember('m_2')).toBe(true);
    expect(await ledger.revokeMember('m_2')).toBe(false);
    // By id only: a name is not an id.
    expect(await ledger.revokeMember('ada')).toBe(false);
    expect(await ledger.memberByTokenHash(hashToken('t2'))).toBeUndefined();
    expect((await ledger.listMembers()).map((member) => [member.name, member.revokedAt !== null])).toEqual([
      ['ada', false],
      ['bob', true],
    ]);
  });

  it('inserts an operation once, with its parts in one step, and returns the stored record either way', async () => {
    const first = operation('one');
    const inserted = await ledger.openOperation([first]);
    // A single operation's first attempt is counted with its insert.
    expect(inserted).toEqual({ status: 'inserted', record: expect.objectContaining({ operationId: 'one', idempotencyKey: first.idempotencyKey, state: 'pending', attempts: 1, requestBody: first.requestBody }) });
    const repeat = await ledger.openOperation([operation('one', { fingerprint: 'other work' })]);
    expect(repeat).toEqual({ status: 'exists', record: expect.objectContaining({ idempotencyKey: first.idempotencyKey, fingerprint: 'fp-one', attempts: 1 }) });
    expect(await ledger.openOperation([operation('doc', { parts: 2 }), operation('doc#0', { parentOperationId: 'doc', partIndex: 0 }), operation('doc#1', { parentOperationId: 'doc', partIndex: 1 })])).toMatchObject({ status: 'inserted' });
    expect(await ledger.openOperation([operation('doc')])).toMatchObject({ status: 'exists', record: { operationId: 'doc', parts: 2, attempts: 0 } });
    expect((await ledger.partsOf('m_1', 'doc')).map((part) => part.operationId)).toEqual(['doc#0', 'doc#1']);
    expect((await ledger.pendingOperations()).map((pending) => pending.operationId)).toEqual(['one', 'doc']);
  });

  it('finds an operation opened again with the same key (keys are derived from the operation), also twice in one turn', async () => {
    const same = operation('same-key', { idempotencyKey: 'derived-key-0123456789abcdef' });
    expect(await ledger.openOperation([same])).toMatchObject({ status: 'inserted' });
    expect(await ledger.openOperation([same])).toMatchObject({ status: 'exists', record: { attempts: 1 } });
    const twice = operation('same-turn', { idempotencyKey: 'derived-key-fedcba9876543210' });
    const results = await Promise.all([ledger.openOperation([twice]), ledger.openOperation([twice]), ledger.openOperation([operation('other-in-turn')])]);
    expect(results.map((result) => result.status)).toEqual(['inserted', 'exists', 'inserted']);
  });

  it('records attempts, completion (dropping the request bytes) and failure; sums words per product', async () => {
    await ledger.openOperation([operation('single')]);
    await ledger.countAttempt('m_1', 'single');
    await ledger.completeOperation({ memberId: 'm_1', operationId: 'single', product: 'detector' }, { result: { data: { ok: [1, 'ü😀'] } }, source: 'offline', wordsCharged: 42, acceptedKey: 'their-key', acceptedKeySource: 'server-generated' });
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

    await ledger.openOperation([operation('failing', { product: 'humanizer' })]);
    await ledger.failOperation('m_1', 'failing', { status: 402, error: { code: 'quota_exceeded', message: 'no words', remainingWords: 3 } });
    expect(await ledger.findOperation('m_1', 'failing')).toMatchObject({ state: 'failed', error: { status: 402, error: { remainingWords: 3 } } });
    expect(await ledger.wordsCharged('m_1')).toEqual({ detector: 42, humanizer: 0, plagiarism: 0 });
  });

  it('reserves words against a budget with the insert, adjusts them to the charge, releases them on failure', async () => {
    await ledger.addMember({ id: 'm_b', name: 'budgeted', tokenHash: hashToken('tb'), tokenPrefix: 'rl_b…', budgets: { detector: 100 } });
    const op = (id: string, words: number, extra: Partial<NewOperation> = {}) => operation(id, { memberId: 'm_b', wordsReserved: words, ...extra });
    expect(await ledger.openOperation([op('b1', 90)])).toMatchObject({ status: 'inserted' });
    expect(await ledger.openOperation([op('b2', 20), op('b2#0', 0, { parentOperationId: 'b2', partIndex: 0 })])).toEqual({ status: 'over_budget', remainingWords: 10 });
    expect(await ledger.findOperation('m_b', 'b2#0')).toBeUndefined(); // nothing of a refused insert stays
    expect((await ledger.budgetUsage('m_b')).detector).toBe(90);
    expect(await ledger.openOperation([op('b1', 90)])).toMatchObject({ status: 'exists' }); // a repeat reserves nothing
    expect((await ledger.budgetUsage('m_b')).detector).toBe(90);
    // Other products and budget-free members are counted but never refused.
    expect(await ledger.openOperation([op('h1', 5000, { product: 'humanizer' })])).toMatchObject({ status: 'inserted' });

    expect(await ledger.completeOperation({ memberId: 'm_b', operationId: 'b1', product: 'detector' }, { result: {}, source: 'upstream', wordsCharged: 85 })).toBe(true);
    expect((await ledger.budgetUsage('m_b')).detector).toBe(85);
    // Counted once; the second completion (another instance's) is told it changed nothing.
    expect(await ledger.completeOperation({ memberId: 'm_b', operationId: 'b1', product: 'detector' }, { result: {}, source: 'upstream', wordsCharged: 85 })).toBe(false);
    expect((await ledger.budgetUsage('m_b')).detector).toBe(85);
    expect(await ledger.openOperation([op('b3', 15)])).toMatchObject({ status: 'inserted' });
    expect(await ledger.openOperation([op('b4', 1)])).toEqual({ status: 'over_budget', remainingWords: 0 });
    await ledger.failOperation('m_b', 'b3', { status: 402, error: { code: 'quota_exceeded', message: 'no words' } });
    expect((await ledger.budgetUsage('m_b')).detector).toBe(85);
    expect(await ledger.openOperation([op('b4', 10)])).toMatchObject({ status: 'inserted' });
    expect(await ledger.reopenOperation('m_b', 'b3', '{"text":"again"}', 15)).toEqual({ status: 'over_budget', remainingWords: 5 });
    expect((await ledger.findOperation('m_b', 'b3'))?.state).toBe('failed');
    await ledger.failOperation('m_b', 'b4', { status: 402, error: { code: 'quota_exceeded', message: 'no words' } });
    expect(await ledger.reopenOperation('m_b', 'b3', '{"text":"again"}', 15)).toMatchObject({ status: 'inserted' });
    expect(await ledger.findOperation('m_b', 'b3')).toMatchObject({ state: 'pending', error: null });
    // Reopened already (by another request or instance): said so, and nothing reserved twice.
    expect(await ledger.reopenOperation('m_b', 'b3', '{"text":"again"}', 15)).toEqual({ status: 'changed' });
    expect(await ledger.budgetUsage('m_b')).toEqual({ detector: 100, humanizer: 5000, plagiarism: 0 });
    expect((await ledger.wordsCharged('m_b')).detector).toBe(85);
  });

  it('keeps pending, with its bytes, a failure another instance settled while an attempt of the same key is open; holding no more words than it was charged', async () => {
    await ledger.addMember({ id: 'm_k', name: 'kept-open', tokenHash: hashToken('tk'), tokenPrefix: 'rl_k…', budgets: { detector: 10 } });
    await ledger.openOperation([operation('k1', { memberId: 'm_k', wordsReserved: 8 })]);
    await ledger.failOperation('m_k', 'k1', { status: 502, error: { code: 'provider_aborted', message: 'aborted' } });
    // Other operations took the rest of the budget meanwhile: keeping it open reserves nothing more, so it is not refused.
    await ledger.openOperation([operation('k2', { memberId: 'm_k', wordsReserved: 10 })]);
    await ledger.keepPending('m_k', 'k1', '{"text":"kept"}');
    expect(await ledger.findOperation('m_k', 'k1')).toMatchObject({ state: 'pending', error: null, requestBody: '{"text":"kept"}' });
    expect((await ledger.budgetUsage('m_k')).detector).toBe(10);
    expect((await ledger.pendingOperations()).map((each) => each.operationId)).toContain('k1');
    // Completed by the resume: its words counted once.
    await ledger.completeOperation({ memberId: 'm_k', operationId: 'k1', product: 'detector' }, { result: {}, source: 'upstream', wordsCharged: 8 });
    expect((await ledger.budgetUsage('m_k')).detector).toBe(18);
    // A completed or pending operation is left as it is.
    await ledger.keepPending('m_k', 'k1', '{"text":"again"}');
    expect(await ledger.findOperation('m_k', 'k1')).toMatchObject({ state: 'completed', requestBody: null });
  });

  // A member may pass the budget by what the upstream charged (more than predicted, or a budget
  // lowered meanwhile): keeping an operation pending then reserves nothing more, and is not
  // refused (the SQLite trigger refused any return to pending over the budget, PostgreSQL's none
  // that adds nothing, so the open outcome's charge was lost on SQLite alone).
  it('keeps pending a failure another instance settled while the member is over the budget', async () => {
    await ledger.addMember({ id: 'm_o', name: 'over', tokenHash: hashToken('to'), tokenPrefix: 'rl_o…', budgets: { detector: 10 } });
    await ledger.openOperation([operation('o1', { memberId: 'm_o', wordsReserved: 4 })]);
    await ledger.failOperation('m_o', 'o1', { status: 502, error: { code: 'provider_aborted', message: 'aborted' } });
    await ledger.openOperation([operation('o2', { memberId: 'm_o', wordsReserved: 5 })]);
    await ledger.completeOperation({ memberId: 'm_o', operationId: 'o2', product: 'detector' }, { result: {}, source: 'upstream', wordsCharged: 12 });
    await ledger.keepPending('m_o', 'o1', '{"text":"kept"}');
    expect(await ledger.findOperation('m_o', 'o1')).toMatchObject({ state: 'pending', requestBody: '{"text":"kept"}' });
    expect((await ledger.budgetUsage('m_o')).detector).toBe(12);
  });

  it('drops request bytes when an operation settles; after retention keeps only metadata, and parts of a pending document', async () => {
    const charged = await ledger.wordsCharged('m_1');
    await ledger.openOperation([operation('r-done', { wordsReserved: 7 })]);
    await ledger.completeOperation({ memberId: 'm_1', operationId: 'r-done', product: 'detector' }, { result: { text: 'secret result' }, source: 'upstream', wordsCharged: 7 });
    await ledger.openOperation([operation('r-fail')]);
    await ledger.failOperation('m_1', 'r-fail', { status: 402, error: { code: 'quota_exceeded', message: 'no words' } });
    expect((await ledger.findOperation('m_1', 'r-fail'))?.requestBody).toBeNull();
    const part = (id: string, parent: string, index: number) => operation(id, { parentOperationId: parent, partIndex: index });
    await ledger.openOperation([operation('r-doc', { parts: 2 }), part('r-doc#0', 'r-doc', 0), part('r-doc#1', 'r-doc', 1)]);
    await ledger.completeOperation({ memberId: 'm_1', operationId: 'r-doc#0', product: 'detector' }, { result: { text: 'part result' }, source: 'upstream', wordsCharged: 3 });
    await ledger.failOperation('m_1', 'r-doc', { status: 400, error: { code: 'invalid_request', message: 'refused' } });
    expect((await ledger.partsOf('m_1', 'r-doc')).map((p) => [p.state, p.requestBody])).toEqual([
      ['completed', null],
      ['pending', null], // the failed document's unsent part keeps no text either
    ]);
    await ledger.openOperation([operation('r-pending', { parts: 2 }), part('r-pending#0', 'r-pending', 0), part('r-pending#1', 'r-pending', 1)]);
    await ledger.completeOperation({ memberId: 'm_1', operationId: 'r-pending#0', product: 'detector' }, { result: { text: 'needed for the merge' }, source: 'upstream', wordsCharged: 3 });

    expect(await ledger.purgeSettled(new Date(Date.now() - 3_600_000))).toBe(0);
    expect(await ledger.purgeSettled(new Date(Date.now() + 1000))).toBeGreaterThanOrEqual(4);
    const done = await ledger.findOperation('m_1', 'r-done');
    expect(done).toMatchObject({ state: 'completed', result: null, requestBody: null, wordsCharged: 7, fingerprint: 'fp-r-done', idempotencyKey: expect.stringMatching(/^key-r-done/) });
    expect(done?.expiredAt).toEqual(expect.any(String));
    expect(await ledger.findOperation('m_1', 'r-fail')).toMatchObject({ state: 'failed', error: null, expiredAt: expect.any(String) });
    expect(await ledger.findOperation('m_1', 'r-pending#0')).toMatchObject({ result: { text: 'needed for the merge' }, expiredAt: null });
    expect((await ledger.findOperation('m_1', 'r-pending'))?.requestBody).not.toBeNull();
    // The completed parts of the failed and of the pending document stay charged.
    expect((await ledger.wordsCharged('m_1')).detector).toBe(charged.detector + 7 + 3 + 3);
    // A failed document is reduced with its parts, and only then: its completed part stayed above.
    expect(await ledger.findOperation('m_1', 'r-doc#0')).toMatchObject({ expiredAt: expect.any(String), result: null });
    // A reduced failed document is never reopened (its parts' results are gone), and the caller hears that it was not.
    expect(await ledger.reopenOperation('m_1', 'r-doc', '{}', 1)).toEqual({ status: 'changed' });
    expect((await ledger.findOperation('m_1', 'r-doc'))?.state).toBe('failed');
    // A reduced single failure that charged nothing runs again (runsAgainAfterRetention), no longer reduced.
    expect(await ledger.reopenOperation('m_1', 'r-fail', '{}', 1)).toEqual({ status: 'inserted' });
    expect(await ledger.findOperation('m_1', 'r-fail')).toMatchObject({ state: 'pending', expiredAt: null, requestBody: '{}' });
  });

  it("the console's usage counts what the member's usage counts: each settled part, of a failed or a running document too", async () => {
    const part = (id: string, parent: string, index: number) => operation(id, { parentOperationId: parent, partIndex: index });
    await ledger.openOperation([operation('u-doc', { parts: 2 }), part('u-doc#0', 'u-doc', 0), part('u-doc#1', 'u-doc', 1)]);
    await ledger.completeOperation({ memberId: 'm_1', operationId: 'u-doc#0', product: 'detector' }, { result: { text: 'part' }, source: 'upstream', wordsCharged: 5 });
    const day = 86_400_000;
    const rows = await (await ledger.consoleStore()).usage(new Date(Date.now() - day), new Date(Date.now() + day));
    const counted = rows.filter((row) => row.memberId === 'm_1' && row.product === 'detector').reduce((sum, row) => sum + row.words, 0);
    expect(counted).toBe((await ledger.wordsCharged('m_1')).detector);
  });

  // A charged answer the BFF could not read is repeated (reopened), or kept pending by an open
  // outcome: the words the upstream charged stayed out of usage, the member's and the console's,
  // while it was pending again.
  it('counts the words charged before for an operation pending again, in both usages', async () => {
    await ledger.addMember({ id: 'm_c', name: 'charged-before', tokenHash: hashToken('tc'), tokenPrefix: 'rl_c…', budgets: { detector: 100 } });
    await ledger.openOperation([operation('c1', { memberId: 'm_c', wordsReserved: 7 })]);
    await ledger.failOperation('m_c', 'c1', { status: 502, error: { code: 'upstream_invalid_response', message: 'unreadable' } }, 7);
    expect(await ledger.reopenOperation('m_c', 'c1', '{"text":"again"}', 7)).toEqual({ status: 'inserted' });
    expect((await ledger.wordsCharged('m_c')).detector).toBe(7);
    const day = 86_400_000;
    const rows = await (await ledger.consoleStore()).usage(new Date(Date.now() - day), new Date(Date.now() + day));
    expect(rows.filter((row) => row.memberId === 'm_c' && row.product === 'detector').reduce((sum, row) => sum + row.words, 0)).toBe(7);
    // Settled again by the fetch of the stored answer: counted once.
    await ledger.completeOperation({ memberId: 'm_c', operationId: 'c1', product: 'detector' }, { result: {}, source: 'upstream', wordsCharged: 7 });
    expect((await ledger.wordsCharged('m_c')).detector).toBe(7);
  });

  it('answers each operation of one turn on its own (written together): new, stored before, the same twice, over budget', async () => {
    await ledger.addMember({ id: 'm_t', name: 'turn', tokenHash: hashToken('tt'), tokenPrefix: 'rl_t…', budgets: { detector: 50 } });
    const op = (id: string, words = 1) => operation(id, { memberId: 'm_t', wordsReserved: words });
    const before = op('t-before');
    await ledger.openOperation([before]);
    const twice = [op('t-twice'), op('t-twice')];
    const results = await Promise.all([op('t1'), op('t2'), op('t-before'), twice[0]!, twice[1]!, op('t3')].map((each) => ledger.openOperation([each])));
    expect(results.map((result) => result.status)).toEqual(['inserted', 'inserted', 'exists', expect.any(String), expect.any(String), 'inserted']);
    expect(results[2]).toMatchObject({ record: { idempotencyKey: before.idempotencyKey } });
    // The same operation twice at once: one of them inserts it, and both get that record.
    expect([results[3]!.status, results[4]!.status].sort()).toEqual(['exists', 'inserted']);
    const stored = [results[3], results[4]].map((result) => (result!.status === 'over_budget' ? undefined : result!.record.idempotencyKey));
    expect(stored[0]).toBe(stored[1]);
    expect(twice.map((each) => each.idempotencyKey)).toContain(stored[0]);
    expect((await ledger.budgetUsage('m_t')).detector).toBe(5);

    // One over budget in a turn fails alone.
    const refused = await Promise.all([op('t-big', 60), op('t4'), op('t1')].map((each) => ledger.openOperation([each])));
    expect(refused.map((result) => result.status)).toEqual(['over_budget', 'inserted', 'exists']);
    expect([44, 45]).toContain((refused[0] as { remainingWords: number }).remainingWords); // t4 may be counted already
    expect((await ledger.budgetUsage('m_t')).detector).toBe(6);

    const complete = (id: string, n: number) => ledger.completeOperation({ memberId: 'm_t', operationId: id, product: 'detector' }, { result: { n }, source: 'upstream', wordsCharged: n + 10 });
    expect(await Promise.all(['t1', 't2', 't3'].map(complete))).toEqual([true, true, true]);
    for (const [i, id] of ['t1', 't2', 't3'].entries()) {
      expect(await ledger.findOperation('m_t', id)).toMatchObject({ state: 'completed', result: { n: i }, wordsCharged: i + 10, requestBody: null });
    }
    expect((await ledger.budgetUsage('m_t')).detector).toBe(3 + 10 + 11 + 12);
    // In one turn: one already completed, and one completed twice (the first call does it).
    expect(await Promise.all([complete('t1', 0), complete('t4', 3), complete('t4', 3)])).toEqual([false, true, false]);
    expect((await ledger.budgetUsage('m_t')).detector).toBe(3 + 10 + 11 + 12 - 1 + 13); // t4's reserved word became its 13 charged
  });

  it('answers readiness pings', async () => {
    await expect(ledger.ping()).resolves.toBeUndefined();
  });
});

it('PostgreSQL: ten 90-word operations at once on two ledgers (two instances) against a budget of 100: exactly one is inserted', async () => {
  const budgetSchema = `${schema}_budget`;
  const [a, b] = [await PostgresLedger.open(POSTGRES_URL, budgetSchema), await PostgresLedger.open(POSTGRES_URL, budgetSchema)];
  try {
    await a.addMember({ id: 'm_c', name: 'concurrent', tokenHash: hashToken('tc'), tokenPrefix: 'rl_c…', budgets: { detector: 100 } });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).openOperation([operation(`c${i}`, { memberId: 'm_c', wordsReserved: 90 })])),
    );
    expect(results.filter((result) => result.status === 'inserted')).toHaveLength(1);
    expect(results.filter((result) => result.status === 'over_budget')).toHaveLength(9);
    expect((await b.budgetUsage('m_c')).detector).toBe(90);
  } finally {
    await a.close();
    await b.close();
    await dropSchema(budgetSchema);
  }
});

it('PostgreSQL: an operation is stored and settled with commits that do not wait for the disk (those transactions only)', async () => {
  const commitSchema = `${schema}_commit`;
  const ledger = await PostgresLedger.open(POSTGRES_URL, commitSchema);
  const { Client } = (await import('pg')).default;
  const client = new Client({ connectionString: POSTGRES_URL, options: `-c search_path=${commitSchema}` });
  await client.connect();
  const setting = async () => ((await client.query('SELECT current_setting($1) AS value', ['synchronous_commit'])).rows[0] as { value: string }).value;
  /** Runs the ledger's statement in a transaction of its own: the setting inside it, and after its commit. */
  const inTransaction = async (statement: { text: string }, values: unknown[]) => {
    await client.query('BEGIN');
    const { rows } = await client.query({ text: statement.text, values });
    const during = await setting();
    await client.query('COMMIT');
    return { rows, during, after: await setting() };
  };
  const columns = (rows: unknown[][]) => rows[0]!.map((_, column) => rows.map((row) => row[column]));
  try {
    await ledger.addMember({ id: 'm_s', name: 'sync', tokenHash: hashToken('ts'), tokenPrefix: 'rl_s…', budgets: { detector: 100 } });
    expect(await setting()).toBe('on');
    const opened = await inTransaction(OPEN_OPERATION, [...newOperationValues(operation('s1', { memberId: 'm_s' })), 1]);
    expect(opened).toMatchObject({ rows: [{ operation_id: 's1', inserted_now: true }], during: 'off', after: 'on' });
    const batch = await inTransaction(OPEN_OPERATIONS, columns(['s2', 's3'].map((id) => [...newOperationValues(operation(id, { memberId: 'm_s' })), 1])));
    expect(batch).toMatchObject({ during: 'off', after: 'on' });
    expect(batch.rows).toHaveLength(2);
    const completed = await inTransaction(COMPLETE_OPERATIONS, [[JSON.stringify({ ok: true })], ['upstream'], [3], [null], [null], ['m_s'], ['s1']]);
    expect(completed).toMatchObject({ during: 'off', after: 'on' });
    expect(await ledger.findOperation('m_s', 's1')).toMatchObject({ state: 'completed', wordsCharged: 3 });
  } finally {
    await client.end();
    await ledger.close();
    await dropSchema(commitSchema);
  }
});

it('PostgreSQL: several members and products in every turn, on two instances, open and complete without deadlocks, and usage adds up', async () => {
  const turnsSchema = `${schema}_turns`;
  const [a, b] = [await PostgresLedger.open(POSTGRES_URL, turnsSchema), await PostgresLedger.open(POSTGRES_URL, turnsSchema)];
  try {
    const members = ['m1', 'm2', 'm3', 'm4', 'm5', 'm6'];
    for (const id of members) await a.addMember({ id, name: id, tokenHash: hashToken(`turns-${id}`), tokenPrefix: 'rl_…', budgets: { detector: 1_000_000, humanizer: 1_000_000 } });
    // A fixed shuffle per turn: requests of different members and products arrive in any order.
    let seed = 7;
    const shuffled = <T>(items: T[]) => items.map((item) => ({ item, key: (seed = (seed * 48271) % 2147483647) })).sort((x, y) => x.key - y.key).map(({ item }) => item);
    const opened: Promise<unknown>[] = [];
    const completed: Promise<unknown>[] = [];
    for (let turn = 0; turn < 30; turn++) {
      const calls = shuffled(members.flatMap((memberId) => (['detector', 'humanizer'] as const).map((product) => ({ memberId, product }))));
      for (const [i, { memberId, product }] of calls.entries()) {
        const ledger = i % 2 ? a : b;
        const operationId = `turn${turn}-${memberId}-${product}`;
        opened.push(
          ledger.openOperation([operation(operationId, { memberId, product, wordsReserved: 3 })]).then((result) => {
            expect(result.status).toBe('inserted');
            completed.push(ledger.completeOperation({ memberId, operationId, product }, { result: { turn }, source: 'upstream', wordsCharged: 2 }));
          }),
        );
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(opened);
    await Promise.all(completed);
    for (const id of members) expect(await b.budgetUsage(id)).toEqual({ detector: 60, humanizer: 60, plagiarism: 0 });
  } finally {
    await a.close();
    await b.close();
    await dropSchema(turnsSchema);
  }
});

it.each(ledgers)('%s: the key of an operation is derived under a secret kept in the ledger: the same after reopening and on another instance, another for another ledger', async (name) => {
  const shared = `${schema}_secret`;
  const folders = [mkdtempSync(path.join(tmpdir(), 'redline-ledger-secret-')), mkdtempSync(path.join(tmpdir(), 'redline-ledger-secret-'))];
  const open = (which: number) => (name === 'SQLite' ? Promise.resolve(new SqliteLedger(path.join(folders[which]!, 'ledger.sqlite'))) : PostgresLedger.open(POSTGRES_URL, `${shared}${which}`));
  const keyed = { memberId: 'm_1', operationId: 'op', fingerprint: 'fp' };
  const ledgers = [await open(0), await open(0), await open(1)];
  try {
    const key = await ledgers[0]!.idempotencyKeyFor(keyed);
    expect(key).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(await ledgers[1]!.idempotencyKeyFor(keyed)).toBe(key);
    expect(await ledgers[0]!.idempotencyKeyFor({ ...keyed, operationId: 'op2' })).not.toBe(key);
    expect(await ledgers[2]!.idempotencyKeyFor(keyed)).not.toBe(key);
    await ledgers[0]!.close();
    ledgers[0] = await open(0);
    expect(await ledgers[0]!.idempotencyKeyFor(keyed)).toBe(key);
  } finally {
    for (const ledger of ledgers) await ledger.close();
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
    if (name !== 'SQLite') for (const which of [0, 1]) await dropSchema(`${shared}${which}`);
  }
});

it.each(ledgers)('%s: one operation opened at once on two connections (two instances) is stored once, and both get the stored record', async (name, _open) => {
  const shared = `${schema}_race`;
  const folder2 = mkdtempSync(path.join(tmpdir(), 'redline-ledger-race-'));
  const open = () => (name === 'SQLite' ? Promise.resolve(new SqliteLedger(path.join(folder2, 'ledger.sqlite'))) : PostgresLedger.open(POSTGRES_URL, shared));
  const [a, b] = [await open(), await open()];
  try {
    for (let round = 0; round < 60; round++) {
      // Even rounds: each call proposes a key of its own (as before keys were derived); odd: the same
      // key. Rounds 0-9: two calls per instance in a turn (one statement for both); then one each.
      const derived = `derived-${round}-0123456789abcdef`;
      const instances = round < 10 ? [a, b, a, b] : [a, b];
      const results = await Promise.all(instances.map((ledger) => ledger.openOperation([operation(`race-${round}`, round % 2 ? { idempotencyKey: derived } : {})])));
      const stored = results.map((result) => (result.status === 'over_budget' ? undefined : result.record.idempotencyKey));
      expect(results.filter((result) => result.status === 'inserted')).toHaveLength(1);
      expect(new Set(stored).size).toBe(1);
      expect(stored[0]).toBeDefined();
    }
  } finally {
    await a.close();
    await b.close();
    rmSync(folder2, { recursive: true, force: true });
    if (name !== 'SQLite') await dropSchema(shared);
  }
});
