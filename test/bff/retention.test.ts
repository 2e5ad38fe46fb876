import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countWords } from '@redline/shared';
import { hashToken } from '@redline/bff/members';
import { splitDocument } from '@redline/bff/operations/documents';
import { PostgresLedger } from '@redline/bff/storage/postgres';
import type { SqliteLedger } from '@redline/bff/storage/sqlite';
import { MIXED_TEXT } from '../upstream/fixtures.ts';
import { POSTGRES_URL, dropSchema, newOperationId, startHarness, type Harness } from './harness.ts';

// Retention: a request's text leaves the ledger when its operation settles; results are kept
// for BFF_RESULT_RETENTION_HOURS, then reduced to metadata by the BFF's own schedule, and a
// repeat after that is 410 result_expired without a new charge. The clock is injected.

const HOUR = 3_600_000;
const schema = `retention_${process.pid}`;
const ledgers = [
  ['SQLite', undefined, {}],
  // The purge's log truncation then runs on the checkpoint thread.
  ['SQLite, checkpoints on a thread', undefined, { BFF_SQLITE_CHECKPOINTS: 'thread' }],
  ['PostgreSQL', () => PostgresLedger.open(POSTGRES_URL, schema), {}],
] as const;

afterAll(() => dropSchema(schema));

const waitFor = async (condition: () => boolean | Promise<boolean>, what: string, ms = 5000) => {
  for (const started = Date.now(); Date.now() - started < ms; ) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
};

