import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '@redline/bff/config';
import { createMember } from '@redline/bff/members';
import { startBff } from '@redline/bff/server';
import { startUpstreamDouble } from '../upstream/server.ts';
import { upstreamControl } from '../upstream/client.ts';
import { ConsoleClient } from './console-client.ts';
import { FAST_RETRIES, LogCapture, ledgerPerTest, newOperationId, request, startHarness, type Harness } from './harness.ts';

// Answers of the upstream that its contract leaves open or that it should never give: the
// words it charged are always counted, nothing it did not charge is held, and an operation id
// that failed for a reason that can be fixed goes through when repeated.

interface Scripted {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/** An upstream that answers each request with the next scripted answer (the last one again when they run out). */
function scriptedUpstream(): Promise<{ url: string; received: () => number; script(answers: Scripted[]): void; close(): Promise<void> }> {
  let answers: Scripted[] = [];
  let received = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const answer = answers[Math.min(received++, answers.length - 1)]!;
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(answer.body);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        received: () => received,
        script(next) {
          answers = next;
          received = 0;
        },
        close: () => new Promise<void>((done) => server.close(() => done())),
      }),
    ),
  );
}

const TEXT = 'One two three four five six seven.';
const plagiarism = (similarity: unknown) =>
  JSON.stringify({
    result: { results: [{ sentence: TEXT, is_plagiarised: true, web_sentence: TEXT, similarity, link: 'https://example.com/a' }], plagiarism_score: 100 },
    words_processed: 7,
  });
const detection = JSON.stringify({
  success: true,
  data: { details: { chunks: [{ text: TEXT, startChar: 0, endChar: TEXT.length, type: 'Human', score: 0.1 }], ai_percentage: 0 }, version: 'v3', words_processed: 7 },
});

