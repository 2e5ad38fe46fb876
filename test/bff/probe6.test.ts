import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
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
import { connectMcp, newToolKey, toolJson, toolSummary } from './mcp-client.ts';
import { FAST_RETRIES, LogCapture, POSTGRES_URL, dropSchema, newOperationId, request, startHarness, type Harness } from './harness.ts';

// An outside probe (the sixth): real HTTP, the upstream double, real PostgreSQL and SQLite files.

/** Two parts: the first as long as the upstream allows, the second short. */
const TWO_PARTS = 'The committee reviewed the annual figures and agreed on a plan. '.repeat(2600) + 'The end.';
const PART_WORDS = splitDocument(TWO_PARTS).parts.map((part) => countWords(part.text));

describe('an MCP repeat of a large document that failed after one part was charged', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { BFF_PART_CONCURRENCY: '1', BFF_RESUME_INTERVAL_SECONDS: '3600' } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("says what this call charged, not the whole document's words as if charged now", async () => {
    expect(PART_WORDS).toHaveLength(2);
    const mcp = await connectMcp(h.bff.url, h.token);
    const key = newToolKey();
    // The account pays for the first part only: the second is refused for quota.
    await h.control.setBalances('demo', { detector: PART_WORDS[0]! + 5 });
    const failed = await mcp.callTool({ name: 'detect_ai_text', arguments: { text: TWO_PARTS, idempotency_key: key } });
    expect(failed.isError).toBe(true);
    expect(toolJson(failed).error.code).toBe('quota_exceeded');
    expect((await h.control.account('demo')).charged.detector).toBe(PART_WORDS[0]);

    // After a top-up the assistant repeats the call: only the second part is run and charged.
    await h.control.setBalances('demo', { detector: 1_000_000 });
    const repeated = await mcp.callTool({ name: 'detect_ai_text', arguments: { text: TWO_PARTS, idempotency_key: key } });
    expect(repeated.isError, toolSummary(repeated)).toBeFalsy();
    const total = PART_WORDS[0]! + PART_WORDS[1]!;
    expect((await h.control.account('demo')).charged.detector).toBe(total);
    expect(toolJson(repeated).wordsCharged).toBe(total);
    const summary = toolSummary(repeated);
    // The summary must not read as "the whole document charged now" (an assistant adding the first call's charge counts it twice).
    expect(summary).not.toMatch(new RegExp(`${total.toLocaleString('en-US')} words charged\\.`));
    const words = (count: number) => `${count.toLocaleString('en-US')} word${count === 1 ? '' : 's'}`;
    expect(summary).toContain(
      `${words(PART_WORDS[1]!)} charged now; earlier calls with this idempotency_key were charged ${words(PART_WORDS[0]!)} for it, so ${words(total)} for the whole operation, none twice.`,
    );
    // A repeat of the completed call says it was charged once, the whole of it.
    const again = await mcp.callTool({ name: 'detect_ai_text', arguments: { text: TWO_PARTS, idempotency_key: key } });
    expect(toolSummary(again)).toContain(`${words(total)} charged for it once; nothing charged again.`);
    await mcp.close();
  }, 60_000);

  it('a document left pending (rate limited past the deadline) and resumed by the repeat says what the repeat charged', async () => {
    await h.control.clearFaults();
    await h.control.setBalances('demo', { detector: 1_000_000 });
    const mcp = await connectMcp(h.bff.url, h.token);
    const key = newToolKey();
    const before = (await h.control.account('demo')).charged.detector;
    // The first part runs; the second is rate limited past the deadline: the call answers busy, the document stays pending.
    await h.control.addFaults([
      { fault: { kind: 'delay', delayMs: 1 }, product: 'detector' }, // taken by the first part, which then runs
      { fault: { kind: 'status', status: 429, retryAfterSeconds: 60 }, product: 'detector', times: 5 },
    ]);
    const busy = await mcp.callTool({ name: 'detect_ai_text', arguments: { text: TWO_PARTS, idempotency_key: key } });
    expect(toolJson(busy).error?.code).toBe('busy');
    expect((await h.control.account('demo')).charged.detector - before).toBe(PART_WORDS[0]);
    await h.control.clearFaults();

    const resumed = await mcp.callTool({ name: 'detect_ai_text', arguments: { text: TWO_PARTS, idempotency_key: key } });
    expect(resumed.isError, toolSummary(resumed)).toBeFalsy();
    const total = PART_WORDS[0]! + PART_WORDS[1]!;
    expect((await h.control.account('demo')).charged.detector - before).toBe(total);
    const words = (count: number) => `${count.toLocaleString('en-US')} word${count === 1 ? '' : 's'}`;
    expect(toolSummary(resumed)).toContain(`${words(PART_WORDS[1]!)} charged now; earlier calls with this idempotency_key were charged ${words(PART_WORDS[0]!)} for it`);
    await mcp.close();
  }, 60_000);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SECRET = Buffer.alloc(32, 7).toString('base64');
const KEYS = ['team-key-alpha-0001', 'team-key-bravo-0002', 'team-key-charlie-0003', 'team-key-delta-0004'] as const;
const OTHER_KEY = 'other-key-echo-0005';
const TEXT_12_WORDS = 'One two three four five six seven eight nine ten eleven twelve.';
const ALL_PRODUCTS = { detector: 1_000_000, humanizer: 1_000_000, plagiarism: 1_000_000 };
const ACCOUNTS: AccountConfig[] = [
  { id: 'team', keys: [...KEYS], balances: { ...ALL_PRODUCTS } },
  { id: 'other', keys: [OTHER_KEY], balances: { ...ALL_PRODUCTS } },
];

/** Two BFF instances on one PostgreSQL schema with the upstream double, an administrator signed in on each. */
describe('two instances administering upstream keys at once', () => {
  const schema = `probe6_keys_${process.pid}`;
  const folder = mkdtempSync(path.join(tmpdir(), 'redline-probe6-keys-'));
  let double: RunningUpstreamDouble;
  const instances: RunningBff[] = [];
  const consoles: ConsoleClient[] = [];
  let adminToken: string;
  let database: pg.Client;

  beforeAll(async () => {
    double = await startUpstreamDouble({ testMode: true, accounts: ACCOUNTS });
    const env = { BFF_PORT: '0', BFF_DATA_DIR: folder, BFF_DATABASE_URL: POSTGRES_URL, BFF_DATABASE_SCHEMA: schema, UPSTREAM_BASE_URL: double.url, UPSTREAM_API_KEY: KEYS[0], BFF_SECRET_KEY: SECRET, BFF_MEMBER_RATE_LIMIT: '100000', ...FAST_RETRIES };
    for (let i = 0; i < 2; i++) instances.push(await startBff(loadConfig(env), { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: new LogCapture() }));
    const admin = await createMember(instances[0]!.ledger, 'key-admin');
    adminToken = admin.token;
    await (await instances[0]!.ledger.consoleStore()).setRole(admin.member.id, 'admin');
    for (const instance of instances) consoles.push(await ConsoleClient.signIn(instance.url, admin.token));
    database = new pg.Client({ connectionString: POSTGRES_URL, options: `-c search_path=${schema}` });
    await database.connect();
  });
  afterAll(async () => {
    await database?.end();
    for (const instance of instances) await instance.stop().catch(() => {});
    await double?.close();
    rmSync(folder, { recursive: true, force: true });
    await dropSchema(schema);
  });

  /** Pastes, tests and marks saved a key on instance 0; its id. */
  async function savedKey(label: string, value: string): Promise<string> {
    const added = await consoles[0]!.post('/upstream-keys', { label, key: value });
    expect(added.status, added.raw).toBe(201);
    const id = added.body.key.id as string;
    const tested = await consoles[0]!.post(`/upstream-keys/${id}/test`);
    expect(tested.body.test?.ok, tested.raw).toBe(true);
    expect((await consoles[0]!.post(`/upstream-keys/${id}/saved`)).status).toBe(200);
    return id;
  }

  const activeRows = async () => (await database.query<{ id: string }>("SELECT id FROM upstream_keys WHERE state = 'active' ORDER BY id")).rows.map((row) => row.id);

  /** Waits until `count` statements on the keys table wait for a lock. */
  async function waitingOnLocks(count: number): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const { rows } = await database.query<{ n: string }>(
        "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name = $1",
        [`redline-bff:${schema}`],
      );
      if (Number(rows[0]!.n) >= count) return;
      await sleep(25);
    }
    throw new Error(`fewer than ${count} statements waited for a lock`);
  }

  /** Runs the calls one after another, each left waiting for a lock, while a transaction holds the active key's row; then lets them go. */
  async function whileActiveKeyHeld(calls: (() => Promise<Awaited<ReturnType<ConsoleClient['post']>>>)[]) {
    await database.query('BEGIN');
    const started = [];
    try {
      await database.query("SELECT id FROM upstream_keys WHERE state = 'active' FOR UPDATE");
      for (const [index, call] of calls.entries()) {
        started.push(call());
        await waitingOnLocks(index + 1);
      }
    } finally {
      await database.query('COMMIT');
    }
    return { answers: await Promise.all(started) };
  }

  /** Both instances list `id` as the key in use, and send it, within the announcement's delivery. */
  async function expectBothInstancesUse(id: string): Promise<void> {
    await sleep(300);
    for (const console of consoles) {
      const listed = await console.get('/upstream-keys');
      expect(listed.body.activeKeyId, listed.raw).toBe(id);
      expect(listed.body.keys.filter((key: { state: string }) => key.state === 'active').length).toBeLessThanOrEqual(1);
    }
  }

  it('two administrators activating two keys at once on two instances leave one active key, which both instances use', async () => {
    const first = await savedKey('bravo', KEYS[1]);
    const x = await savedKey('charlie', KEYS[2]);
    const y = await savedKey('delta', KEYS[3]);
    expect((await consoles[0]!.post(`/upstream-keys/${first}/activate`)).status).toBe(200);
    expect(await activeRows()).toEqual([first]);

    // A third change holds the active key's row (an activation under way elsewhere) while both administrators activate, A first.
    const { answers } = await whileActiveKeyHeld([() => consoles[0]!.post(`/upstream-keys/${x}/activate`), () => consoles[1]!.post(`/upstream-keys/${y}/activate`)]);
    // Before: B's statement still saw the old active key, and the one-active index refused its activation (500, "something went wrong").
    for (const answer of answers) expect(answer.status, answer.raw).toBe(200);
    expect(await activeRows()).toEqual([y]);
    await expectBothInstancesUse(y);

    // An activation on A and a return to the environment's key on B at once: B's comes last, and is what both use.
    const held = await whileActiveKeyHeld([() => consoles[0]!.post(`/upstream-keys/${x}/activate`), () => consoles[1]!.post('/upstream-keys/env/activate')]);
    // Before: B's statement saw only the old active key, found it demoted by A, and answered "already the one in use" while A's key was.
    for (const answer of held.answers) expect(answer.status, answer.raw).toBe(200);
    expect(await activeRows()).toEqual([]);
    await expectBothInstancesUse('env');
  }, 60_000);

  it("an operation in flight on B with a key A switches away from (to another account) finishes on its key, charged once; the key cannot be removed until it is done", async () => {
    const control = upstreamControl(double.url);
    const [firstKey] = (await database.query<{ id: string }>("SELECT id FROM upstream_keys WHERE state = 'previous' ORDER BY created_at LIMIT 1")).rows;
    const started = firstKey!.id;
    expect((await consoles[0]!.post(`/upstream-keys/${started}/activate`)).status).toBe(200);
    const other = await savedKey('echo (other account)', OTHER_KEY);
    await sleep(300); // B hears of the activation
    const team0 = (await control.account('team')).charged.detector;
    const other0 = (await control.account('other')).charged.detector;

    // B's check: charged upstream, its answer lost after 1.5 s; B retries.
    await control.addFaults([{ fault: { kind: 'drop-after', delayMs: 1_500 }, product: 'detector', times: 1 }]);
    const operationId = newOperationId();
    const check = request(instances[1]!.url, '/v1/detect', { operationId, text: TEXT_12_WORDS }, adminToken);
    await sleep(300);
    // Meanwhile A switches to another account's key and tries to remove the one B's check started with.
    expect((await consoles[0]!.post(`/upstream-keys/${other}/activate`)).status).toBe(200);
    const refused = await consoles[0]!.post(`/upstream-keys/${started}/remove`);
    expect(refused.status, refused.raw).toBe(409);
    const answer = await check;
    expect(answer.status, answer.raw).toBe(200);
    expect(answer.body.wordsCharged).toBe(12);
    expect((await control.account('team')).charged.detector - team0).toBe(12);
    expect((await control.account('other')).charged.detector - other0).toBe(0);
    expect((await consoles[0]!.post(`/upstream-keys/${started}/remove`)).status).toBe(200);

    // B's next checks go to the other account at once.
    const next = await request(instances[1]!.url, '/v1/detect', { operationId: newOperationId(), text: TEXT_12_WORDS }, adminToken);
    expect(next.status, next.raw).toBe(200);
    expect((await control.account('other')).charged.detector - other0).toBe(12);
  }, 60_000);
});

