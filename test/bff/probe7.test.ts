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
import { startUpstreamDouble, type RunningUpstreamDouble } from '../upstream/server.ts';
import { upstreamControl } from '../upstream/client.ts';
import { ConsoleClient } from './console-client.ts';
import { FAST_RETRIES, LogCapture, POSTGRES_URL, dropSchema, newOperationId, request, startHarness, type Harness } from './harness.ts';

// An outside probe (the seventh): two BFF instances on one PostgreSQL schema, the upstream
// double over real HTTP.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SECRET = Buffer.alloc(32, 9).toString('base64');
const TEAM_KEYS = ['team-key-env-00001', 'team-key-one-00002', 'team-key-two-00003'] as const;
const ALL_PRODUCTS = { detector: 1_000_000, humanizer: 1_000_000, plagiarism: 1_000_000 };
const ACCOUNTS: AccountConfig[] = [{ id: 'team', keys: [...TEAM_KEYS], balances: { ...ALL_PRODUCTS } }];
const TEXT_12_WORDS = 'One two three four five six seven eight nine ten eleven twelve.';

/** Waits until `logs` say the instance switched to the upstream key `id` (it re-reads the keys every 5 s). */
async function switchedTo(logs: LogCapture, id: string, fromLine = 0): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const index = logs.lines.findIndex((line, n) => n >= fromLine && line.includes('upstream key in use changed') && line.includes(`"upstreamKey":"${id}"`));
    if (index >= 0) return index;
    await sleep(50);
  }
  throw new Error(`the instance never switched to ${id}`);
}

/** Two BFF instances on one PostgreSQL schema, the upstream double, and an administrator's console session on A. */
interface TwoInstances {
  double: RunningUpstreamDouble;
  a: RunningBff;
  b: RunningBff;
  aLogs: LogCapture;
  bLogs: LogCapture;
  admin: ConsoleClient;
  token: string;
  close(): Promise<void>;
}

/**
 * B's listening connections go nowhere: it hears of key changes only from its 5-second re-read
 * (a missed notice). Requests have `env`'s deadlines.
 */
async function startTwoInstances(name: string, accounts: AccountConfig[], adminName: string, env: Record<string, string> = {}): Promise<TwoInstances> {
  const schema = `probe7_${name}_${process.pid}`;
  const folder = mkdtempSync(path.join(tmpdir(), `redline-probe7-${name}-`));
  const double = await startUpstreamDouble({ testMode: true, accounts });
  const shared = {
    BFF_PORT: '0',
    BFF_DATA_DIR: folder,
    BFF_DATABASE_URL: POSTGRES_URL,
    BFF_DATABASE_SCHEMA: schema,
    UPSTREAM_BASE_URL: double.url,
    UPSTREAM_API_KEY: TEAM_KEYS[0],
    BFF_SECRET_KEY: SECRET,
    BFF_MEMBER_RATE_LIMIT: '100000',
    BFF_RESUME_INTERVAL_SECONDS: '3600',
    ...FAST_RETRIES,
    ...env,
  };
  const aLogs = new LogCapture();
  const bLogs = new LogCapture();
  const a = await startBff(loadConfig(shared), { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: aLogs });
  const deaf = new URL(POSTGRES_URL);
  deaf.port = '1';
  const b = await startBff(loadConfig({ ...shared, BFF_DATABASE_URL: deaf.href }), { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: bLogs });
  const { token, member } = await createMember(a.ledger, adminName);
  await (await a.ledger.consoleStore()).setRole(member.id, 'admin');
  const admin = await ConsoleClient.signIn(a.url, token);
  return {
    double,
    a,
    b,
    aLogs,
    bLogs,
    admin,
    token,
    async close() {
      await a.stop().catch(() => {});
      await b.stop().catch(() => {});
      await double.close();
      rmSync(folder, { recursive: true, force: true });
      await dropSchema(schema);
    },
  };
}

