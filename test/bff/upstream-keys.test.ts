import { readFileSync, readdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@redline/bff/config';
import { createMember } from '@redline/bff/members';
import { startBff, type RunningBff } from '@redline/bff/server';
import { PostgresLedger } from '@redline/bff/storage/postgres';
import type { AccountConfig } from '../upstream/accounts.ts';
import { startUpstreamDouble } from '../upstream/server.ts';
import { callUpstream, upstreamControl } from '../upstream/client.ts';
import { ConsoleClient } from './console-client.ts';
import { FAST_RETRIES, LogCapture, POSTGRES_URL, dropSchema, newOperationId, request, startHarness, type Harness } from './harness.ts';

// The upstream key's lifecycle in the console against the upstream double over real HTTP:
// paste (stored encrypted, masked from then on), test with a cheap real request, mark saved,
// activate while checks run. The double's own charges and provider runs show that nothing is
// charged twice; its request log shows which account each attempt reached.

const KEY_A = 'team-key-alpha-0001'; // the environment's key (UPSTREAM_API_KEY)
const KEY_B = 'team-key-bravo-0002'; // another value of the same account
const KEY_C = 'other-key-charlie-0003'; // a key of another account
const ALL_PRODUCTS = { detector: 1_000_000, humanizer: 1_000_000, plagiarism: 1_000_000 };
const ACCOUNTS: AccountConfig[] = [
  { id: 'team', keys: [KEY_A, KEY_B], balances: { ...ALL_PRODUCTS } },
  { id: 'other', keys: [KEY_C], balances: { ...ALL_PRODUCTS } },
];
const SECRET = Buffer.alloc(32, 7).toString('base64');
const TEXT_12_WORDS = 'One two three four five six seven eight nine ten eleven twelve.';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function startWithKeys(env: Record<string, string> = { BFF_SECRET_KEY: SECRET }): Promise<{ h: Harness; admin: ConsoleClient }> {
  h = await startHarness({ upstream: { accounts: ACCOUNTS }, apiKey: KEY_A, env: { BFF_MEMBER_RATE_LIMIT: '100000', ...env }, testerRole: 'admin' });
  return { h, admin: await ConsoleClient.signIn(h.bff.url, h.token) };
}

interface Check {
  operationId: string;
  status: number;
  words: number;
  raw: string;
}

/** Checks from `workers` clients one after another until `stop` resolves. */
async function checksUntil(harness: Harness, stop: Promise<unknown>, workers = 3): Promise<Check[]> {
  let stopped = false;
  void stop.then(() => (stopped = true));
  const checks: Check[] = [];
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (!stopped) {
        const operationId = newOperationId();
        const answer = await harness.call('/v1/detect', { operationId, text: TEXT_12_WORDS });
        checks.push({ operationId, status: answer.status, words: answer.body?.wordsCharged ?? 0, raw: answer.raw });
      }
    }),
  );
  return checks;
}

/** The BFF's upstream idempotency key of an operation, from its ledger. */
const upstreamKeyOf = async (harness: Harness, operationId: string) => {
  const member = (await harness.bff.ledger.listMembers()).find((candidate) => candidate.name === 'tester')!;
  return (await harness.bff.ledger.findOperation(member.id, operationId))!.idempotencyKey;
};

