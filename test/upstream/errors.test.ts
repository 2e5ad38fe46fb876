import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_TEXT_CHARACTERS, QuotaExceededBody, countWords, parseUpstreamError } from '@redline/shared';
import { startUpstreamDouble, type RunningUpstreamDouble } from './server.ts';
import { callUpstream, upstreamControl } from './client.ts';
import { MIXED_TEXT } from './fixtures.ts';

// Every status of the error table (upstream-api.md 7) the upstream can produce.

let double: RunningUpstreamDouble;
let control: ReturnType<typeof upstreamControl>;
const apiKey = 'demo-key-primary';
let counter = 0;
const freshKey = () => `err-key-${Date.now()}-${counter++}`;
const detect = (options: { key?: string; text?: string; apiKey?: string } = {}) =>
  callUpstream(double.url, 'detector', {
    apiKey: options.apiKey ?? apiKey,
    idempotencyKey: options.key ?? freshKey(),
    body: { text: options.text ?? MIXED_TEXT, version: 'v3' },
  });

beforeAll(async () => {
  double = await startUpstreamDouble({ testMode: true });
  control = upstreamControl(double.url);
});
afterAll(() => double.close());
beforeEach(() => control.reset());

describe('400 invalid request', () => {
  it.each([
    ['missing text', { version: 'v3' }, 'text'],
    ['missing version', { text: 'Hello there.' }, 'version'],
    ['unknown version', { text: 'Hello there.', version: 'v4' }, 'version'],
    ['text not a string', { text: 42, version: 'v3' }, 'text'],
    ['empty text', { text: ' \n\u00a0', version: 'v3' }, 'text'],
    ['text over the limit', { text: 'a'.repeat(MAX_TEXT_CHARACTERS + 1), version: 'v3' }, 'text'],
  ])('%s', async (_label, body, field) => {
    const response = await callUpstream(double.url, 'detector', { apiKey, idempotencyKey: freshKey(), body });
    expect(response.status).toBe(400);
    expect(response.body.fields[field]).toBeTruthy();
    expect(response.body.detail).toContain(field);
  });

  it('unknown humanizer model', async () => {
    const response = await callUpstream(double.url, 'humanizer', { apiKey, body: { text: 'Hello.', model: 'gpt' } });
    expect(response.status).toBe(400);
    expect(response.body.fields.model).toMatch(/cognia/);
  });

  it('malformed JSON and a wrong content type', async () => {
    const malformed = await callUpstream(double.url, 'detector', { apiKey, rawBody: '{"text": "unterminated' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.detail).toMatch(/not valid JSON/);
    const wrongType = await callUpstream(double.url, 'detector', {
      apiKey,
      rawBody: JSON.stringify({ text: 'Hello.', version: 'v3' }),
      contentType: 'text/plain',
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.detail).toMatch(/application\/json/);
  });

  it('exactly 160,000 characters is accepted, counted in code points', async () => {
    const emoji = '😀'.repeat(MAX_TEXT_CHARACTERS); // 320,000 UTF-16 units, 160,000 characters
    expect((await detect({ text: emoji })).status).toBe(200);
    expect((await detect({ text: `${emoji}!` })).status).toBe(400);
  });

  it('not enough words: the legacy `error` field and the remaining-limit fields, nothing charged', async () => {
    const text = 'word '.repeat(51).trim();
    const key = freshKey();
    const response = await detect({ apiKey: 'demo-key-low-balance', text, key });
    expect(response.status).toBe(400);
    const body = QuotaExceededBody.parse(response.body);
    expect(body).toMatchObject({ remaining_words: 50, required_words: 51, product: 'detector' });
    expect(response.headers.get('x-idempotency-key')).toBe(key);
    expect(parseUpstreamError(400, response.body)).toMatchObject({ kind: 'quota_exceeded', remainingWords: 50 });
    expect((await control.account('low-balance')).charged.detector).toBe(0);
    // After a top-up, the same key runs: a refused request left no record behind.
    await control.setBalances('low-balance', { detector: 100 });
    expect((await detect({ apiKey: 'demo-key-low-balance', text, key })).status).toBe(200);
  });

  it('balances are per product', async () => {
    const text = 'word '.repeat(40).trim();
    expect((await detect({ apiKey: 'demo-key-low-balance', text })).status).toBe(200);
    const humanize = await callUpstream(double.url, 'humanizer', { apiKey: 'demo-key-low-balance', body: { text, model: 'lexi' } });
    expect(humanize.status).toBe(200);
    expect((await detect({ apiKey: 'demo-key-low-balance', text })).status).toBe(400);
    const account = await control.account('low-balance');
    expect(account.balances).toEqual({ detector: 10, humanizer: 10, plagiarism: 50 });
  });
});

describe('401, 403', () => {
  it('401 for a missing or unknown key', async () => {
    const missing = await callUpstream(double.url, 'detector', { body: { text: 'Hi.', version: 'v3' } });
    expect(missing.status).toBe(401);
    expect(missing.body.detail).toMatch(/not provided/);
    const unknown = await detect({ apiKey: 'not-a-key' });
    expect(unknown.status).toBe(401);
    expect(JSON.stringify(unknown.body)).not.toContain('not-a-key');
  });

  it('403 with error_code "1002" for a product without a subscription', async () => {
    const response = await callUpstream(double.url, 'humanizer', {
      apiKey: 'demo-key-detector-only',
      body: { text: 'Hello.', model: 'cognia' },
    });
    expect(response.status).toBe(403);
    expect(response.body.error_code).toBe('1002');
    expect(parseUpstreamError(403, response.body).kind).toBe('no_subscription');
  });
});

describe('429, 502, 503', () => {
  it('429 with Retry-After from the configured request-rate limit', async () => {
    const limited = await startUpstreamDouble({ testMode: true, rateLimit: { requests: 2, windowMs: 30_000 } });
    try {
      const call = () => callUpstream(limited.url, 'plagiarism', { apiKey, body: { text: 'Hello there.' } });
      expect((await call()).status).toBe(200);
      expect((await call()).status).toBe(200);
      const refused = await call();
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(29);
      await upstreamControl(limited.url).advanceClock(30_000);
      expect((await call()).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('a forced 429 carries its Retry-After and charges nothing', async () => {
    await control.addFaults([{ fault: { kind: 'status', status: 429, retryAfterSeconds: 7 } }]);
    const key = freshKey();
    const refused = await detect({ key });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('7');
    expect((await detect({ key })).status).toBe(200);
    expect((await control.account('demo')).charged.detector).toBe(countWords(MIXED_TEXT));
  });

  it('502: provider aborted, nothing charged, the same key can run again', async () => {
    await control.addFaults([{ fault: { kind: 'status', status: 502 }, product: 'detector' }]);
    const key = freshKey();
    const aborted = await detect({ key });
    expect(aborted.status).toBe(502);
    expect(aborted.body.detail).toMatch(/No words were charged/);
    expect(await control.account('demo')).toMatchObject({ charged: { detector: 0 }, balances: { detector: 1_000_000 } });
    expect((await detect({ key })).status).toBe(200);
    expect((await control.account('demo')).charged.detector).toBe(countWords(MIXED_TEXT));
  });

  it('503 before the work: nothing recorded; the exact retry runs once', async () => {
    await control.addFaults([{ fault: { kind: 'status', status: 503 }, times: 3 }]);
    const key = freshKey();
    for (let i = 0; i < 3; i++) expect((await detect({ key })).status).toBe(503);
    expect((await detect({ key })).status).toBe(200);
    expect(await control.account('demo')).toMatchObject({ charged: { detector: countWords(MIXED_TEXT) }, providerRuns: { detector: 1 } });
  });

  it('503 after the work: output withheld; the exact retry records one charge and returns it', async () => {
    await control.addFaults([{ fault: { kind: 'status', status: 503, phase: 'after' } }]);
    const key = freshKey();
    const withheld = await detect({ key });
    expect(withheld.status).toBe(503);
    expect(withheld.headers.get('x-idempotency-key')).toBe(key);
    expect(JSON.stringify(withheld.body)).not.toContain('chunks');
    expect((await control.account('demo')).charged.detector).toBe(0);
    const retried = await detect({ key });
    expect(retried.status).toBe(200);
    expect(retried.body.data.details.chunks.length).toBeGreaterThan(0);
    expect((await detect({ key })).body).toEqual(retried.body);
    expect(await control.account('demo')).toMatchObject({ charged: { detector: countWords(MIXED_TEXT) }, providerRuns: { detector: 1 } });
  });
});

describe('control API', () => {
  it('is absent unless the double runs in test mode', async () => {
    const production = await startUpstreamDouble();
    try {
      const response = await fetch(`${production.url}/__control/state`);
      expect(response.status).toBe(404);
    } finally {
      await production.close();
    }
  });

  it('records what it received without the request text', async () => {
    await detect();
    const received = await control.received();
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ product: 'detector', accountId: 'demo', status: 200 });
    expect(JSON.stringify(received)).not.toContain('fast-paced');
  });
});