describe.each(['sqlite', 'postgres'] as const)('answers the contract leaves open, or never gives (%s ledger)', (ledger) => {
  let upstream: Awaited<ReturnType<typeof scriptedUpstream>>;
  let h: Harness;
  beforeAll(async () => {
    upstream = await scriptedUpstream();
    h = await startHarness({ offline: true, ledger, env: { UPSTREAM_BASE_URL: upstream.url, UPSTREAM_API_KEY: 'scripted-key' } });
  });
  afterAll(async () => {
    await h.close();
    await upstream.close();
  });

  const usage = async (token: string, product: string) => (await h.call('/v1/usage', undefined, { method: 'GET', token })).body.products[product];

  it('a success it cannot read is counted as charged, and a repeat of the id fetches it again once it can be read', async () => {
    const token = await h.addMember(`unreadable-${newOperationId()}`, { plagiarism: 100 });
    const operationId = newOperationId();
    upstream.script([{ status: 200, body: plagiarism('high') }]);
    const first = await h.call('/v1/plagiarism', { operationId, text: TEXT }, { token });
    expect([first.status, first.body.error.code]).toEqual([502, 'upstream_invalid_response']);
    expect(first.body.error.message).toMatch(/counted its words/);
    expect(await usage(token, 'plagiarism')).toMatchObject({ wordsCharged: 7, remaining: 93 });

    // The upstream keeps its answer for 24 hours; readable now (as after an update of the BFF).
    upstream.script([{ status: 200, body: plagiarism(0.9) }]);
    const repeat = await h.call('/v1/plagiarism', { operationId, text: TEXT }, { token });
    expect(repeat.status).toBe(200);
    expect(upstream.received()).toBe(1);
    expect(await usage(token, 'plagiarism')).toMatchObject({ wordsCharged: 7, remaining: 93 });
  });

  // Found by an outside probe (bffprobe): the failure of the repeat was recorded with no words,
  // and the words the upstream had charged for the first answer left usage and the budget.
  it('a repeat of a charged answer it could not read that fails without a charge keeps the words counted', async () => {
    const token = await h.addMember(`unreadable-repeat-${newOperationId()}`, { plagiarism: 100 });
    const operationId = newOperationId();
    const metered = async () => Number(/^bff_words_charged_total\{product="plagiarism"[^}]*\} (\d+)$/m.exec((await h.call('/metrics', undefined, { token: null })).raw)?.[1] ?? 0);
    const meteredBefore = await metered();
    upstream.script([{ status: 200, body: plagiarism('high') }]);
    expect((await h.call('/v1/plagiarism', { operationId, text: TEXT }, { token })).body.error.code).toBe('upstream_invalid_response');
    expect(await usage(token, 'plagiarism')).toMatchObject({ wordsCharged: 7, remaining: 93 });
    // The repeat meets a status the upstream never answers (an address changed by mistake meanwhile).
    upstream.script([{ status: 404, body: '<html>Not Found</html>', headers: { 'content-type': 'text/html' } }]);
    const repeat = await h.call('/v1/plagiarism', { operationId, text: TEXT }, { token });
    expect([repeat.status, repeat.body.error.code]).toEqual([502, 'upstream_invalid_response']);
    expect(await usage(token, 'plagiarism')).toMatchObject({ wordsCharged: 7, remaining: 93 });
    // Fixed: the stored answer is fetched, its words counted once.
    upstream.script([{ status: 200, body: plagiarism(0.9) }]);
    expect((await h.call('/v1/plagiarism', { operationId, text: TEXT }, { token })).status).toBe(200);
    expect(await usage(token, 'plagiarism')).toMatchObject({ wordsCharged: 7, remaining: 93 });
    // The metrics a dashboard sums count the charge once too (they counted it again at the fetch).
    expect((await metered()) - meteredBefore).toBe(7);
  });

  it('a body that is not JSON at all is counted with the words of the text sent', async () => {
    const token = await h.addMember(`not-json-${newOperationId()}`, { detector: 100 });
    upstream.script([{ status: 200, body: '<html>OK</html>' }]);
    const answer = await h.call('/v1/detect', { operationId: newOperationId(), text: TEXT }, { token });
    expect([answer.status, answer.body.error.code]).toEqual([502, 'upstream_invalid_response']);
    expect(await usage(token, 'detector')).toMatchObject({ wordsCharged: 7 });
  });

  it('a status the upstream never answers (a wrong address) charges nothing and does not spoil the id', async () => {
    const token = await h.addMember(`wrong-address-${newOperationId()}`, { detector: 100 });
    const operationId = newOperationId();
    upstream.script([{ status: 404, body: '<html>Not Found</html>', headers: { 'content-type': 'text/html' } }]);
    const first = await h.call('/v1/detect', { operationId, text: TEXT }, { token });
    expect([first.status, first.body.error.code]).toEqual([502, 'upstream_invalid_response']);
    expect(first.body.error.message).toMatch(/HTTP 404.*Nothing was charged/);
    expect(await usage(token, 'detector')).toMatchObject({ wordsCharged: 0, remaining: 100 });

    upstream.script([{ status: 200, body: detection }]);
    const repeat = await h.call('/v1/detect', { operationId, text: TEXT }, { token });
    expect(repeat.status).toBe(200);
    expect(await usage(token, 'detector')).toMatchObject({ wordsCharged: 7 });
  });

  it('a 409 whose Retry-After cannot be read is still "in progress": waited for, not taken for a key reused for other work', async () => {
    for (const retryAfter of ['2s', 'soon']) {
      upstream.script([{ status: 409, body: '{"detail":"in progress"}', headers: { 'retry-after': retryAfter } }, { status: 200, body: detection }]);
      const answer = await h.call('/v1/detect', { operationId: newOperationId(), text: TEXT });
      expect(answer.status, retryAfter).toBe(200);
      expect(upstream.received()).toBe(2);
    }
  });

  it('a quota refusal is one whatever its count fields are named', async () => {
    upstream.script([{ status: 400, body: JSON.stringify({ error: 'Not enough words remaining.', words_left: 3, words_needed: 7 }) }]);
    const answer = await h.call('/v1/detect', { operationId: newOperationId(), text: TEXT });
    expect([answer.status, answer.body.error.code]).toEqual([402, 'quota_exceeded']);
    expect(answer.body.error).toMatchObject({ remainingWords: 3, requiredWords: 7 });
    upstream.script([{ status: 400, body: JSON.stringify({ error: 'Not enough words remaining.' }) }]);
    const bare = await h.call('/v1/detect', { operationId: newOperationId(), text: TEXT });
    expect([bare.status, bare.body.error.code]).toEqual([402, 'quota_exceeded']);
    expect(bare.body.error.message).toMatch(/Not enough words left .* for this text/);
  });

  it('a charge of more words than the text has characters is counted as the upstream reports it, and logged and metered for the team to look into', async () => {
    const token = await h.addMember(`overcharged-${newOperationId()}`);
    const operationId = newOperationId();
    upstream.script([{ status: 200, body: detection.replace('"words_processed":7', '"words_processed":1000000000') }]);
    const answer = await h.call('/v1/detect', { operationId, text: TEXT }, { token });
    expect([answer.status, answer.body.wordsCharged]).toEqual([200, 1_000_000_000]);
    expect(await usage(token, 'detector')).toMatchObject({ wordsCharged: 1_000_000_000 });
    const line = h.logs.lines.map((each) => JSON.parse(each)).find((each) => each.operationId === operationId && /more words than/.test(each.msg));
    expect(line).toMatchObject({ level: 40, product: 'detector', wordsCharged: 1_000_000_000 });
    expect(h.logs.text).not.toContain(TEXT);
    const metrics = (await h.call('/metrics', undefined, { token: null })).raw;
    expect(metrics).toMatch(/bff_upstream_implausible_charges_total\{product="detector"\} 1\b/);
    // A charge within the characters sent is not flagged.
    upstream.script([{ status: 200, body: detection }]);
    await h.call('/v1/detect', { operationId: newOperationId(), text: TEXT }, { token });
    expect((await h.call('/metrics', undefined, { token: null })).raw).toMatch(/bff_upstream_implausible_charges_total\{product="detector"\} 1\b/);
  });

  it('a provider abort holds no words and is not run again unasked; a repeat of the id is', async () => {
    const token = await h.addMember(`aborted-${newOperationId()}`, { detector: 10 });
    const operationId = newOperationId();
    upstream.script([{ status: 502, body: '{"detail":"provider aborted"}' }]);
    const aborted = await h.call('/v1/detect', { operationId, text: TEXT }, { token });
    expect([aborted.status, aborted.body.error.code]).toEqual([502, 'provider_aborted']);
    expect(await usage(token, 'detector')).toMatchObject({ wordsCharged: 0, remaining: 10 });
    // The words the aborted check held are free for another text.
    upstream.script([{ status: 200, body: detection }]);
    expect((await h.call('/v1/detect', { operationId: newOperationId(), text: TEXT }, { token })).status).toBe(200);
    upstream.script([{ status: 200, body: detection }]);
    const received = upstream.received();
    await h.bff.engine.resumePending();
    expect(upstream.received()).toBe(received);
  });

  it("a gateway's 502 (not the upstream's JSON) leaves the operation open: the answer it lost is fetched and counted", async () => {
    const token = await h.addMember(`gateway-${newOperationId()}`, { detector: 10 });
    const operationId = newOperationId();
    upstream.script([{ status: 502, body: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>', headers: { 'content-type': 'text/html' } }]);
    const lost = await h.call('/v1/detect', { operationId, text: TEXT }, { token });
    expect(lost.status).not.toBe(200);
    expect(lost.body.error.code).not.toBe('provider_aborted');
    // Its words stay held: the gateway may have lost the answer of a call the upstream charged.
    expect(await usage(token, 'detector')).toMatchObject({ remaining: 3 });
    upstream.script([{ status: 200, body: detection }]);
    expect(await h.bff.engine.resumePending()).toBeGreaterThan(0);
    await expect.poll(() => usage(token, 'detector')).toMatchObject({ wordsCharged: 7, remaining: 3 });
    expect(upstream.received()).toBe(1);
    const repeat = await h.call('/v1/detect', { operationId, text: TEXT }, { token });
    expect(repeat.status).toBe(200);
    expect(await usage(token, 'detector')).toMatchObject({ wordsCharged: 7, remaining: 3 });
  });

  // The upstream's 400 message is passed on to the member (and kept with the operation); its
  // bodies are not documented, and a validation error that quotes the request's headers is
  // common. The BFF's key must not travel to a member with it.
  it('a refusal that quotes the upstream key passes its message on without the key', async () => {
    const operationId = newOperationId();
    upstream.script([
      { status: 400, body: JSON.stringify({ detail: 'X-API-Key scripted-key may not be used for this text', fields: { 'X-API-Key': 'scripted-key is not valid here' } }) },
    ]);
    const refused = await h.call('/v1/detect', { operationId, text: TEXT });
    expect([refused.status, refused.body.error.code]).toEqual([400, 'invalid_request']);
    expect(refused.body.error.message).toBe('The analysis service refused the request: X-API-Key [redacted] may not be used for this text');
    expect(refused.raw).not.toContain('scripted-key');
    const repeated = await h.call('/v1/detect', { operationId, text: TEXT });
    expect(repeated.raw).not.toContain('scripted-key');
    expect(h.logs.text).not.toContain('scripted-key');
  });
});

describe('a key tested in the console that the upstream refuses, quoting it', () => {
  let upstream: Awaited<ReturnType<typeof scriptedUpstream>>;
  let h: Harness;
  beforeAll(async () => {
    upstream = await scriptedUpstream();
    h = await startHarness({ offline: true, env: { UPSTREAM_BASE_URL: upstream.url, UPSTREAM_API_KEY: 'scripted-key', BFF_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') }, testerRole: 'admin' });
  });
  afterAll(async () => {
    await h.close();
    await upstream.close();
  });

  it('says what the upstream said without the key, in the answer, the stored test, the audit log and the database', async () => {
    const admin = await ConsoleClient.signIn(h.bff.url, h.token);
    const candidate = 'candidate-key-0123456789';
    const added = await admin.post('/upstream-keys', { label: 'new', key: candidate });
    expect(added.status).toBe(201);
    upstream.script([{ status: 400, body: JSON.stringify({ detail: `API key ${candidate} is not enabled for v3` }) }]);
    const tested = await admin.post(`/upstream-keys/${added.body.key.id}/test`);
    expect(tested.status).toBe(200);
    expect(tested.body.test.summary).toBe('The upstream refused the test request (HTTP 400: API key [redacted] is not enabled for v3).');
    await admin.get('/upstream-keys');
    await admin.get('/audit');
    for (const answer of admin.answers) expect(answer).not.toContain(candidate);
    expect(h.logs.text).not.toContain(candidate);
    for (const name of readdirSync(h.dataDir)) expect(readFileSync(path.join(h.dataDir, name)).toString('latin1'), name).not.toContain(candidate);
  });
});

describe('an operation that started with an upstream key of another account', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'redline-key-account-'));
  let double: Awaited<ReturnType<typeof startUpstreamDouble>>;
  beforeAll(async () => {
    double = await startUpstreamDouble({ testMode: true });
  });
  afterEach(async () => {
    await upstreamControl(double.url).clearFaults();
  });
  afterAll(async () => {
    await double.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = (apiKey: string) =>
    startBff(loadConfig({ ...FAST_RETRIES, BFF_MAX_ATTEMPTS: '3', BFF_REQUEST_DEADLINE_MS: '2000', BFF_PORT: '0', BFF_DATA_DIR: dataDir, UPSTREAM_BASE_URL: double.url, UPSTREAM_API_KEY: apiKey }), {
      logDestination: new LogCapture(),
    });

  it('is not moved to a changed UPSTREAM_API_KEY of another account, which would run and charge it again', async () => {
    const control = upstreamControl(double.url);
    const first = await start('demo-key-primary');
    const token = (await createMember(first.ledger, 'key-changer')).token;
    const operationId = newOperationId();
    // Charged on the first account, the answer lost, and every retry cut off: left pending.
    await control.addFaults([{ fault: { kind: 'drop-after' }, times: 1 }, { fault: { kind: 'drop-before' }, times: 20 }]);
    const lost = await request(first.url, '/v1/detect', { operationId, text: TEXT }, token);
    expect(lost.status).toBe(504);
    await first.stop();
    await control.clearFaults();
    expect((await control.account('demo')).charged.detector).toBe(7);

    const second = await start('demo-key-detector-only');
    try {
      await second.engine.resumePending();
      const repeat = await request(second.url, '/v1/detect', { operationId, text: TEXT }, token);
      expect([repeat.status, repeat.body.error.code]).toEqual([503, 'upstream_key_missing']);
      expect(repeat.body.error.message).toMatch(/another account/);
      expect((await control.account('detector-only')).charged.detector).toBe(0);
    } finally {
      await second.stop();
    }

    // With the first account's key set again, the repeat gets the answer it was charged for, once.
    const third = await start('demo-key-primary');
    try {
      const repeat = await request(third.url, '/v1/detect', { operationId, text: TEXT }, token);
      expect(repeat.status).toBe(200);
      expect((await control.account('demo')).charged.detector).toBe(7);
    } finally {
      await third.stop();
    }
  });
});

describe('an operation that started with UPSTREAM_API_KEY, after that key is rotated within its account', () => {
  // One ledger per test: the account question is asked with whichever operation the old value completed.
  const dataDirs: string[] = [];
  let dataDir = '';
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'redline-key-rotation-'));
    dataDirs.push(dataDir);
  });
  let double: Awaited<ReturnType<typeof startUpstreamDouble>>;
  beforeAll(async () => {
    double = await startUpstreamDouble({ testMode: true });
  });
  afterAll(async () => {
    await double.close();
    for (const folder of dataDirs) rmSync(folder, { recursive: true, force: true });
  });

  const start = (apiKey: string) =>
    startBff(loadConfig({ ...FAST_RETRIES, BFF_MAX_ATTEMPTS: '3', BFF_REQUEST_DEADLINE_MS: '2000', BFF_PORT: '0', BFF_DATA_DIR: dataDir, UPSTREAM_BASE_URL: double.url, UPSTREAM_API_KEY: apiKey }), {
      logDestination: new LogCapture(),
    });

  // The upstream's own rotation (3.1): a replacement is activated and the old value stops
  // working. The operator then sets the new value in UPSTREAM_API_KEY and restarts. The old
  // value cannot be set again (401), so "set it again" is no way out: an operation charged with
  // it, whose answer was lost, must be fetched with the new value of the same account, whose
  // idempotency records are the same (README, Exactly once: words the upstream charged are
  // always counted). Found by an outside probe: upstream_key_missing forever, and the words
  // charged upstream never counted.
  it('gets the answer it was charged for with the new value, once, and counts its words', async () => {
    const control = upstreamControl(double.url);
    const first = await start('demo-key-primary');
    const token = (await createMember(first.ledger, 'key-rotator')).token;
    const operationId = newOperationId();
    // An earlier check on the old value completed (a source check: the account question is asked on its product).
    expect((await request(first.url, '/v1/plagiarism', { operationId: newOperationId(), text: 'An earlier check that completed.' }, token)).status).toBe(200);
    // Charged with the old value, the answer lost, every retry cut off: left pending.
    await control.addFaults([{ fault: { kind: 'drop-after' }, times: 1 }, { fault: { kind: 'drop-before' }, times: 20 }]);
    const lost = await request(first.url, '/v1/detect', { operationId, text: TEXT }, token);
    expect(lost.status).toBe(504);
    await first.stop();
    await control.clearFaults();
    const charged = (await control.account('demo')).charged.detector;

    const NEW_VALUE = 'demo-key-rotated-0001';
    await control.changeKeys('demo', { add: [NEW_VALUE], remove: ['demo-key-primary'] });
    const second = await start(NEW_VALUE);
    try {
      await second.engine.resumePending();
      const repeat = await request(second.url, '/v1/detect', { operationId, text: TEXT }, token);
      expect([repeat.status, repeat.body.error?.code]).toEqual([200, undefined]);
      expect((await control.account('demo')).charged.detector).toBe(charged);
      const usage = await request(second.url, '/v1/usage', undefined, token, { method: 'GET' });
      expect(usage.body.products.detector.wordsCharged).toBe(charged);
    } finally {
      await second.stop();
      await control.changeKeys('demo', { add: ['demo-key-primary'], remove: [NEW_VALUE] });
    }
  });

  it('is still not moved to a value of another account: the check costs that account its few words once, never the operation', async () => {
    const control = upstreamControl(double.url);
    const first = await start('demo-key-primary');
    const token = (await createMember(first.ledger, 'key-mover')).token;
    const operationId = newOperationId();
    expect((await request(first.url, '/v1/detect', { operationId: newOperationId(), text: 'An earlier check that completed.' }, token)).status).toBe(200);
    await control.addFaults([{ fault: { kind: 'drop-after' }, times: 1 }, { fault: { kind: 'drop-before' }, times: 20 }]);
    expect((await request(first.url, '/v1/detect', { operationId, text: TEXT }, token)).status).toBe(504);
    await first.stop();
    await control.clearFaults();

    const before = await control.account('detector-only');
    const second = await start('demo-key-detector-only');
    try {
      await second.engine.resumePending();
      for (let repeat = 0; repeat < 3; repeat++) {
        const answer = await request(second.url, '/v1/detect', { operationId, text: TEXT }, token);
        expect([answer.status, answer.body.error.code]).toEqual([503, 'upstream_key_missing']);
      }
      const after = await control.account('detector-only');
      // The check's 4 words ('Redline upstream account check.'), once; the operation's 7 never.
      expect(after.charged.detector - before.charged.detector).toBe(4);
      expect(after.providerRuns.detector - before.providerRuns.detector).toBe(1);
    } finally {
      await second.stop();
    }
  });
});

