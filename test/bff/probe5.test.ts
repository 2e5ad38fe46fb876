import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countWords } from '@redline/shared';
import { loadConfig } from '@redline/bff/config';
import { createMember } from '@redline/bff/members';
import { splitDocument } from '@redline/bff/operations/documents';
import { startBff, type RunningBff } from '@redline/bff/server';
import type { Ledger } from '@redline/bff/storage/ledger';
import { PostgresLedger } from '@redline/bff/storage/postgres';
import { startUpstreamDouble, type RunningUpstreamDouble } from '../upstream/server.ts';
import { upstreamControl } from '../upstream/client.ts';
import { FAST_RETRIES, LogCapture, POSTGRES_URL, dropSchema, request, startHarness } from './harness.ts';

// An outside probe (the fifth): real HTTP, the upstream double, real PostgreSQL and SQLite files.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Two parts: the first as long as the upstream allows, the second short. */
const TWO_PARTS = 'The committee reviewed the annual figures and agreed on a plan. '.repeat(2600) + 'The end.';
const PART_WORDS = splitDocument(TWO_PARTS).parts.map((part) => countWords(part.text));

/**
 * A ledger whose settlement of a failed operation (not a part) waits until `release()`: the instance is slow
 * between reading the operation (its parts) and writing the settlement (starved of CPU, its pool busy).
 * Everything else reaches the real ledger at once.
 */
function slowFailedSettlement(ledger: Ledger) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const waiting = new Promise<void>((resolve) => (reached = resolve));
  const slowed = new Proxy(ledger, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== 'failOperation') return typeof value === 'function' ? value.bind(target) : value;
      return async (memberId: string, operationId: string, ...rest: unknown[]) => {
        if (!operationId.includes('#')) {
          reached();
          await released;
        }
        return (value as Function).call(target, memberId, operationId, ...rest);
      };
    },
  });
  return { ledger: slowed as Ledger, waiting, release };
}

describe('a document settled failed on a slow instance while the other settles it with a part it completed', () => {
  const schema = `probe5_document_${process.pid}`;
  const folder = mkdtempSync(path.join(tmpdir(), 'redline-probe5-doc-'));
  let double: RunningUpstreamDouble;
  const instances: RunningBff[] = [];

  beforeAll(async () => {
    double = await startUpstreamDouble({ testMode: true });
  });
  afterAll(async () => {
    for (const instance of instances) await instance.stop().catch(() => {});
    await double?.close();
    rmSync(folder, { recursive: true, force: true });
    await dropSchema(schema);
  });

  it('the budget counter keeps every word the parts were charged (usage, counter and the account agree)', async () => {
    const env = { ...FAST_RETRIES, BFF_PORT: '0', BFF_DATA_DIR: folder, BFF_RESUME_INTERVAL_SECONDS: '3600', UPSTREAM_BASE_URL: double.url, UPSTREAM_API_KEY: 'demo-key-primary' };
    const slow = slowFailedSettlement(await PostgresLedger.open(POSTGRES_URL, schema));
    instances.push(await startBff(loadConfig({ ...env, BFF_PART_CONCURRENCY: '1' }), { ledger: slow.ledger, logDestination: new LogCapture() }));
    instances.push(await startBff(loadConfig(env), { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: new LogCapture() }));
    const [a, b] = instances as [RunningBff, RunningBff];
    const { member, token } = await createMember(b.ledger, 'document-writer', { detector: 100_000 });
    const control = upstreamControl(double.url);
    // The account can pay for the short part only: the long one is refused for quota (402) every time.
    await control.setBalances('demo', { detector: PART_WORDS[1]! + 5 });
    const operationId = `probe5-document-${process.pid}`;

    // The slow instance: its part 1 is refused, it sends nothing else (one part at a time) and reads the parts: none charged.
    const first = request(a.url, '/v1/detect', { operationId, text: TWO_PARTS }, token);
    await slow.waiting;
    // The writer repeats on the other instance: part 2 is run and charged, part 1 refused again; settled failed with part 2's words.
    const repeat = await request(b.url, '/v1/detect', { operationId, text: TWO_PARTS }, token);
    expect([repeat.status, repeat.body.error?.code]).toEqual([402, 'quota_exceeded']);
    // The slow instance writes its settlement now.
    slow.release();
    expect((await first).status).toBe(402);

    const charged = (await control.account('demo')).charged.detector;
    expect(charged).toBe(PART_WORDS[1]);
    expect((await b.ledger.wordsCharged(member.id)).detector).toBe(charged);
    expect((await b.ledger.budgetUsage(member.id)).detector).toBe(charged);
    const usage = await request(b.url, '/v1/usage', undefined, token);
    expect(usage.body.products.detector).toMatchObject({ wordsCharged: charged, remaining: 100_000 - charged });
  }, 30_000);
});