describe("a member's own extension links on two instances without Redis", () => {
  const schema = `probe6_links_${process.pid}`;
  const folder = mkdtempSync(path.join(tmpdir(), 'redline-probe6-links-'));
  const instances: RunningBff[] = [];
  afterAll(async () => {
    for (const instance of instances) await instance.stop().catch(() => {});
    rmSync(folder, { recursive: true, force: true });
    await dropSchema(schema);
  });

  it('are limited to 10 an hour for the team, not 10 per instance (and the limit outlives a restart)', async () => {
    const env = { BFF_PORT: '0', BFF_DATA_DIR: folder, BFF_DATABASE_URL: POSTGRES_URL, BFF_DATABASE_SCHEMA: schema };
    for (let i = 0; i < 2; i++) instances.push(await startBff(loadConfig(env), { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: new LogCapture() }));
    const { token } = await createMember(instances[0]!.ledger, 'link-maker');
    const onA = await ConsoleClient.signIn(instances[0]!.url, token);
    const onB = await ConsoleClient.signIn(instances[1]!.url, token);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await onA.post('/me/extension-link')).status, (await onB.post('/me/extension-link')).status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(10);
    const refused = await onA.post('/me/extension-link');
    expect(refused.status).toBe(429);
    // The place frees when the first link is an hour old: under an hour from now.
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(3500);
    expect(wait).toBeLessThanOrEqual(3600);

    // A restarted instance still counts them.
    await instances[1]!.stop();
    instances[1] = await startBff(loadConfig(env), { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: new LogCapture() });
    const restarted = await ConsoleClient.signIn(instances[1]!.url, token);
    expect((await restarted.post('/me/extension-link')).status).toBe(429);
  }, 60_000);
});