describe('a key removed on A while B, which missed the change notice, starts an operation with it', () => {
  let double: RunningUpstreamDouble;
  let a: RunningBff;
  let b: RunningBff;
  let aLogs: LogCapture;
  let bLogs: LogCapture;
  let admin: ConsoleClient;
  let token: string;
  let instances: TwoInstances | undefined;

  beforeAll(async () => {
    instances = await startTwoInstances('keys', ACCOUNTS, 'key-admin', { BFF_REQUEST_DEADLINE_MS: '2000', BFF_ATTEMPT_TIMEOUT_MS: '800' });
    ({ double, a, b, aLogs, bLogs, admin, token } = instances);
  });
  afterAll(() => instances?.close());

  it('the operation B left pending with the removed key is fetched with the active key of the same account, charged once', async () => {
    const control = upstreamControl(double.url);
    const one = await admin.rotateTo('one', TEAM_KEYS[1]);
    // Right after B's re-read picks up key one, B has 5 s before it reads the keys again.
    await switchedTo(bLogs, one.id);
    await admin.rotateTo('two', TEAM_KEYS[2]);
    const removed = await admin.post(`/upstream-keys/${one.id}/remove`);
    expect(removed.status, removed.raw).toBe(200);

    const before = await control.account('team');
    // B's check: the upstream runs it for 2.5 s, past the request's 2-second deadline; B answers without a result.
    await control.addFaults([{ fault: { kind: 'delay', delayMs: 2_500 }, product: 'detector', times: 1 }]);
    const operationId = newOperationId();
    const first = await request(b.url, '/v1/detect', { operationId, text: TEXT_12_WORDS }, token);
    expect(first.status, first.raw).not.toBe(200);
    const memberId = (await a.ledger.listMembers()).find((m) => m.name === 'key-admin')!.id;
    // B still used the removed key (it had not heard of the change): the probe's precondition.
    expect((await a.ledger.findOperation(memberId, operationId))?.upstreamKeyId).toBe(one.id);
    expect((await b.ledger.findOperation(memberId, operationId))?.state).toBe('pending');

    await sleep(1_000); // the upstream completes it
    const repeat = await request(a.url, '/v1/detect', { operationId, text: TEXT_12_WORDS }, token);
    // Before: 503 upstream_key_missing, and the operation held pending for good: its 12 words, charged upstream, never counted.
    expect(repeat.status, repeat.raw).toBe(200);
    expect(repeat.body.wordsCharged).toBe(12);
    const after = await control.account('team');
    expect(after.charged.detector - before.charged.detector).toBe(12);
    expect(after.providerRuns.detector - before.providerRuns.detector).toBe(1);
    const usage = await request(a.url, '/v1/usage', undefined, token);
    expect(usage.body.heldOperations ?? []).toEqual([]);
    // Neither instance's log, nor a console answer or the error answer, carries a key value, the member's token or the text.
    const everything = [aLogs.text, bLogs.text, ...admin.answers, first.raw].join('\n');
    for (const secret of [...TEAM_KEYS, token, 'eleven twelve']) expect(everything.split('\n').filter((line) => line.includes(secret))).toEqual([]);
  }, 60_000);
});

/** Two parts: the first as long as the upstream allows, the second short. */
const TWO_PARTS = 'The committee reviewed the annual figures and agreed on a plan. '.repeat(2600) + 'The end.';
const PART_WORDS = splitDocument(TWO_PARTS).parts.map((part) => countWords(part.text));
/** Three parts: two as long as the upstream allows, the third short. */
const THREE_PARTS = 'The committee reviewed the annual figures and agreed on a plan. '.repeat(5100) + 'The end.';
const THREE_PART_WORDS = splitDocument(THREE_PARTS).parts.map((part) => countWords(part.text));
const sum = (words: number[]) => words.reduce((total, count) => total + count, 0);