describe('upstream key lifecycle', () => {
  it('a pasted key is masked at once, and is activated only once tested and marked saved', async () => {
    const { admin } = await startWithKeys();
    const listed = await admin.get('/upstream-keys');
    expect(listed.body).toMatchObject({ mode: 'upstream', storing: { enabled: true }, envKey: { masked: '••••0001', inUse: true }, keys: [] });
    expect(listed.body.testNote).toMatch(/charged 3 words/);
    // The upstream has no balance or key-check call: the test tries the detector only, and says so.
    expect(listed.body.testNote).toMatch(/^It checks the key with the detector only: whether its plan covers the humanizer and the plagiarism checker is not tried/);

    const added = await admin.post('/upstream-keys', { label: 'team B', key: KEY_B });
    expect(added.status).toBe(201);
    expect(added.body.key).toMatchObject({ label: 'team B', masked: '••••0002', state: 'prepared' });
    const id = added.body.key.id;
    expect((await admin.post('/upstream-keys', { label: 'again', key: KEY_B })).body.error.message).toContain('already listed as "team B"');
    expect((await admin.post('/upstream-keys', { label: 'env', key: KEY_A })).body.error.code).toBe('conflict');
    expect((await admin.post('/upstream-keys', { label: 'spaces', key: 'two words here' })).status).toBe(400);

    const early = await admin.post(`/upstream-keys/${id}/activate`);
    expect(early.status).toBe(409);
    expect(early.body.error.message).toContain('Mark this key saved first');
    expect((await admin.post(`/upstream-keys/${id}/saved`)).status).toBe(200);
    expect((await admin.post(`/upstream-keys/${id}/activate`)).body.error.message).toContain('Test this key first');

    const before = await h!.control.account('team');
    const tested = await admin.post(`/upstream-keys/${id}/test`);
    expect(tested.body).toMatchObject({ account: 'same', test: { ok: true, wordsCharged: 3 } });
    expect(tested.body.test.summary).toContain('same upstream account');
    expect(tested.body.test.summary).toMatch(/^The upstream accepted this key for the detector \(charged 3 words; the humanizer and the plagiarism checker were not tried\)\./);
    // The double charged the test's 3 words once; the account probe's 409 charged nothing.
    const after = await h!.control.account('team');
    expect(after.charged.detector - before.charged.detector).toBe(3);
    expect(after.providerRuns.detector - before.providerRuns.detector).toBe(1);

    const activated = await admin.post(`/upstream-keys/${id}/activate`);
    expect(activated.body).toEqual({ state: 'active', inUse: true });
    const now = await admin.get('/upstream-keys');
    expect(now.body.envKey.inUse).toBe(false);
    expect(now.body.keys).toEqual([expect.objectContaining({ id, state: 'active', inUse: true, masked: '••••0002' })]);
    expect(now.raw).not.toContain('ciphertext');

    // The active key cannot be removed; a wrong key does not pass its test.
    expect((await admin.post(`/upstream-keys/${id}/remove`)).status).toBe(409);
    const wrong = await admin.post('/upstream-keys', { label: 'typo', key: 'team-key-bravo-0003' });
    const failed = await admin.post(`/upstream-keys/${wrong.body.key.id}/test`);
    expect(failed.body.test).toMatchObject({ ok: false, wordsCharged: 0 });
    expect(failed.body.test.summary).toContain('HTTP 401');

    const audit = await admin.get('/audit');
    const actions = audit.body.entries.map((entry: { action: string }) => entry.action);
    expect(actions).toEqual(expect.arrayContaining(['upstream_key_added', 'upstream_key_saved', 'upstream_key_tested', 'upstream_key_activated']));
  });

  it('same account: rotating while checks run, the upstream then retiring the old value; none fails, none is charged twice', async () => {
    const { h, admin } = await startWithKeys();
    const added = await admin.post('/upstream-keys', { label: 'team B', key: KEY_B });
    const id = added.body.key.id;
    expect((await admin.post(`/upstream-keys/${id}/test`)).body.account).toBe('same');
    await admin.post(`/upstream-keys/${id}/saved`);

    const baseline = await h.control.account('team');
    let stop!: () => void;
    const running = checksUntil(h, new Promise<void>((resolve) => (stop = resolve)));
    await sleep(300);
    // The next check is charged and its answer lost after a second: it straddles the rotation.
    // Three more lose their answer to a 503 after the work and are retried.
    await h.control.addFaults([
      { fault: { kind: 'drop-after', delayMs: 1_000 }, product: 'detector' },
      { fault: { kind: 'status', status: 503, phase: 'after' }, product: 'detector', times: 3 },
    ]);
    await sleep(300);
    expect((await admin.post(`/upstream-keys/${id}/activate`)).body.inUse).toBe(true);
    // The upstream retires the old value: from now on it gets 401.
    await h.control.changeKeys('team', { remove: [KEY_A] });
    await sleep(2_000);
    stop();
    const checks = await running;

    expect(checks.length).toBeGreaterThan(10);
    expect(checks.filter((check) => check.status !== 200).map((check) => check.raw)).toEqual([]);
    const end = await h.control.account('team');
    expect(end.providerRuns.detector - baseline.providerRuns.detector).toBe(checks.length);
    expect(end.charged.detector - baseline.charged.detector).toBe(checks.reduce((sum, check) => sum + check.words, 0));
    expect(checks.every((check) => check.words === 12)).toBe(true);

    // The check whose answer was dropped was retried after the rotation and answered from the account's record.
    const received = (await h.control.received()) as { idempotencyKey: string; status: number | string; accountId?: string }[];
    const dropped = received.filter((entry) => entry.status === 'dropped');
    expect(dropped).toHaveLength(1);
    const retries = received.filter((entry) => entry.idempotencyKey === dropped[0]!.idempotencyKey && entry.status !== 'dropped');
    expect(retries.at(-1)).toMatchObject({ status: 200, accountId: 'team' });
    // The upstream refuses the old value now: the retry succeeded only because it moved to the new one.
    expect((await callUpstream(h.double!.url, 'detector', { apiKey: KEY_A, body: { text: 'x', version: 'v3' } })).status).toBe(401);
  });

  it('another account: checks in flight finish with the key they started with, new ones use the new key; the previous key stays listed until removed', async () => {
    const { h, admin } = await startWithKeys();
    const b = await admin.rotateTo('team B', KEY_B);
    expect(b.test.account).toBe('same');

    const team0 = await h.control.account('team');
    const other0 = await h.control.account('other');
    const added = await admin.post('/upstream-keys', { label: 'other C', key: KEY_C });
    const c = added.body.key.id;
    const tested = await admin.post(`/upstream-keys/${c}/test`);
    expect(tested.body).toMatchObject({ account: 'other', test: { ok: true, wordsCharged: 8 } });
    // 3 words to the new key's account, 5 to the active key's for the account probe.
    expect((await h.control.account('other')).charged.detector - other0.charged.detector).toBe(3);
    expect((await h.control.account('team')).charged.detector - team0.charged.detector).toBe(5);
    await admin.post(`/upstream-keys/${c}/saved`);

    const team1 = await h.control.account('team');
    const other1 = await h.control.account('other');
    // A check that started with B is charged by the team account and loses its answer after the rotation.
    await h.control.addFaults([{ fault: { kind: 'drop-after', delayMs: 1_500 }, product: 'detector' }]);
    const straddling = newOperationId();
    const inFlight = h.call('/v1/detect', { operationId: straddling, text: TEXT_12_WORDS });
    await sleep(400);
    expect((await admin.post(`/upstream-keys/${c}/activate`)).body.inUse).toBe(true);
    // B is needed until that check finishes.
    const early = await admin.post(`/upstream-keys/${b.id}/remove`);
    expect(early.status).toBe(409);
    expect(early.body.error.message).toContain('still running');
    const fresh = newOperationId();
    expect((await h.call('/v1/detect', { operationId: fresh, text: TEXT_12_WORDS })).status).toBe(200);
    const finished = await inFlight;
    expect(finished.status, finished.raw).toBe(200);

    const received = (await h.control.received()) as { idempotencyKey: string; status: number | string; accountId?: string }[];
    const attemptsOf = async (operationId: string) => {
      const key = await upstreamKeyOf(h, operationId);
      return received.filter((entry) => entry.idempotencyKey === key);
    };
    const straddled = await attemptsOf(straddling);
    expect(straddled.length).toBeGreaterThanOrEqual(2);
    expect(straddled.every((entry) => entry.accountId === 'team')).toBe(true);
    expect((await attemptsOf(fresh)).map((entry) => entry.accountId)).toEqual(['other']);
    // Each check ran and was charged once, each in its own account.
    const team2 = await h.control.account('team');
    const other2 = await h.control.account('other');
    expect([team2.providerRuns.detector - team1.providerRuns.detector, team2.charged.detector - team1.charged.detector]).toEqual([1, 12]);
    expect([other2.providerRuns.detector - other1.providerRuns.detector, other2.charged.detector - other1.charged.detector]).toEqual([1, 12]);

    const listed = await admin.get('/upstream-keys');
    expect(listed.body.keys.map((key: { label: string; state: string }) => [key.label, key.state])).toEqual([
      ['other C', 'active'],
      ['team B', 'previous'],
    ]);
    expect((await admin.post(`/upstream-keys/${b.id}/remove`)).status).toBe(200);
    expect((await admin.get('/upstream-keys')).body.keys.map((key: { label: string }) => key.label)).toEqual(['other C']);
  });

  it('no stored key appears in any answer, log line, metric, console page or the database file after it is pasted', async () => {
    const { h, admin } = await startWithKeys();
    await admin.rotateTo('team B', KEY_B);
    await admin.rotateTo('other C', KEY_C);
    expect((await h.call('/v1/detect', { operationId: newOperationId(), text: TEXT_12_WORDS })).status).toBe(200);
    await admin.get('/upstream-keys');
    await admin.get('/audit');
    await admin.get('/members');
    await admin.get('/usage');
    await admin.get('/usage.csv');
    const page = await (await fetch(`${h.bff.url}/console/`)).text();
    const script = await (await fetch(`${h.bff.url}/console/console.js`)).text();
    const metrics = await (await fetch(`${h.bff.url}/metrics`)).text();
    await h.bff.stop(); // flushes the SQLite file
    const files = readdirSync(h.dataDir).map((name) => readFileSync(path.join(h.dataDir, name)).toString('latin1'));
    const places = { answers: admin.answers.join('\n'), logs: h.logs.text, metrics, page, script, database: files.join('\n') };
    expect(places.database).toContain('upstream_keys'); // the file was read
    for (const [place, text] of Object.entries(places)) {
      for (const key of [KEY_A, KEY_B, KEY_C]) expect(text.includes(key), `${key} in ${place}`).toBe(false);
    }
  });
});

