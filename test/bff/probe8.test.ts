import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countWords } from '@redline/shared';
import { loadConfig } from '@redline/bff/config';
import { createMember } from '@redline/bff/members';
import { splitDocument } from '@redline/bff/operations/documents';
import { startBff, type RunningBff } from '@redline/bff/server';
import { PostgresLedger } from '@redline/bff/storage/postgres';
import type { AccountConfig } from '../upstream/accounts.ts';
import { startUpstreamDouble } from '../upstream/server.ts';
import { upstreamControl } from '../upstream/client.ts';
import { ConsoleClient } from './console-client.ts';
import { FAST_RETRIES, LogCapture, POSTGRES_URL, dropSchema, newOperationId, request, startHarness, type Harness } from './harness.ts';

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
    h = await startHarness({ ledger, upstream: { accounts: ACCOUNTS }, apiKey: OLD_ACCOUNT_KEY, env: { BFF_SECRET_KEY: SECRET, BFF_MEMBER_RATE_LIMIT: '100000', BFF_PART_CONCURRENCY: '1' }, testerRole: 'admin' });
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

describe.each(['sqlite', 'postgres'] as const)('%s: a check refused 429 at every attempt under a console key, the team then moving to another account', (ledger) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ ledger, upstream: { accounts: ACCOUNTS }, apiKey: null, env: { BFF_SECRET_KEY: SECRET, BFF_MEMBER_RATE_LIMIT: '100000', BFF_REQUEST_DEADLINE_MS: '1500' }, testerRole: 'admin' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('the old key can be removed, and the repeat runs on the account in use, not on the one the team left', async () => {
    const admin = await ConsoleClient.signIn(h.bff.url, h.token);
    const old = await admin.rotateTo('old account', OLD_ACCOUNT_KEY);
    const text = 'One two three four five six seven eight nine ten eleven twelve.';
    await h.control.addFaults([{ fault: { kind: 'status', status: 429, retryAfterSeconds: 30 }, product: 'detector', times: 1 }]);
    const operationId = newOperationId();
    const busy = await h.call('/v1/detect', { operationId, text });
    expect(busy.body.error?.code, busy.raw).toBe('busy');
    const memberId = (await h.bff.ledger.listMembers()).find((member) => member.name === 'tester')!.id;
    const stored = await h.bff.ledger.findOperation(memberId, operationId);
    // The precondition: pending with the old key, its one attempt known to have run nothing.
    expect([stored?.state, stored?.attempts, stored?.attemptsNotRun, stored?.upstreamKeyId]).toEqual(['pending', 1, 1, old.id]);

    const moved = await admin.rotateTo('new account', NEW_ACCOUNT_KEY);
    // Before: 409, "1 operation(s) that started with this key are still running", until it ran on the old account.
    const removed = await admin.post(`/upstream-keys/${old.id}/remove`);
    expect(removed.status, removed.raw).toBe(200);
    const [oldBefore, newBefore] = [await h.control.account('old'), await h.control.account('new')];
    const repeat = await h.call('/v1/detect', { operationId, text });
    expect(repeat.status, repeat.raw).toBe(200);
    const [oldAfter, newAfter] = [await h.control.account('old'), await h.control.account('new')];
    // Before (with the old key still set): run and charged on the old account.
    expect(oldAfter.charged.detector - oldBefore.charged.detector).toBe(0);
    expect(newAfter.charged.detector - newBefore.charged.detector).toBe(12);
    expect((await h.bff.ledger.findOperation(memberId, operationId))?.upstreamKeyId).toBe(moved.id);
  }, 60_000);
});