describe('a document failed part-way under a console key, which the team then rotates away from and removes (same account)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ upstream: { accounts: ACCOUNTS }, apiKey: TEAM_KEYS[0], env: { BFF_SECRET_KEY: SECRET, BFF_MEMBER_RATE_LIMIT: '100000', BFF_PART_CONCURRENCY: '1' }, testerRole: 'admin' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('the old key can be removed (the part never sent does not hold it), and the repeat completes it with the active key, each part charged once', async () => {
    expect(THREE_PART_WORDS).toHaveLength(3);
    const admin = await ConsoleClient.signIn(h.bff.url, h.token);
    const one = await admin.rotateTo('one', TEAM_KEYS[1]);
    const before = await h.control.account('team');
    // The account pays for the first part only: the second is refused for quota, the document fails, the third is never sent.
    await h.control.setBalances('team', { detector: THREE_PART_WORDS[0]! + 5 });
    const operationId = newOperationId();
    const failed = await h.call('/v1/detect', { operationId, text: THREE_PARTS });
    expect(failed.body.error?.code, failed.raw).toBe('quota_exceeded');
    expect((await h.control.account('team')).providerRuns.detector - before.providerRuns.detector).toBe(1);

    // The team moves to another value of its account and removes the old one: nothing that needs it is running.
    await admin.rotateTo('two', TEAM_KEYS[2]);
    const listed = await admin.get('/upstream-keys');
    expect(listed.body.keys.find((key: { id: string }) => key.id === one.id).pendingOperations).toBe(0);
    const removed = await admin.post(`/upstream-keys/${one.id}/remove`);
    // Before: 409 "1 operation(s) that started with this key are still running", for good (the part never sent stays pending).
    expect(removed.status, removed.raw).toBe(200);

    await h.control.setBalances('team', { detector: 1_000_000 });
    const repeat = await h.call('/v1/detect', { operationId, text: THREE_PARTS });
    // Before the keys removed kept their account: 503 upstream_key_missing ("a key since removed from the console"), though the active key is of the same account.
    expect(repeat.status, repeat.raw).toBe(200);
    expect(repeat.body.wordsCharged).toBe(sum(THREE_PART_WORDS));
    const after = await h.control.account('team');
    // Each part ran and was charged once (the key test's run and 3 words aside).
    expect(after.providerRuns.detector - before.providerRuns.detector - 1).toBe(3);
    expect(after.charged.detector - before.charged.detector - 3).toBe(sum(THREE_PART_WORDS));
    const usage = await h.call('/v1/usage', undefined, { method: 'GET' });
    expect(usage.body.products.detector.wordsCharged).toBe(sum(THREE_PART_WORDS));
  }, 60_000);
});