it('a restart with another BFF_SECRET_KEY does not fall back to the environment key: checks are refused with the reason', async () => {
  const { h, admin } = await startWithKeys();
  await admin.rotateTo('other C', KEY_C);
  await h.bff.stop();
  const logs = new LogCapture();
  const restarted = await startBff(loadConfig({ ...h.env, BFF_SECRET_KEY: Buffer.alloc(32, 9).toString('base64') }), { logDestination: logs });
  try {
    const refused = await request(restarted.url, '/v1/detect', { operationId: newOperationId(), text: TEXT_12_WORDS }, h.token);
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('upstream_key_missing');
    expect(refused.body.error.message).toContain('other C');
    expect(refused.body.error.message).toContain('BFF_SECRET_KEY');
    expect(logs.text).toContain('a stored upstream key cannot be decrypted');
    expect(((await h.control.received()) as unknown[]).length).toBe(2); // only the key test's two requests ever reached the double
  } finally {
    await restarted.stop();
  }
});

describe('without BFF_SECRET_KEY', () => {
  it('the console refuses to store upstream keys and says why; UPSTREAM_API_KEY keeps working', async () => {
    const { h, admin } = await startWithKeys({});
    const listed = await admin.get('/upstream-keys');
    expect(listed.body.storing.enabled).toBe(false);
    expect(listed.body.envKey).toMatchObject({ inUse: true });
    const refused = await admin.post('/upstream-keys', { label: 'team B', key: KEY_B });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'secret_key_missing' });
    expect(refused.body.error.message).toContain('BFF_SECRET_KEY');
    expect(refused.body.error.message).toContain('UPSTREAM_API_KEY keeps working');
    expect((await h.call('/v1/detect', { operationId: newOperationId(), text: TEXT_12_WORDS })).status).toBe(200);
  });

  it('configuration: a base URL needs a key or a secret to store one; a malformed secret is refused with how to make one', () => {
    const base = { UPSTREAM_BASE_URL: 'http://127.0.0.1:9' };
    expect(() => loadConfig(base)).toThrow(/BFF_SECRET_KEY to add the key in the console/);
    expect(() => loadConfig({ ...base, BFF_SECRET_KEY: 'too short' })).toThrow(/openssl rand -base64 32/);
    expect(loadConfig({ ...base, BFF_SECRET_KEY: SECRET }).upstream).toEqual({ baseUrl: 'http://127.0.0.1:9', apiKey: undefined });
    expect(loadConfig({ ...base, BFF_SECRET_KEY: 'ab'.repeat(32) }).secretKey).toHaveLength(32);
    expect(() => loadConfig({ BFF_SECRET_KEY: SECRET, BFF_SECRET_KEY_FILE: '/nonexistent' })).toThrow(ConfigError);
  });

  it('a BFF with a secret and no environment key refuses checks with a clear error until a key is activated', async () => {
    h = await startHarness({ upstream: { accounts: ACCOUNTS }, apiKey: null, env: { BFF_SECRET_KEY: SECRET }, testerRole: 'admin' });
    const refused = await h.call('/v1/detect', { operationId: newOperationId(), text: TEXT_12_WORDS });
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('upstream_key_missing');
    expect(refused.body.error.message).toContain('Upstream key page');
    const ready = await h.call('/readyz');
    expect(ready.body.reason).toContain('No upstream API key is active');
    const admin = await ConsoleClient.signIn(h.bff.url, h.token);
    const { test } = await admin.rotateTo('team B', KEY_B);
    expect(test.account).toBe('unknown'); // nothing active to compare with
    expect((await h.call('/v1/detect', { operationId: newOperationId(), text: TEXT_12_WORDS })).status).toBe(200);
  });
});