// The upstream checks the API key and the account's subscription before it looks up the
// Idempotency-Key's record (so does the BFF, which sends nothing without a key of the operation's
// account). Such a refusal after an attempt that may have run and been charged (its answer lost)
// says nothing about that run: the operation stays pending and is resumed once a key of its
// account is in use, and the words the upstream charged are counted without the client. Found by
// an outside probe (bffprobe): the operation was settled failed with nothing counted and never
// resumed, so its words stayed out of usage and budgets unless the client repeated the id.
describe.each(['sqlite', 'postgres'] as const)('an operation and the upstream key it started with, on another key (%s ledger)', (ledgerKind) => {
  let double: Awaited<ReturnType<typeof startUpstreamDouble>>;
  const place = ledgerPerTest('key_refused', ledgerKind);
  beforeAll(async () => {
    double = await startUpstreamDouble({ testMode: true });
  });
  afterAll(async () => {
    await double.close();
  });

  /** A BFF on this test's ledger (each start opens it again, as a restarted process does). */
  const start = async (apiKey: string, baseUrl = double.url) =>
    startBff(loadConfig({ ...FAST_RETRIES, BFF_MAX_ATTEMPTS: '3', BFF_REQUEST_DEADLINE_MS: '2000', BFF_PORT: '0', BFF_DATA_DIR: place.dataDir(), UPSTREAM_BASE_URL: baseUrl, UPSTREAM_API_KEY: apiKey }), {
      logDestination: new LogCapture(),
      ledger: await place.ledger(),
    });

  /** Resumes what the ledger holds pending and waits until the member's usage shows `words`; the usage seen. */
  async function resumeAndCount(bff: Awaited<ReturnType<typeof start>>, token: string, words: number): Promise<number> {
    await bff.engine.resumePending();
    const usage = async () => (await request(bff.url, '/v1/usage', undefined, token, { method: 'GET' })).body.products.detector.wordsCharged as number;
    for (let wait = 0; wait < 30 && (await usage()) !== words; wait++) await new Promise((resolve) => setTimeout(resolve, 100));
    return usage();
  }

  /**
   * A check run and charged upstream whose answer never came back (the first attempt dropped after
   * the work, the rest before it), on a BFF that then stops: its member's token, its id, and the
   * demo account before it.
   */
  async function chargedThenLost(memberName: string) {
    const control = upstreamControl(double.url);
    const first = await start('demo-key-primary');
    const token = (await createMember(first.ledger, memberName)).token;
    const operationId = newOperationId();
    const before = await control.account('demo');
    await control.addFaults([{ fault: { kind: 'drop-after' }, product: 'detector' }, { fault: { kind: 'drop-before' }, product: 'detector', times: 20 }]);
    expect((await request(first.url, '/v1/detect', { operationId, text: TEXT }, token)).status).toBe(504);
    await first.stop();
    await control.clearFaults();
    return { control, token, operationId, before };
  }

  /** A start with the demo account's key and the right address resumes it: 7 words counted, charged once, run once. */
  async function countedOnceOnNextStart({ control, token, before }: Awaited<ReturnType<typeof chargedThenLost>>) {
    const fixed = await start('demo-key-primary');
    try {
      expect(await resumeAndCount(fixed, token, 7)).toBe(7);
      const after = await control.account('demo');
      expect([after.charged.detector - before.charged.detector, after.providerRuns.detector - before.providerRuns.detector]).toEqual([7, 1]);
    } finally {
      await fixed.stop();
    }
  }

  // The rotation's own window: the upstream retires the old value the moment the replacement is
  // activated in its dashboard (3.1), before the operator can set the new one in the BFF.
  it('a retry refused (401) because the value was retired meanwhile: the next start with the new value counts the charge', async () => {
    const control = upstreamControl(double.url);
    const first = await start('demo-key-primary');
    const token = (await createMember(first.ledger, 'mid-rotation')).token;
    const operationId = newOperationId();
    // An earlier check completed with the old value: the new value's account is asked with its key.
    expect((await request(first.url, '/v1/plagiarism', { operationId: newOperationId(), text: 'An earlier check that completed.' }, token)).status).toBe(200);
    const before = await control.account('demo');
    // Run and charged, then the connection drops; meanwhile the dashboard activates a replacement.
    await control.addFaults([{ fault: { kind: 'drop-after', delayMs: 800 }, product: 'detector' }]);
    const NEW_VALUE = 'demo-key-rotated-0002';
    const answer = request(first.url, '/v1/detect', { operationId, text: TEXT }, token);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await control.changeKeys('demo', { add: [NEW_VALUE], remove: ['demo-key-primary'] });
    try {
      const refused = await answer;
      expect([refused.status, refused.body.error.code]).toEqual([502, 'upstream_key_rejected']);
      await first.stop();
      expect((await control.account('demo')).charged.detector - before.charged.detector).toBe(7);

      const second = await start(NEW_VALUE);
      try {
        expect(await resumeAndCount(second, token, 7)).toBe(7);
        const after = await control.account('demo');
        expect([after.charged.detector - before.charged.detector, after.providerRuns.detector - before.providerRuns.detector]).toEqual([7, 1]);
        const repeat = await request(second.url, '/v1/detect', { operationId, text: TEXT }, token);
        expect([repeat.status, repeat.body.replayed, repeat.body.wordsCharged]).toEqual([200, true, 7]);
      } finally {
        await second.stop();
      }
    } finally {
      await control.changeKeys('demo', { add: ['demo-key-primary'], remove: [NEW_VALUE] });
    }
  });

  // The team moved to another account because the first ran out of words. The check refused for
  // quota never ran, so no account holds a record of its key: repeated, it runs with the key in
  // use. Found by an outside probe (bffprobe): refused for good with upstream_key_missing, saying
  // another account would run and charge it again and that its result could be fetched only
  // with a key of the first account (there was no result).
  it('a check refused before anything ran, repeated after a move to another account, runs with the key in use, once', async () => {
    const control = upstreamControl(double.url);
    const first = await start('demo-key-primary');
    const token = (await createMember(first.ledger, 'moved-account')).token;
    const operationId = newOperationId();
    await control.setBalances('demo', { detector: 1 });
    try {
      const refused = await request(first.url, '/v1/detect', { operationId, text: TEXT }, token);
      expect([refused.status, refused.body.error.code]).toEqual([402, 'quota_exceeded']);
    } finally {
      await first.stop();
      await control.setBalances('demo', { detector: 1_000_000 });
    }
    const before = await control.account('detector-only');
    const moved = await start('demo-key-detector-only');
    try {
      const repeat = await request(moved.url, '/v1/detect', { operationId, text: TEXT }, token);
      expect([repeat.status, repeat.body.error?.code, repeat.body.wordsCharged]).toEqual([200, undefined, 7]);
      // A resume finds nothing left to run; a second repeat is a replay.
      await moved.engine.resumePending();
      const again = await request(moved.url, '/v1/detect', { operationId, text: TEXT }, token);
      expect([again.status, again.body.replayed]).toEqual([200, true]);
      const after = await control.account('detector-only');
      expect([after.charged.detector - before.charged.detector, after.providerRuns.detector - before.providerRuns.detector]).toEqual([7, 1]);
      expect((await request(moved.url, '/v1/usage', undefined, token, { method: 'GET' })).body.products.detector.wordsCharged).toBe(7);
    } finally {
      await moved.stop();
    }
  });

  // A status the upstream never answers comes from something else on the way (a wrong
  // UPSTREAM_BASE_URL, a proxy's error page): like a refusal of the key it says nothing about an
  // earlier run of the key. A review found a repeat sent to a wrong address after a restart
  // settled failed with no words, the words the upstream charged never counted once the address
  // was fixed (a failed operation is never resumed).
  it('a repeat answered 404 by a wrong address after a run that may have been charged: the start with the right address counts the charge', async () => {
    const lost = await chargedThenLost('wrong-address');
    const misrouted = await start('demo-key-primary', `${double.url}/misrouted`);
    try {
      const refused = await request(misrouted.url, '/v1/detect', { operationId: lost.operationId, text: TEXT }, lost.token);
      expect([refused.status, refused.body.error.code]).toEqual([502, 'upstream_invalid_response']);
    } finally {
      await misrouted.stop();
    }
    await countedOnceOnNextStart(lost);
  });

  // README (Exactly once): an operation that started on another account "goes through once the
  // old key is set again"; it did only when its client repeated it.
  it('a resume refused (upstream_key_missing) under a key of another account: the next start with the old key counts the charge', async () => {
    const lost = await chargedThenLost('other-account');
    const other = await start('demo-key-detector-only');
    try {
      await other.engine.resumePending();
      const refused = await request(other.url, '/v1/detect', { operationId: lost.operationId, text: TEXT }, lost.token);
      expect([refused.status, refused.body.error.code]).toEqual([503, 'upstream_key_missing']);
    } finally {
      await other.stop();
    }
    await countedOnceOnNextStart(lost);
  });
});
