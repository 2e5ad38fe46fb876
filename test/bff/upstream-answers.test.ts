import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '@redline/bff/config';
import { createMember } from '@redline/bff/members';
import { startBff } from '@redline/bff/server';
import { startUpstreamDouble } from '../upstream/server.ts';
import { upstreamControl } from '../upstream/client.ts';
import { FAST_RETRIES, LogCapture, newOperationId, request, startHarness, type Harness } from './harness.ts';

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