describe('one operation id sent at the same moment with other work, and by another member, on two instances sharing PostgreSQL', () => {
  const schema = `probe8_identity_${process.pid}`;
  const folder = mkdtempSync(path.join(tmpdir(), 'redline-probe8-identity-'));
  const instances: RunningBff[] = [];
  const logs = [new LogCapture(), new LogCapture()];
  afterAll(async () => {
    for (const instance of instances) await instance.stop();
    rmSync(folder, { recursive: true, force: true });
    await dropSchema(schema);
  });

  it('one of the member\'s requests runs, once; every other work under the id is 409; the other member gets its own result', async () => {
    const double = await startUpstreamDouble({ testMode: true });
    try {
      const env = { ...FAST_RETRIES, BFF_PORT: '0', BFF_DATA_DIR: folder, BFF_MEMBER_RATE_LIMIT: '1000', UPSTREAM_BASE_URL: double.url, UPSTREAM_API_KEY: 'demo-key-primary' };
      for (const log of logs) instances.push(await startBff(loadConfig(env), { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: log }));
      const [a, b] = instances as [RunningBff, RunningBff];
      const alice = (await createMember(a.ledger, 'alice-probe8')).token;
      const bob = (await createMember(a.ledger, 'bob-probe8')).token;
      const control = upstreamControl(double.url);
      await control.addFaults([{ fault: { kind: 'delay', delayMs: 400 }, times: 20 }]);
      const before = await control.account('demo');
      const operationId = newOperationId();
      const texts = ['Alpha wrote the first careful sentence here.', 'Beta wrote a different second sentence there.'];
      const calls = [
        { who: 'alice', url: a.url, path: '/v1/detect', body: { operationId, text: texts[0] }, token: alice },
        { who: 'alice', url: b.url, path: '/v1/detect', body: { operationId, text: texts[1] }, token: alice },
        { who: 'alice', url: b.url, path: '/v1/humanize', body: { operationId, text: texts[0], model: 'cognia' }, token: alice },
        { who: 'alice', url: a.url, path: '/v1/detect', body: { operationId, text: texts[0], version: 'v2' }, token: alice },
        { who: 'bob', url: b.url, path: '/v1/detect', body: { operationId, text: texts[1] }, token: bob },
      ];
      const answers = await Promise.all(calls.map((call) => request(call.url, call.path, call.body, call.token)));
      const aliceAnswers = answers.slice(0, 4);
      const through = aliceAnswers.filter((answer) => answer.status === 200);
      expect(through, aliceAnswers.map((answer) => answer.raw).join('\n')).toHaveLength(1);
      for (const answer of aliceAnswers.filter((answer) => answer.status !== 200)) expect(answer.body.error?.code, answer.raw).toBe('operation_id_reused');
      // Alice's answer is for the text of the request that got it; Bob's for his own text.
      const winner = calls[aliceAnswers.indexOf(through[0]!)]!;
      const sentenceOf = (answer: (typeof answers)[number]) =>
        answer.body.result?.data?.details?.chunks?.map((chunk: { text: string }) => chunk.text).join(' ') ?? answer.body.result?.humanized_text;
      if (winner.path === '/v1/detect' && !('version' in winner.body)) expect(sentenceOf(through[0]!)).toBe(winner.body.text);
      expect(answers[4]!.status, answers[4]!.raw).toBe(200);
      expect(answers[4]!.body.replayed).toBe(false);
      expect(sentenceOf(answers[4]!)).toBe(texts[1]);
      const after = await control.account('demo');
      const runs = (['detector', 'humanizer', 'plagiarism'] as const).reduce((sum, product) => sum + after.providerRuns[product] - before.providerRuns[product], 0);
      expect(runs).toBe(2);
      // A repeat of each refused request is still refused; the winner's is a replay.
      const again = await Promise.all(calls.slice(0, 4).map((call) => request(call === winner ? call.url : b.url, call.path, call.body, call.token)));
      for (const [index, answer] of again.entries()) {
        if (calls[index] === winner) expect(answer.body.replayed, answer.raw).toBe(true);
        else expect(answer.body.error?.code, answer.raw).toBe('operation_id_reused');
      }
      const everything = [...logs.map((log) => log.text), ...answers.filter((answer) => answer.status !== 200).map((answer) => answer.raw)].join('\n');
      for (const secret of [alice, bob, 'demo-key-primary', 'careful sentence', 'second sentence']) expect(everything).not.toContain(secret);
    } finally {
      await double.close();
    }
  }, 60_000);
});