describe('two instances on PostgreSQL', () => {
  it('a key activated on one instance is used by the other within seconds', async () => {
    const double = await startUpstreamDouble({ testMode: true, accounts: ACCOUNTS });
    const control = upstreamControl(double.url);
    const schema = `upstream_keys_${process.pid}`;
    const folder = mkdtempSync(path.join(tmpdir(), 'redline-keys-'));
    const instances: RunningBff[] = [];
    try {
      const env = { BFF_PORT: '0', BFF_DATA_DIR: folder, BFF_DATABASE_URL: POSTGRES_URL, BFF_DATABASE_SCHEMA: schema, UPSTREAM_BASE_URL: double.url, UPSTREAM_API_KEY: KEY_A, BFF_SECRET_KEY: SECRET, ...FAST_RETRIES };
      for (let i = 0; i < 2; i++) instances.push(await startBff(loadConfig(env), { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: new LogCapture() }));
      const admin = await createMember(instances[0]!.ledger, 'key-admin');
      await (await instances[0]!.ledger.consoleStore()).setRole(admin.member.id, 'admin');
      const console0 = await ConsoleClient.signIn(instances[0]!.url, admin.token);

      const lastAccount = async (index: number) => {
        const answer = await request(instances[index]!.url, '/v1/detect', { operationId: newOperationId(), text: TEXT_12_WORDS }, admin.token);
        expect(answer.status, answer.raw).toBe(200);
        return ((await control.received()) as { accountId: string }[]).at(-1)!.accountId;
      };
      expect([await lastAccount(0), await lastAccount(1)]).toEqual(['team', 'team']);

      await console0.rotateTo('other C', KEY_C);
      const activatedAt = Date.now();
      expect(await lastAccount(0)).toBe('other');
      let seconds = Infinity;
      while (Date.now() - activatedAt < 15_000) {
        if ((await lastAccount(1)) === 'other') {
          seconds = (Date.now() - activatedAt) / 1000;
          break;
        }
        await sleep(100);
      }
      expect(seconds).toBeLessThan(15);
    } finally {
      for (const instance of instances) await instance.stop();
      await double.close();
      rmSync(folder, { recursive: true, force: true });
      await dropSchema(schema);
    }
  });
});