describe('two administrators adding members whose names read alike, at once', () => {
  const schema = `probe6_names_${process.pid}`;
  const folder = mkdtempSync(path.join(tmpdir(), 'redline-probe6-names-'));
  const instances: RunningBff[] = [];
  afterAll(async () => {
    for (const instance of instances) await instance.stop().catch(() => {});
    rmSync(folder, { recursive: true, force: true });
    await dropSchema(schema);
  });

  /**
   * Adds 'bob' and 'bоb' (a Cyrillic о, read as 'bob': README, Members), then 'Carol' and 'carol', each pair at once;
   * `hold` keeps both additions waiting until both are under way.
   */
  async function addAlikeNamesAtOnce(consoles: ConsoleClient[], hold?: <T>(calls: (() => Promise<T>)[]) => Promise<T[]>): Promise<void> {
    for (const [first, second] of [['bob', 'b\u043eb'], ['Carol', 'carol']]) {
      const calls = [() => consoles[0]!.post('/members', { name: first }), () => consoles[1]!.post('/members', { name: second })];
      const answers = hold ? await hold(calls) : await Promise.all(calls.map((call) => call()));
      expect(answers.map((answer) => answer.status).sort(), answers.map((answer) => answer.raw).join('\n')).toEqual([201, 400]);
      expect(answers.find((answer) => answer.status === 400)!.body.error.message).toMatch(/already exists/);
    }
  }

  it('on two PostgreSQL instances get one member: the other is refused, as when they add them one after the other', async () => {
    const env = { BFF_PORT: '0', BFF_DATA_DIR: folder, BFF_DATABASE_URL: POSTGRES_URL, BFF_DATABASE_SCHEMA: schema };
    for (let i = 0; i < 2; i++) instances.push(await startBff(loadConfig(env), { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: new LogCapture() }));
    const admin = await createMember(instances[0]!.ledger, 'names-admin');
    await (await instances[0]!.ledger.consoleStore()).setRole(admin.member.id, 'admin');
    const consoles = await Promise.all(instances.map((instance) => ConsoleClient.signIn(instance.url, admin.token)));
    const database = new pg.Client({ connectionString: POSTGRES_URL, options: `-c search_path=${schema}` });
    await database.connect();
    try {
      // Another writer holds the members table (reads go on) until both additions wait for a lock: they overlap for sure.
      const hold = async <T>(calls: (() => Promise<T>)[]) => {
        await database.query('BEGIN');
        const started: Promise<T>[] = [];
        try {
          await database.query('LOCK TABLE members IN SHARE MODE');
          for (const call of calls) started.push(call());
          for (let i = 0; i < 200; i++) {
            const { rows } = await database.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name = $1", [`redline-bff:${schema}`]);
            if (Number(rows[0]!.n) >= calls.length) break;
            await sleep(25);
          }
        } finally {
          await database.query('COMMIT');
        }
        return Promise.all(started);
      };
      await addAlikeNamesAtOnce(consoles, hold);
    } finally {
      await database.end();
    }
  }, 60_000);

  // (Not seen to fail before: one instance's two requests did not interleave there. It covers the SQLite side of the check.)
  it('on one SQLite instance get one member too', async () => {
    const h = await startHarness({ testerRole: 'admin' });
    try {
      await addAlikeNamesAtOnce(await Promise.all([0, 1].map(() => ConsoleClient.signIn(h.bff.url, h.token))));
    } finally {
      await h.close();
    }
  }, 60_000);
});