describe('a sweep for operations left pending that is under way when the BFF is stopped', () => {
  it('sends nothing once the drain has begun; the next start settles the operation, charged once', async () => {
    const h = await startHarness({ env: { BFF_RESUME_INTERVAL_SECONDS: '3600' } });
    let restarted: RunningBff | undefined;
    try {
      const operationId = `probe5-sweep-${process.pid}`;
      const text = 'Left pending by a rate limit, resumed by the sweep.';
      await h.control.addFaults([{ fault: { kind: 'status', status: 429, retryAfterSeconds: 60 }, product: 'plagiarism' }]);
      const busy = await h.call('/v1/plagiarism', { operationId, text });
      expect(busy.body.error?.code).toBe('busy');
      await h.control.clearFaults();
      // Each resume is held upstream for a while.
      await h.control.addFaults([{ fault: { kind: 'delay', delayMs: 1500 }, product: 'plagiarism', times: 5 }]);
      await h.bff.engine.resumeLeftPending(); // notes it as pending
      const received = (await h.control.received()).length;
      const sweep = h.bff.engine.resumeLeftPending(); // the timer's next sweep, under way…
      await h.bff.stop(); // …when the BFF is told to stop
      await sweep.catch(() => {});
      await sleep(2000);
      expect((await h.control.received()).slice(received)).toEqual([]);
      expect(h.logs.text).not.toContain('resuming a pending operation failed');

      // The next start resumes it: completed, counted and charged once.
      restarted = await startBff(loadConfig(h.env), { logDestination: new LogCapture() });
      const members = await restarted.ledger.listMembers();
      const tester = members.find((member) => member.name === 'tester')!;
      let record;
      for (let i = 0; i < 50 && record?.state !== 'completed'; i++) {
        await sleep(100);
        record = await restarted.ledger.findOperation(tester.id, operationId);
      }
      expect(record?.state).toBe('completed');
      const charged = (await h.control.account('demo')).charged.plagiarism;
      expect(charged).toBe(countWords(text));
      expect((await restarted.ledger.wordsCharged(tester.id)).plagiarism).toBe(charged);
      expect((await restarted.ledger.budgetUsage(tester.id)).plagiarism).toBe(charged);
    } finally {
      await restarted?.stop();
      await h.double?.close();
      rmSync(h.dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('one operation id sent at once with different texts, on two instances, by one member and by two', () => {
  const schema = `probe5_reuse_${process.pid}`;
  const folder = mkdtempSync(path.join(tmpdir(), 'redline-probe5-reuse-'));
  let double: RunningUpstreamDouble;
  const instances: RunningBff[] = [];

  beforeAll(async () => {
    double = await startUpstreamDouble({ testMode: true });
    const env = { ...FAST_RETRIES, BFF_PORT: '0', BFF_DATA_DIR: folder, BFF_MEMBER_RATE_LIMIT: '10000', UPSTREAM_BASE_URL: double.url, UPSTREAM_API_KEY: 'demo-key-primary' };
    for (let i = 0; i < 2; i++) instances.push(await startBff(loadConfig(env), { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: new LogCapture() }));
  });
  afterAll(async () => {
    for (const instance of instances) await instance.stop().catch(() => {});
    await double?.close();
    rmSync(folder, { recursive: true, force: true });
    await dropSchema(schema);
  });

  it('one text runs, the others are refused as reused; each member is charged for their own, once', async () => {
    const control = upstreamControl(double.url);
    await control.addFaults([{ fault: { kind: 'delay', delayMs: 600 }, product: 'humanizer', times: 40 }]);
    const one = await createMember(instances[0]!.ledger, 'reuser-one', { humanizer: 1000 });
    const two = await createMember(instances[0]!.ledger, 'reuser-two', { humanizer: 1000 });
    const operationId = `probe5-shared-id-${process.pid}`;
    const texts = ['Alpha beta gamma.', 'Delta epsilon zeta eta.', 'Theta iota kappa lambda mu.'];
    const sends = [one, two].flatMap(({ token }) =>
      texts.flatMap((text, index) => [0, 1].map((instance) => request(instances[(instance + index) % 2]!.url, '/v1/humanize', { operationId, text, model: 'cognia' }, token).then((answer) => ({ token, text, answer })))),
    );
    const answers = await Promise.all(sends);
    for (const { token, member } of [one, two].map((created) => ({ token: created.token, member: created.member }))) {
      const own = answers.filter((answer) => answer.token === token);
      const ok = own.filter(({ answer }) => answer.status === 200);
      expect(new Set(ok.map(({ text }) => text)).size, 'one text ran').toBe(1);
      for (const { answer } of own.filter(({ answer }) => answer.status !== 200)) expect(answer.body.error?.code).toBe('operation_id_reused');
      const words = countWords(ok[0]!.text);
      for (const { answer } of ok) expect(answer.body.wordsCharged).toBe(words);
      expect((await instances[1]!.ledger.wordsCharged(member.id)).humanizer).toBe(words);
      expect((await instances[1]!.ledger.budgetUsage(member.id)).humanizer).toBe(words);
    }
    const charged = (await control.account('demo')).charged.humanizer;
    const counted = (await instances[0]!.ledger.wordsCharged(one.member.id)).humanizer + (await instances[0]!.ledger.wordsCharged(two.member.id)).humanizer;
    expect(charged).toBe(counted);
  }, 30_000);
});

/** A small upstream of a test's own, listening: its address and how to close it. */
async function serving(server: http.Server) {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * An upstream whose plagiarism check quotes a scraped web page holding a NUL and half of a
 * surrogate pair (as text extracted from PDFs and binary pages does); it charges each new
 * Idempotency-Key once and replays the stored answer for a known one.
 */
async function upstreamQuotingBrokenPages() {
  const answers = new Map<string, string>();
  let charged = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const key = String(req.headers['idempotency-key']);
      if (!answers.has(key)) {
        const { text } = JSON.parse(body) as { text: string };
        const words = countWords(text);
        charged += words;
        const match = { sentence: text, is_plagiarised: true, web_sentence: 'Quoted from a scraped page\u0000 with a broken emoji \ud83d.', similarity: 0.9, link: 'https://example.com/page' };
        answers.set(key, JSON.stringify({ result: { results: [match], plagiarism_score: 100 }, words_processed: words }));
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(answers.get(key));
    });
  });
  return {
    ...(await serving(server)),
    charged: () => charged,
  };
}

for (const ledger of ['sqlite', 'postgres'] as const) {
  describe(`${ledger}: an upstream answer quoting a NUL or half of a surrogate pair`, () => {
    it('is stored and answered (the broken characters replaced), and its charge is counted once', async () => {
      const upstream = await upstreamQuotingBrokenPages();
      const h = await startHarness({ ledger, env: { UPSTREAM_BASE_URL: upstream.url, BFF_RESUME_INTERVAL_SECONDS: '3600' } });
      try {
        const operationId = `probe5-broken-page-${process.pid}`;
        const text = 'A sentence somebody copied from the web.';
        const answer = await h.call('/v1/plagiarism', { operationId, text });
        expect([answer.status, answer.body.error?.code]).toEqual([200, undefined]);
        expect(answer.body.result.result.results[0].web_sentence).toBe('Quoted from a scraped page\ufffd with a broken emoji \ufffd.');
        expect(upstream.charged()).toBe(countWords(text));
        const tester = (await h.bff.ledger.listMembers()).find((member) => member.name === 'tester')!;
        expect((await h.bff.ledger.wordsCharged(tester.id)).plagiarism).toBe(upstream.charged());
        expect((await h.bff.ledger.budgetUsage(tester.id)).plagiarism).toBe(upstream.charged());
        const repeat = await h.call('/v1/plagiarism', { operationId, text });
        expect([repeat.status, repeat.body.replayed, repeat.body.result]).toEqual([200, true, answer.body.result]);
      } finally {
        await h.close();
        await upstream.close();
      }
    }, 30_000);
  });
}

describe('a document cut off by the shutdown grace period', () => {
  it('is answered shutting_down, and the next start completes it with every part charged once', async () => {
    const h = await startHarness({ env: { BFF_SHUTDOWN_GRACE_MS: '400', BFF_RESUME_INTERVAL_SECONDS: '3600' } });
    let restarted: RunningBff | undefined;
    try {
      const operationId = `probe5-grace-${process.pid}`;
      // Both parts held upstream past the grace period; the upstream completes and charges them all the same.
      await h.control.addFaults([{ fault: { kind: 'delay', delayMs: 1500 }, product: 'detector', times: 2 }]);
      const answer = h.call('/v1/detect', { operationId, text: TWO_PARTS });
      for (let i = 0; i < 100 && (await h.control.received()).length < 2; i++) await sleep(20);
      await h.bff.stop();
      expect((await answer).body.error?.code).toBe('shutting_down');
      await sleep(1500);
      restarted = await startBff(loadConfig(h.env), { logDestination: new LogCapture() });
      const tester = (await restarted.ledger.listMembers()).find((member) => member.name === 'tester')!;
      let record;
      for (let i = 0; i < 50 && record?.state !== 'completed'; i++) {
        await sleep(100);
        record = await restarted.ledger.findOperation(tester.id, operationId);
      }
      expect(record?.state).toBe('completed');
      const charged = (await h.control.account('demo')).charged.detector;
      expect(charged).toBe(PART_WORDS[0]! + PART_WORDS[1]!);
      expect((await restarted.ledger.wordsCharged(tester.id)).detector).toBe(charged);
      expect((await restarted.ledger.budgetUsage(tester.id)).detector).toBe(charged);
      expect((await h.control.account('demo')).providerRuns.detector).toBe(2);
    } finally {
      await restarted?.stop();
      await h.double?.close();
      rmSync(h.dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});

/** An upstream that refuses every call for quota, or (once told) answers 200 with a body the BFF cannot read but that says what it charged. */
async function upstreamRefusingThenUnreadable() {
  let mode: 'refuse' | 'unreadable' = 'refuse';
  let charged = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (mode === 'refuse') {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Not enough words remaining.', remaining_words: 0 }));
        return;
      }
      const words = countWords((JSON.parse(body) as { text: string }).text);
      charged += words;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ words_processed: words, verdict: 'a shape the BFF does not know' }));
    });
  });
  return {
    ...(await serving(server)),
    answerUnreadable: () => (mode = 'unreadable'),
    charged: () => charged,
  };
}

describe('a single check settled failed on a slow instance after the other settled it with a charge', () => {
  const schema = `probe5_single_${process.pid}`;
  const folder = mkdtempSync(path.join(tmpdir(), 'redline-probe5-single-'));
  const instances: RunningBff[] = [];
  afterAll(async () => {
    for (const instance of instances) await instance.stop().catch(() => {});
    rmSync(folder, { recursive: true, force: true });
    await dropSchema(schema);
  });

  it('the words the upstream charged stay counted in usage and the budget', async () => {
    const upstream = await upstreamRefusingThenUnreadable();
    try {
      const env = { ...FAST_RETRIES, BFF_PORT: '0', BFF_DATA_DIR: folder, BFF_RESUME_INTERVAL_SECONDS: '3600', UPSTREAM_BASE_URL: upstream.url, UPSTREAM_API_KEY: 'demo-key-primary' };
      const slow = slowFailedSettlement(await PostgresLedger.open(POSTGRES_URL, schema));
      instances.push(await startBff(loadConfig(env), { ledger: slow.ledger, logDestination: new LogCapture() }));
      instances.push(await startBff(loadConfig(env), { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: new LogCapture() }));
      const [a, b] = instances as [RunningBff, RunningBff];
      const { member, token } = await createMember(b.ledger, 'single-writer', { plagiarism: 1000 });
      const operationId = `probe5-single-${process.pid}`;
      const text = 'Seven words charged once for this check.';
      // The slow instance is refused for quota; before it writes that down, the writer repeats on the other…
      const first = request(a.url, '/v1/plagiarism', { operationId, text }, token);
      await slow.waiting;
      upstream.answerUnreadable();
      // …where the upstream runs and charges the check, in an answer the BFF cannot read: settled failed, the charge counted.
      const repeat = await request(b.url, '/v1/plagiarism', { operationId, text }, token);
      expect(repeat.status).toBeGreaterThanOrEqual(500);
      expect((await b.ledger.wordsCharged(member.id)).plagiarism).toBe(7);
      slow.release();
      expect((await first).status).toBe(402);

      expect(upstream.charged()).toBe(7);
      expect((await b.ledger.wordsCharged(member.id)).plagiarism).toBe(7);
      expect((await b.ledger.budgetUsage(member.id)).plagiarism).toBe(7);
    } finally {
      await upstream.close();
    }
  }, 30_000);
});

/**
 * An upstream that refuses every check (400) with a message and field errors holding a NUL and
 * half of a surrogate pair: its refusal is passed on to the member and stored with the operation.
 */
async function upstreamRefusingWithBrokenText() {
  const server = http.createServer((req, res) => {
    req.resume().on('end', () => {
      const refusal = { detail: 'The text near "\ud83d" could not be read\u0000.', fields: { 'te\u0000xt': 'a broken character \udc00 here' } };
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(refusal));
    });
  });
  return serving(server);
}