describe.each(ledgers)('%s', (name, openLedger, ledgerEnv) => {
  let h: Harness;
  let clockOffset = 0;
  const marker = (label: string) => `Zebra${label}Umbrella${process.pid}${name}`;
  // The SQLite file and its WAL and SHM files, as bytes on disk.
  const onDisk = (needle: string) =>
    ['bff.sqlite', 'bff.sqlite-wal', 'bff.sqlite-shm'].some((file) => {
      const full = path.join(h.dataDir, file);
      return existsSync(full) && readFileSync(full).includes(Buffer.from(needle));
    });
  const stored = async (operationId: string) => {
    const record = await h.bff.ledger.findOperation((await h.bff.ledger.memberByTokenHash(tokenHash))!.id, operationId);
    return JSON.stringify(record ?? null);
  };
  let tokenHash: string;

  beforeAll(async () => {
    h = await startHarness({
      env: { BFF_RESULT_RETENTION_HOURS: '24', BFF_PURGE_INTERVAL_SECONDS: '0.2', ...ledgerEnv },
      ledger: openLedger ? await openLedger() : undefined,
      now: () => Date.now() + clockOffset,
    });
    tokenHash = hashToken(h.token);
  });
  afterAll(() => h?.close());

  it('a failed operation keeps no text once it settles', async () => {
    const text = `${marker('Failed')} ${MIXED_TEXT}`;
    await h.control.setBalances('demo', { detector: 1 });
    // A 429 first: the BFF waits its Retry-After with the operation pending, then the quota refusal settles it.
    await h.control.addFaults([{ fault: { kind: 'status', status: 429, retryAfterSeconds: 1 } }]);
    const operationId = newOperationId();
    const answer = h.call('/v1/detect', { operationId, text });
    await waitFor(async () => (await h.control.received()).length > 0, 'the upstream call');
    // While the operation is pending its text is in the ledger (it must be, to resume it).
    expect(await stored(operationId)).toContain(marker('Failed'));
    if (name.startsWith('SQLite')) expect(onDisk(marker('Failed'))).toBe(true);
    expect((await answer).body.error.code).toBe('quota_exceeded');
    expect(await stored(operationId)).not.toContain(marker('Failed'));
    // Gone from the file's bytes too, after the next scheduled WAL checkpoint (secure_delete zeroes freed space).
    if (name.startsWith('SQLite')) await waitFor(() => !onDisk(marker('Failed')), 'the text to leave the SQLite files');
    await h.control.setBalances('demo', { detector: 1_000_000 });
  });

  it('a result is kept for the retention period, then reduced to metadata; a repeat is 410 and charges nothing', async () => {
    const text = `${marker('Done')} ${MIXED_TEXT}`;
    await h.control.setBalances('demo', { detector: 1_000_000 });
    const operationId = newOperationId();
    const first = await h.call('/v1/detect', { operationId, text });
    expect(first.status).toBe(200);
    const chargedUpstream = (await h.control.account('demo')).charged.detector;
    const usage = (await h.call('/v1/usage')).body.products.detector.wordsCharged;

    clockOffset = 23 * HOUR; // not yet
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await h.call('/v1/detect', { operationId, text })).body.replayed).toBe(true);
    expect(await stored(operationId)).toContain(marker('Done')); // the detector's result quotes the text

    clockOffset = 25 * HOUR;
    await waitFor(() => h.logs.text.includes('results past the retention period deleted'), 'the scheduled purge');
    const record = JSON.parse(await stored(operationId));
    expect(record).toMatchObject({ state: 'completed', result: null, requestBody: null, error: null, wordsCharged: first.body.wordsCharged });
    expect(record.expiredAt).toEqual(expect.any(String));
    expect(record.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(record.idempotencyKey).toBeTruthy();
    if (name.startsWith('SQLite')) await waitFor(() => !onDisk(marker('Done')), 'the result to leave the SQLite files');
    if (name.includes('thread')) expect((h.bff.ledger as SqliteLedger).checkpointsRunIn).toBe('thread');

    const repeat = await h.call('/v1/detect', { operationId, text });
    expect(repeat.status).toBe(410);
    expect(repeat.body.error).toMatchObject({ code: 'result_expired', message: expect.stringMatching(/24 hours/) });
    expect((await h.control.account('demo')).charged.detector).toBe(chargedUpstream);
    expect((await h.call('/v1/usage')).body.products.detector.wordsCharged).toBe(usage); // usage keeps its words
    // Another text under the same id is still a reuse, not an expiry.
    expect((await h.call('/v1/detect', { operationId, text: MIXED_TEXT })).status).toBe(409);
    clockOffset = 0;
  });

  it('a failed check that charged nothing runs again after the retention period, charged once; not refused as expired', async () => {
    const text = `${marker('FailedLong')} ${MIXED_TEXT}`;
    await h.control.setBalances('demo', { detector: 1 });
    const operationId = newOperationId();
    expect((await h.call('/v1/detect', { operationId, text })).body.error.code).toBe('quota_exceeded');
    const chargedBefore = (await h.control.account('demo')).charged.detector;

    clockOffset = 25 * HOUR;
    await waitFor(async () => JSON.parse(await stored(operationId)).expiredAt !== null, 'the purge of the failed operation');
    expect(JSON.parse(await stored(operationId))).toMatchObject({ state: 'failed', wordsCharged: 0, error: null });

    await h.control.setBalances('demo', { detector: 1_000_000 });
    const repeat = await h.call('/v1/detect', { operationId, text });
    expect(repeat.status, repeat.raw).toBe(200);
    expect(repeat.body.replayed).toBe(false);
    expect((await h.control.account('demo')).charged.detector).toBe(chargedBefore + repeat.body.wordsCharged);
    expect(JSON.parse(await stored(operationId))).toMatchObject({ state: 'completed', expiredAt: null });
    // Once: a second repeat is the stored answer.
    const again = await h.call('/v1/detect', { operationId, text });
    expect(again.body).toMatchObject({ replayed: true, wordsCharged: repeat.body.wordsCharged });
    expect((await h.control.account('demo')).charged.detector).toBe(chargedBefore + repeat.body.wordsCharged);
    clockOffset = 0;
  });

  it.runIf(name === 'PostgreSQL')('PostgreSQL holds no request text in the row after settlement', async () => {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      const { rows } = await client.query(`SELECT count(*) AS n FROM ${schema}.operations WHERE request_body IS NOT NULL AND state <> 'pending'`);
      expect(Number(rows[0].n)).toBe(0);
    } finally {
      await client.end();
    }
  });
});