describe('a document failed part-way for quota, repeated after the team moved to an account with words', () => {
  const OTHER_KEY = 'other-key-zulu-00009';
  let h: Harness;
  beforeAll(async () => {
    const accounts: AccountConfig[] = [...ACCOUNTS, { id: 'other', keys: [OTHER_KEY], balances: { ...ALL_PRODUCTS } }];
    h = await startHarness({ upstream: { accounts }, apiKey: OTHER_KEY, env: { BFF_SECRET_KEY: SECRET, BFF_MEMBER_RATE_LIMIT: '100000', BFF_PART_CONCURRENCY: '1' }, testerRole: 'admin' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('runs the part that never ran on the account in use: completed, the first part not charged again', async () => {
    // The old account pays for the first part only: the second is refused for quota, and the document fails.
    await h.control.setBalances('other', { detector: PART_WORDS[0]! + 5 });
    const operationId = newOperationId();
    const failed = await h.call('/v1/detect', { operationId, text: TWO_PARTS });
    expect(failed.body.error?.code, failed.raw).toBe('quota_exceeded');

    // The team moves to another account, which has words (its key tested, saved and activated in the console).
    const admin = await ConsoleClient.signIn(h.bff.url, h.token);
    const moved = await admin.rotateTo('team account', TEAM_KEYS[1]);
    expect(moved.test.account).toBe('other');
    const [other, team] = [await h.control.account('other'), await h.control.account('team')];

    const repeat = await h.call('/v1/detect', { operationId, text: TWO_PARTS });
    // Before: the second part, which no account ever ran, was sent to the old account again and refused for quota, for good.
    expect(repeat.status, repeat.raw).toBe(200);
    expect(repeat.body.wordsCharged).toBe(PART_WORDS[0]! + PART_WORDS[1]!);
    expect((await h.control.account('other')).charged.detector - other.charged.detector).toBe(0);
    expect((await h.control.account('team')).charged.detector - team.charged.detector).toBe(PART_WORDS[1]);
    const usage = await h.call('/v1/usage', undefined, { method: 'GET' });
    expect(usage.body.products.detector.wordsCharged).toBe(PART_WORDS[0]! + PART_WORDS[1]!);
  }, 60_000);
});

describe('an operation A started with a key just activated, repeated on B, which missed the activation notice', () => {
  const NEW_KEY = 'team-key-new-00004';
  let double: RunningUpstreamDouble;
  let a: RunningBff;
  let b: RunningBff;
  let bLogs: LogCapture;
  let admin: ConsoleClient;
  let token: string;
  let instances: TwoInstances | undefined;

  beforeAll(async () => {
    instances = await startTwoInstances('failover', [{ id: 'team', keys: [...TEAM_KEYS, NEW_KEY], balances: { ...ALL_PRODUCTS } }], 'failover-admin');
    ({ double, a, b, bLogs, admin, token } = instances);
  });
  afterAll(() => instances?.close());

  it('B fetches it (the same account) instead of refusing it as started with a removed key and holding it', async () => {
    const control = upstreamControl(double.url);
    const one = await admin.rotateTo('one', TEAM_KEYS[1]);
    await switchedTo(bLogs, one.id);
    // Right after B's re-read: B knows nothing of the next key for up to 5 s.
    const fresh = await admin.rotateTo('new', NEW_KEY);
    const before = await control.account('team');
    await control.addFaults([{ fault: { kind: 'delay', delayMs: 1_500 }, product: 'detector', times: 1 }]);
    const operationId = newOperationId();
    const onA = request(a.url, '/v1/detect', { operationId, text: TEXT_12_WORDS }, token);
    await sleep(300);
    const memberId = (await a.ledger.listMembers()).find((m) => m.name === 'failover-admin')!.id;
    expect((await a.ledger.findOperation(memberId, operationId))?.upstreamKeyId).toBe(fresh.id);
    expect(bLogs.text).not.toContain(`"upstreamKey":"${fresh.id}"`); // B has still not heard of the new key
    // The client gives up on A and repeats on B.
    const onB = await request(b.url, '/v1/detect', { operationId, text: TEXT_12_WORDS }, token);
    // Before: 503 upstream_key_missing, "started with … a key since removed from the console", and the operation marked held.
    expect(onB.status, onB.raw).toBe(200);
    expect(onB.body.wordsCharged).toBe(12);
    expect((await onA).status).toBe(200);
    const after = await control.account('team');
    expect(after.charged.detector - before.charged.detector).toBe(12);
    expect(after.providerRuns.detector - before.providerRuns.detector).toBe(1);
  }, 60_000);

  it("a check on B with the value the upstream retired at the rotation goes through with the new one (B re-reads the keys on the 401)", async () => {
    const control = upstreamControl(double.url);
    const two = await admin.rotateTo('two', TEAM_KEYS[2]);
    await switchedTo(bLogs, two.id);
    // Right after B's re-read: the team goes back to the environment's key, and the upstream retires value two.
    const mark = bLogs.lines.length;
    expect((await admin.post('/upstream-keys/env/activate')).status).toBe(200);
    await control.changeKeys('team', { remove: [TEAM_KEYS[2]] });
    expect(bLogs.lines.slice(mark).join('\n')).not.toContain('upstream key in use changed');
    const before = await control.account('team');
    const check = await request(b.url, '/v1/detect', { operationId: newOperationId(), text: TEXT_12_WORDS }, token);
    // Before: 502 upstream_key_rejected ("an administrator must update the BFF's upstream key") until B's next re-read.
    expect(check.status, check.raw).toBe(200);
    expect(check.body.wordsCharged).toBe(12);
    expect((await control.account('team')).charged.detector - before.charged.detector).toBe(12);
  }, 60_000);
});