for (const ledger of ['sqlite', 'postgres'] as const) {
  describe(`${ledger}: an upstream refusal quoting a NUL or half of a surrogate pair`, () => {
    it('is stored and answered as the refusal (the broken characters replaced), again at a repeat', async () => {
      const upstream = await upstreamRefusingWithBrokenText();
      const h = await startHarness({ ledger, env: { UPSTREAM_BASE_URL: upstream.url, BFF_RESUME_INTERVAL_SECONDS: '3600' } });
      try {
        const operationId = `probe5-broken-refusal-${process.pid}`;
        const text = 'A sentence the upstream refuses.';
        const answer = await h.call('/v1/plagiarism', { operationId, text });
        expect([answer.status, answer.body.error?.code]).toEqual([400, 'invalid_request']);
        expect(answer.body.error.message).toBe('The analysis service refused the request: The text near "\ufffd" could not be read\ufffd.');
        expect(answer.body.error.fields).toEqual({ 'te\ufffdxt': 'a broken character \ufffd here' });
        const tester = (await h.bff.ledger.listMembers()).find((member) => member.name === 'tester')!;
        expect((await h.bff.ledger.findOperation(tester.id, operationId))?.state).toBe('failed');
        const repeat = await h.call('/v1/plagiarism', { operationId, text });
        expect([repeat.status, repeat.body.error]).toEqual([400, answer.body.error]);
      } finally {
        await h.close();
        await upstream.close();
      }
    }, 30_000);
  });
}