describe('a large document that fails part-way (SQLite)', () => {
  it('keeps no text once it fails; a repeat rebuilds its parts from the client text and charges each part once', async () => {
    const h = await startHarness({ env: { BFF_PART_CONCURRENCY: '1' } });
    try {
      const paragraph = `${MIXED_TEXT} Paragraph marker ZebraDocument${process.pid}.`;
      const paragraphs: string[] = [];
      while (paragraphs.join('\n\n').length < 330_000) paragraphs.push(paragraph);
      const text = paragraphs.join('\n\n');
      const operationId = newOperationId();
      // Enough words for the first part only: the second is refused (402), which settles the document.
      await h.control.setBalances('demo', { detector: countWords(splitDocument(text).parts[0]!.text) + 10 });
      const failed = await h.call('/v1/detect', { operationId, text });
      expect(failed.body.error.code).toBe('quota_exceeded');
      const member = (await h.bff.ledger.listMembers()).find((candidate) => candidate.name === 'tester')!;
      const parts = await h.bff.ledger.partsOf(member.id, operationId);
      expect(parts.length).toBe(3);
      expect(parts.map((part) => part.state)).toEqual(['completed', 'failed', 'pending']);
      expect(parts.every((part) => part.requestBody === null)).toBe(true);
      expect((await h.bff.ledger.findOperation(member.id, operationId))?.requestBody).toBeNull();

      await h.control.setBalances('demo', { detector: 10_000_000 });
      const repeated = await h.call('/v1/detect', { operationId, text });
      expect(repeated.status).toBe(200);
      expect(repeated.body.wordsCharged).toBe(countWords(text));
      const account = await h.control.account('demo');
      expect(account.charged.detector).toBe(countWords(text));
      expect(account.providerRuns.detector).toBe(3);
    } finally {
      await h.close();
    }
  }, 60_000);
});

const documentSchema = `${schema}_documents`;
const expiredDocumentSchema = `${schema}_expired_documents`;
afterAll(() => Promise.all([dropSchema(documentSchema), dropSchema(expiredDocumentSchema)]));
const documentLedgers = ledgers.map(([name, open, env]) => [name, open && (() => PostgresLedger.open(POSTGRES_URL, documentSchema)), env] as const);