describe('a member revoked on one instance while the other runs their large document', () => {
  const schema = `probe6_revoke_${process.pid}`;
  const folder = mkdtempSync(path.join(tmpdir(), 'redline-probe6-revoke-'));
  const instances: RunningBff[] = [];
  let double: RunningUpstreamDouble;
  afterAll(async () => {
    for (const instance of instances) await instance.stop().catch(() => {});
    await double?.close();
    rmSync(folder, { recursive: true, force: true });
    await dropSchema(schema);
  });

  it('sends none of its parts after the revocation: only the part already sent is charged, and the document fails', async () => {
    double = await startUpstreamDouble({ testMode: true });
    const control = upstreamControl(double.url);
    const env = {
      ...FAST_RETRIES,
      BFF_PORT: '0',
      BFF_DATA_DIR: folder,
      BFF_DATABASE_URL: POSTGRES_URL,
      BFF_DATABASE_SCHEMA: schema,
      UPSTREAM_BASE_URL: double.url,
      UPSTREAM_API_KEY: 'demo-key-primary',
      BFF_PART_CONCURRENCY: '1',
      BFF_RESUME_INTERVAL_SECONDS: '3600',
    };
    for (let i = 0; i < 2; i++) instances.push(await startBff(loadConfig(env), { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: new LogCapture() }));
    const admin = await createMember(instances[0]!.ledger, 'revoking-admin');
    await (await instances[0]!.ledger.consoleStore()).setRole(admin.member.id, 'admin');
    const onA = await ConsoleClient.signIn(instances[0]!.url, admin.token);
    const { member, token } = await createMember(instances[0]!.ledger, 'leaked-writer');

    // The first part is held upstream for a while; the writer's document runs on B.
    await control.addFaults([{ fault: { kind: 'delay', delayMs: 1_500 }, product: 'detector', times: 1 }]);
    const received = (await control.received()).length;
    const document = request(instances[1]!.url, '/v1/detect', { operationId: `probe6-revoked-document-${process.pid}`, text: TWO_PARTS }, token);
    for (let i = 0; i < 80 && (await control.received()).length === received; i++) await sleep(25);
    expect((await control.received()).length).toBe(received + 1);
    // A revokes the member while the first part runs.
    const revoked = await onA.post(`/members/${member.id}/revoke`);
    expect(revoked.status, revoked.raw).toBe(200);

    const answer = await document;
    expect([answer.status, answer.body.error?.code], answer.raw.slice(0, 300)).toEqual([401, 'unauthorized']);
    // Only the first part reached the upstream and was charged; the second was never sent.
    expect((await control.received()).slice(received)).toHaveLength(1);
    expect((await control.account('demo')).charged.detector).toBe(PART_WORDS[0]);
    expect((await instances[0]!.ledger.wordsCharged(member.id)).detector).toBe(PART_WORDS[0]);
    expect((await instances[0]!.ledger.budgetUsage(member.id)).detector).toBe(PART_WORDS[0]);
    expect(await instances[0]!.ledger.pendingOperations()).toEqual([]);
  }, 60_000);
});