it("the usage page's upstream words remaining are the active key's account's: another account's figure is not shown after a switch", async () => {
  const { h, admin } = await startWithKeys();
  await h.control.setBalances('team', { detector: 5 });
  expect((await h.call('/v1/detect', { operationId: newOperationId(), text: TEXT_12_WORDS })).status).toBe(402);
  expect((await admin.get('/usage')).body.upstreamQuotas).toEqual([{ product: 'detector', remainingWords: 5, seenAt: expect.any(Number) }]);

  const id = (await admin.post('/upstream-keys', { label: 'other account', key: KEY_C })).body.key.id;
  expect((await admin.post(`/upstream-keys/${id}/test`)).body.account).toBe('other');
  await admin.post(`/upstream-keys/${id}/saved`);
  expect((await admin.post(`/upstream-keys/${id}/activate`)).body.inUse).toBe(true);
  expect((await admin.get('/usage')).body.upstreamQuotas).toEqual([]);
  expect((await h.call('/v1/detect', { operationId: newOperationId(), text: TEXT_12_WORDS })).status).toBe(200);
});

it('an administrator can go back to the key in UPSTREAM_API_KEY after activating a stored one', async () => {
  const { h, admin } = await startWithKeys();
  const id = (await admin.post('/upstream-keys', { label: 'other account', key: KEY_C })).body.key.id;
  await admin.post(`/upstream-keys/${id}/test`);
  await admin.post(`/upstream-keys/${id}/saved`);
  await admin.post(`/upstream-keys/${id}/activate`);
  expect((await admin.get('/upstream-keys')).body.envKey.inUse).toBe(false);

  const back = await admin.post('/upstream-keys/env/activate');
  expect(back.body).toEqual({ state: 'active', inUse: true });
  const listed = (await admin.get('/upstream-keys')).body;
  expect(listed).toMatchObject({ envKey: { inUse: true }, activeKeyId: 'env' });
  expect(listed.keys.find((key: { id: string }) => key.id === id).state).toBe('previous');
  const before = (await h.control.account('team')).charged.detector;
  expect((await h.call('/v1/detect', { operationId: newOperationId(), text: TEXT_12_WORDS })).status).toBe(200);
  expect((await h.control.account('team')).charged.detector).toBe(before + 12);
  expect((await admin.post('/upstream-keys/env/activate')).status).toBe(409);
});
