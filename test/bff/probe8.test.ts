import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countWords } from '@redline/shared';
import { splitDocument } from '@redline/bff/operations/documents';
import type { AccountConfig } from '../upstream/accounts.ts';
import { ConsoleClient } from './console-client.ts';
import { newOperationId, startHarness, type Harness } from './harness.ts';

// An outside probe (the eighth): real HTTP to the upstream double, real SQLite files and a
// PostgreSQL schema of its own.

const SECRET = Buffer.alloc(32, 8).toString('base64');
const ALL_PRODUCTS = { detector: 1_000_000, humanizer: 1_000_000, plagiarism: 1_000_000 };
const OLD_ACCOUNT_KEY = 'old-account-key-00001';
const NEW_ACCOUNT_KEY = 'new-account-key-00002';
const ACCOUNTS: AccountConfig[] = [
  { id: 'old', keys: [OLD_ACCOUNT_KEY], balances: { ...ALL_PRODUCTS } },
  { id: 'new', keys: [NEW_ACCOUNT_KEY], balances: { ...ALL_PRODUCTS } },
];

/** Three parts: two as long as the upstream allows, the third short. */
const THREE_PARTS = 'The committee reviewed the annual figures and agreed on a plan. '.repeat(5100) + 'The end.';
const PART_WORDS = splitDocument(THREE_PARTS).parts.map((part) => countWords(part.text));
const sum = (words: number[]) => words.reduce((total, count) => total + count, 0);

describe.each(['sqlite', 'postgres'] as const)('%s: a document failed part-way for quota, its last part never sent, repeated after the team moved to another account', (ledger) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ ledger, upstream: { accounts: ACCOUNTS }, apiKey: OLD_ACCOUNT_KEY, env: { BFF_SECRET_KEY: SECRET, BFF_MEMBER_RATE_LIMIT: '100000', BFF_PART_CONCURRENCY: '1' } });
    const tester = (await h.bff.ledger.listMembers()).find((member) => member.name === 'tester')!;
    await (await h.bff.ledger.consoleStore()).setRole(tester.id, 'admin');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('sends the part no account ever saw with the key in use: one repeat completes it, the old account charged nothing more', async () => {
    expect(PART_WORDS).toHaveLength(3);
    // The old account pays for the first part only: the second is refused for quota, the third is never sent.
    await h.control.setBalances('old', { detector: PART_WORDS[0]! + 5 });
    const operationId = newOperationId();
    const failed = await h.call('/v1/detect', { operationId, text: THREE_PARTS });
    expect(failed.body.error?.code, failed.raw).toBe('quota_exceeded');
    const memberId = (await h.bff.ledger.listMembers()).find((member) => member.name === 'tester')!.id;
    const parts = await h.bff.ledger.partsOf(memberId, operationId);
    // The precondition: the last part is pending and was never sent.
    expect(parts.map((part) => [part.state, part.attempts])).toEqual([['completed', 1], ['failed', 1], ['pending', 0]]);

    // The team moves to another account, which has words (tested, saved and activated in the console).
    const admin = await ConsoleClient.signIn(h.bff.url, h.token);
    const moved = await admin.rotateTo('new account', NEW_ACCOUNT_KEY);
    expect(moved.test.account).toBe('other'); // another account than the key in use
    const [oldBefore, newBefore] = [await h.control.account('old'), await h.control.account('new')];

    const repeat = await h.call('/v1/detect', { operationId, text: THREE_PARTS });
    // Before: 402 quota_exceeded "Part 3 of 3": the part never sent went to the account the team
    // left (its key, the environment's, is still set) and was refused there; only a second repeat
    // completed the document. Had the old account had words for it, it would have been charged there.
    expect(repeat.status, repeat.raw).toBe(200);
    expect(repeat.body.wordsCharged).toBe(sum(PART_WORDS));
    const [oldAfter, newAfter] = [await h.control.account('old'), await h.control.account('new')];
    expect(oldAfter.providerRuns.detector - oldBefore.providerRuns.detector).toBe(0);
    expect(oldAfter.charged.detector - oldBefore.charged.detector).toBe(0);
    expect(newAfter.charged.detector - newBefore.charged.detector).toBe(PART_WORDS[1]! + PART_WORDS[2]!);
    const usage = await h.call('/v1/usage', undefined, { method: 'GET' });
    expect(usage.body.products.detector.wordsCharged).toBe(sum(PART_WORDS));
  }, 60_000);
});

describe.each(['sqlite', 'postgres'] as const)('%s: a check refused 429 at every attempt, repeated after the team moved to another account', (ledger) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ ledger, upstream: { accounts: ACCOUNTS }, apiKey: OLD_ACCOUNT_KEY, env: { BFF_SECRET_KEY: SECRET, BFF_MEMBER_RATE_LIMIT: '100000', BFF_REQUEST_DEADLINE_MS: '1500' } });
    const tester = (await h.bff.ledger.listMembers()).find((member) => member.name === 'tester')!;
    await (await h.bff.ledger.consoleStore()).setRole(tester.id, 'admin');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('runs on the account in use, not on the one the team left', async () => {
    const text = 'One two three four five six seven eight nine ten eleven twelve.';
    await h.control.addFaults([{ fault: { kind: 'status', status: 429, retryAfterSeconds: 30 }, product: 'detector', times: 1 }]);
    const operationId = newOperationId();
    const busy = await h.call('/v1/detect', { operationId, text });
    expect(busy.body.error?.code, busy.raw).toBe('busy');
    const memberId = (await h.bff.ledger.listMembers()).find((member) => member.name === 'tester')!.id;
    const stored = await h.bff.ledger.findOperation(memberId, operationId);
    // The precondition: pending, its one attempt known to have run nothing.
    expect([stored?.state, stored?.attempts, stored?.attemptsNotRun]).toEqual(['pending', 1, 1]);

    const admin = await ConsoleClient.signIn(h.bff.url, h.token);
    await admin.rotateTo('new account', NEW_ACCOUNT_KEY);
    const [oldBefore, newBefore] = [await h.control.account('old'), await h.control.account('new')];
    const repeat = await h.call('/v1/detect', { operationId, text });
    expect(repeat.status, repeat.raw).toBe(200);
    const [oldAfter, newAfter] = [await h.control.account('old'), await h.control.account('new')];
    // Before: run and charged on the old account (its key, the environment's, is still set).
    expect(oldAfter.charged.detector - oldBefore.charged.detector).toBe(0);
    expect(newAfter.charged.detector - newBefore.charged.detector).toBe(12);
    expect((await h.bff.ledger.findOperation(memberId, operationId))?.upstreamKeyId).not.toBe(stored?.upstreamKeyId);
  }, 60_000);
});