describe.each(documentLedgers)('a failed large document and the purge (%s)', (name, openLedger, ledgerEnv) => {
  const documentText = () => {
    const paragraphs: string[] = [];
    while (paragraphs.join('\n\n').length < 330_000) paragraphs.push(MIXED_TEXT);
    return paragraphs.join('\n\n');
  };
  const partWords = (text: string) => countWords(splitDocument(text).parts[0]!.text);

  it('keeps the completed parts of a document that can still be repeated: a repeat after a purge merges them, each part charged once', async () => {
    let clockOffset = 0;
    const h = await startHarness({
      env: { BFF_PART_CONCURRENCY: '1', BFF_RESULT_RETENTION_HOURS: '24', BFF_PURGE_INTERVAL_SECONDS: '0.2', ...ledgerEnv },
      ledger: openLedger ? await openLedger() : undefined,
      now: () => Date.now() + clockOffset,
    });
    try {
      const text = documentText();
      const operationId = newOperationId();
      // Enough words for the first part only. The second part is first told to wait 2 s (429),
      // so the document fails (402) at least 2 s after its first part completed.
      await h.control.setBalances('demo', { detector: partWords(text) + 10 });
      await h.control.addFaults([{ fault: { kind: 'delay', delayMs: 1 } }, { fault: { kind: 'status', status: 429, retryAfterSeconds: 2 } }]);
      const firstTry = Date.now();
      expect((await h.call('/v1/detect', { operationId, text })).body.error.code).toBe('quota_exceeded');
      // The retention period has passed for the first part's completion, not for the document's settlement.
      clockOffset = 24 * HOUR - (Date.now() - (firstTry + 1000));
      await new Promise((resolve) => setTimeout(resolve, 800));
      const member = (await h.bff.ledger.memberByTokenHash(hashToken(h.token)))!;
      const parts = await h.bff.ledger.partsOf(member.id, operationId);
      expect(parts[0]).toMatchObject({ state: 'completed', expiredAt: null });
      expect(parts[0]!.result).not.toBeNull();

      await h.control.setBalances('demo', { detector: 10_000_000 });
      const repeated = await h.call('/v1/detect', { operationId, text });
      expect(repeated.status).toBe(200);
      expect(repeated.body.wordsCharged).toBe(countWords(text));
      expect((await h.control.account('demo')).charged.detector).toBe(countWords(text));
    } finally {
      await h.close();
    }
  }, 60_000);

  it('a document that failed part-way, past the retention period: 410 saying it failed and what stays charged, nothing sent', async () => {
    let clockOffset = 0;
    const h = await startHarness({
      env: { BFF_PART_CONCURRENCY: '1', BFF_RESULT_RETENTION_HOURS: '24', BFF_PURGE_INTERVAL_SECONDS: '0.2', ...ledgerEnv },
      ledger: openLedger ? await PostgresLedger.open(POSTGRES_URL, expiredDocumentSchema) : undefined,
      now: () => Date.now() + clockOffset,
    });
    try {
      const text = documentText();
      const operationId = newOperationId();
      await h.control.setBalances('demo', { detector: partWords(text) + 10 });
      const failed = await h.call('/v1/detect', { operationId, text });
      expect(failed.body.error.code).toBe('quota_exceeded');
      expect(failed.body.error.message).toMatch(/repeating this operation id within 24 hours reuses those parts/);

      clockOffset = 25 * HOUR;
      const member = (await h.bff.ledger.memberByTokenHash(hashToken(h.token)))!;
      await waitFor(async () => (await h.bff.ledger.findOperation(member.id, operationId))?.expiredAt != null, 'the purge of the document');
      const sent = (await h.control.received()).length;
      await h.control.setBalances('demo', { detector: 10_000_000 });
      const repeated = await h.call('/v1/detect', { operationId, text });
      expect(repeated.status).toBe(410);
      expect(repeated.body.error).toMatchObject({ code: 'result_expired', message: expect.stringMatching(/^This check failed more than 24 hours ago/) });
      expect(repeated.body.error.message).toContain(`the ${partWords(text).toLocaleString('en-US')} words it was charged stay counted`);
      expect((await h.control.received()).length).toBe(sent);
    } finally {
      await h.close();
    }
  }, 60_000);

  /**
   * A document that failed part-way (first part completed, second refused), whose part rows of
   * `state` were then reduced as an earlier version's purge did (`also`: more columns set).
   */
  async function failedDocumentAfterOldPurge(h: Harness, state: 'completed' | 'failed', also = '') {
    const text = documentText();
    const operationId = newOperationId();
    await h.control.setBalances('demo', { detector: partWords(text) + 10 });
    expect((await h.call('/v1/detect', { operationId, text })).body.error.code).toBe('quota_exceeded');
    const file = new Database(path.join(h.dataDir, 'bff.sqlite'));
    file.prepare(`UPDATE operations SET ${also}expired_at = ? WHERE parent_operation_id = ? AND state = ?`).run(new Date().toISOString(), operationId, state);
    file.close();
    return { text, operationId };
  }

  it.runIf(name === 'SQLite')('runs again a failed part a purge took (as an older version did), which then counts as kept', async () => {
    const h = await startHarness({ env: { BFF_PART_CONCURRENCY: '1' } });
    try {
      const { text, operationId } = await failedDocumentAfterOldPurge(h, 'failed');
      await h.control.setBalances('demo', { detector: 10_000_000 });
      expect((await h.call('/v1/detect', { operationId, text })).status).toBe(200);
      const member = (await h.bff.ledger.memberByTokenHash(hashToken(h.token)))!;
      const parts = await h.bff.ledger.partsOf(member.id, operationId);
      expect(parts.map((part) => [part.state, part.expiredAt])).toEqual([['completed', null], ['completed', null], ['completed', null]]);
    } finally {
      await h.close();
    }
  }, 60_000);

  it.runIf(name === 'SQLite')('answers 410 for a document whose completed part a purge took (as an older version did), sending nothing more', async () => {
    const h = await startHarness({ env: { BFF_PART_CONCURRENCY: '1' } });
    try {
      const { text, operationId } = await failedDocumentAfterOldPurge(h, 'completed', 'result = NULL, ');
      const sent = (await h.control.received()).length;

      await h.control.setBalances('demo', { detector: 10_000_000 });
      const repeated = await h.call('/v1/detect', { operationId, text });
      expect(repeated.status).toBe(410);
      expect(repeated.body.error.code).toBe('result_expired');
      expect((await h.control.received()).length).toBe(sent);
      const member = (await h.bff.ledger.memberByTokenHash(hashToken(h.token)))!;
      expect(await h.bff.ledger.findOperation(member.id, operationId)).toMatchObject({ state: 'failed', requestBody: null });
      expect((await h.call('/v1/detect', { operationId, text })).status).toBe(410);
    } finally {
      await h.close();
    }
  }, 60_000);
});