describe('a budget changed on one instance while the other charges', () => {
  const schema = `probe6_budget_${process.pid}`;
  const folder = mkdtempSync(path.join(tmpdir(), 'redline-probe6-budget-'));
  const instances: RunningBff[] = [];
  let double: RunningUpstreamDouble;
  afterAll(async () => {
    for (const instance of instances) await instance.stop().catch(() => {});
    await double?.close();
    rmSync(folder, { recursive: true, force: true });
    await dropSchema(schema);
  });

  it('the check in flight finishes and is charged once; the next is refused on the other instance at once, and its usage shows the new budget', async () => {
    double = await startUpstreamDouble({ testMode: true });
    const control = upstreamControl(double.url);
    const env = { ...FAST_RETRIES, BFF_PORT: '0', BFF_DATA_DIR: folder, BFF_DATABASE_URL: POSTGRES_URL, BFF_DATABASE_SCHEMA: schema, UPSTREAM_BASE_URL: double.url, UPSTREAM_API_KEY: 'demo-key-primary' };
    for (let i = 0; i < 2; i++) instances.push(await startBff(loadConfig(env), { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: new LogCapture() }));
    const admin = await createMember(instances[0]!.ledger, 'budget-admin');
    await (await instances[0]!.ledger.consoleStore()).setRole(admin.member.id, 'admin');
    const onA = await ConsoleClient.signIn(instances[0]!.url, admin.token);
    const { member, token } = await createMember(instances[0]!.ledger, 'budgeted-writer', { detector: 100 });
    expect((await request(instances[1]!.url, '/v1/usage', undefined, token)).body.products.detector.budget).toBe(100); // B caches the member

    await control.addFaults([{ fault: { kind: 'delay', delayMs: 1_000 }, product: 'detector', times: 1 }]);
    const inFlight = request(instances[1]!.url, '/v1/detect', { operationId: newOperationId(), text: TEXT_12_WORDS }, token);
    await sleep(200);
    expect((await onA.post(`/members/${member.id}/budgets`, { detector: 15 })).status).toBe(200);
    const first = await inFlight;
    expect([first.status, first.body.wordsCharged]).toEqual([200, 12]);
    const refused = await request(instances[1]!.url, '/v1/detect', { operationId: newOperationId(), text: TEXT_12_WORDS }, token);
    expect([refused.status, refused.body.error?.code]).toEqual([403, 'member_budget_exceeded']);
    expect((await request(instances[1]!.url, '/v1/usage', undefined, token)).body.products.detector).toEqual({ wordsCharged: 12, budget: 15, remaining: 3 });
    expect((await control.account('demo')).charged.detector).toBe(12);
  }, 60_000);
});
