import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DetectResponseV3, HumanizeResponse, REPLAY_WINDOW_MS, countWords } from '@redline/shared';
import { startUpstreamDouble, type RunningUpstreamDouble } from './server.ts';
import { callUpstream, upstreamControl } from './client.ts';
import { HUMAN_SENTENCE, MIXED_TEXT } from './fixtures.ts';

// Every row of the idempotent-operation table (upstream-api.md 3.2) and every rule of 4.2,
// over real HTTP.

let double: RunningUpstreamDouble;
let control: ReturnType<typeof upstreamControl>;
const apiKey = 'demo-key-primary';
const words = countWords(MIXED_TEXT);
let keyCounter = 0;
const freshKey = () => `test-key-${Date.now()}-${keyCounter++}`;

const detect = (idempotencyKey: string | undefined, text = MIXED_TEXT, version = 'v3') =>
  callUpstream(double.url, 'detector', { apiKey, idempotencyKey, body: { text, version } });

beforeAll(async () => {
  double = await startUpstreamDouble({ testMode: true, inProgressRetryAfterSeconds: 2 });
  control = upstreamControl(double.url);
});
afterAll(() => double.close());
beforeEach(() => control.reset());

describe('idempotent operation states (3.2)', () => {
  it('(none) → in progress → completed: a new key runs the provider once and charges once', async () => {
    const key = freshKey();
    const first = await detect(key);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-idempotency-key')).toBe(key);
    expect(first.headers.get('x-idempotency-key-source')).toBeNull();
    const parsed = DetectResponseV3.parse(first.body);
    expect(parsed.data.words_processed).toBe(words);
    const account = await control.account('demo');
    expect(account.charged.detector).toBe(words);
    expect(account.providerRuns.detector).toBe(1);
    expect(account.balances.detector).toBe(1_000_000 - words);
  });

  it('in progress + exact repeat: 409 with Retry-After while the first call holds its reservation', async () => {
    await control.addFaults([{ fault: { kind: 'delay', delayMs: 600 }, product: 'detector' }]);
    const key = freshKey();
    const first = detect(key);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const repeat = await detect(key);
    expect(repeat.status).toBe(409);
    expect(repeat.headers.get('retry-after')).toBe('2');
    expect(repeat.body.detail).toMatch(/in progress/);
    expect((await first).status).toBe(200);
    const account = await control.account('demo');
    expect(account.charged.detector).toBe(words);
    expect(account.providerRuns.detector).toBe(1);
  });

  it('completed + exact repeat within 24 hours: the stored response, no provider run, no charge', async () => {
    const key = freshKey();
    const first = await detect(key);
    await control.advanceClock(REPLAY_WINDOW_MS - 60_000);
    const repeat = await detect(key);
    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual(first.body);
    expect(repeat.headers.get('x-idempotency-key')).toBe(key);
    const account = await control.account('demo');
    expect(account.providerRuns.detector).toBe(1);
    expect(account.charged.detector).toBe(words);
  });

  it('completed → expired after 24 hours: 410, and the permanent record still prevents a second charge', async () => {
    const key = freshKey();
    await detect(key);
    await control.advanceClock(REPLAY_WINDOW_MS);
    const expired = await detect(key);
    expect(expired.status).toBe(410);
    expect(expired.body.detail).toMatch(/24 hours/);
    // expired + repeat with the same key: still 410, still no charge.
    await control.advanceClock(7 * REPLAY_WINDOW_MS);
    expect((await detect(key)).status).toBe(410);
    const account = await control.account('demo');
    expect(account.charged.detector).toBe(words);
    expect(account.providerRuns.detector).toBe(1);
    expect(account.records).toBe(1);
  });

  it.each([
    ['other text', (key: string) => detect(key, `${MIXED_TEXT} More.`)],
    ['another detector version', (key: string) => detect(key, MIXED_TEXT, 'v2')],
    ['another endpoint', (key: string) => callUpstream(double.url, 'plagiarism', { apiKey, idempotencyKey: key, body: { text: MIXED_TEXT } })],
  ])('any state + same key with %s: 409 without Retry-After, record unchanged', async (_label, mismatch) => {
    const key = freshKey();
    await detect(key);
    const completedMismatch = await mismatch(key);
    expect(completedMismatch.status).toBe(409);
    expect(completedMismatch.headers.get('retry-after')).toBeNull();
    expect(completedMismatch.body.detail).toMatch(/different request/);
    await control.advanceClock(REPLAY_WINDOW_MS);
    expect((await mismatch(key)).status).toBe(409); // expired state: still a mismatch
    expect((await detect(key)).status).toBe(410); // the record is unchanged
    expect((await control.account('demo')).providerRuns).toMatchObject({ detector: 1, plagiarism: 0 });
  });

  it('in progress + same key with different work: 409 without Retry-After', async () => {
    await control.addFaults([{ fault: { kind: 'delay', delayMs: 500 }, product: 'detector' }]);
    const key = freshKey();
    const first = detect(key);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const mismatch = await detect(key, HUMAN_SENTENCE);
    expect(mismatch.status).toBe(409);
    expect(mismatch.headers.get('retry-after')).toBeNull();
    expect((await first).status).toBe(200);
  });
});

describe('idempotency rules (4.2)', () => {
  it('rule 4: a humanizer key reused with another model gets 409', async () => {
    const key = freshKey();
    const humanize = (model: string) =>
      callUpstream(double.url, 'humanizer', { apiKey, idempotencyKey: key, body: { text: MIXED_TEXT, model } });
    expect((await humanize('cognia')).status).toBe(200);
    expect((await humanize('lexi')).status).toBe(409);
    const replay = await humanize('cognia');
    expect(replay.status).toBe(200);
    expect(HumanizeResponse.parse(replay.body).model_used).toBe('cognia');
    expect((await control.account('demo')).charged.humanizer).toBe(words);
  });

  it('rule 5: a request without the header works and returns a server-generated key', async () => {
    const first = await detect(undefined);
    expect(first.status).toBe(200);
    const generated = first.headers.get('x-idempotency-key');
    expect(generated).toMatch(/^[A-Za-z0-9_-]{8,128}$/);
    expect(first.headers.get('x-idempotency-key-source')).toBe('server-generated');
    // The generated key is a real record: an exact repeat with it is a replay.
    const repeat = await detect(generated!);
    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual(first.body);
    // A second legacy request is a new operation with a new key and a new charge.
    const second = await detect(undefined);
    expect(second.headers.get('x-idempotency-key')).not.toBe(generated);
    const account = await control.account('demo');
    expect(account.charged.detector).toBe(2 * words);
  });

  it('rule 1: the key must be 8 to 128 URL-safe characters', async () => {
    for (const bad of ['short', 'a'.repeat(129), 'has space!', 'dots.are.not.ok']) {
      const response = await detect(bad);
      expect(response.status, bad).toBe(400);
      expect(response.body.fields['Idempotency-Key']).toBeTruthy();
    }
    expect((await detect('a'.repeat(8))).status).toBe(200);
    expect((await detect('b'.repeat(128))).status).toBe(200);
    expect((await control.account('demo')).providerRuns.detector).toBe(2);
  });

  it('rule 2: after a connection dropped once the work was done, the exact repeat gets the result without a second charge', async () => {
    await control.addFaults([{ fault: { kind: 'drop-after' }, product: 'detector' }]);
    const key = freshKey();
    await expect(detect(key)).rejects.toThrow();
    const account = await control.account('demo');
    expect(account.charged.detector).toBe(words);
    const repeat = await detect(key);
    expect(repeat.status).toBe(200);
    DetectResponseV3.parse(repeat.body);
    expect(await control.account('demo')).toMatchObject({ charged: { detector: words }, providerRuns: { detector: 1 } });
  });

  it('rule 2: after a connection dropped before processing, the exact repeat runs once', async () => {
    await control.addFaults([{ fault: { kind: 'drop-before' }, product: 'detector' }]);
    const key = freshKey();
    await expect(detect(key)).rejects.toThrow();
    expect((await control.account('demo')).charged.detector).toBe(0);
    expect((await detect(key)).status).toBe(200);
    expect(await control.account('demo')).toMatchObject({ charged: { detector: words }, providerRuns: { detector: 1 } });
  });

  it('keys belong to the account: a rotated key of the same account replays, another account does not see it', async () => {
    const key = freshKey();
    const first = await detect(key);
    const rotated = await callUpstream(double.url, 'detector', {
      apiKey: 'demo-key-secondary',
      idempotencyKey: key,
      body: { text: MIXED_TEXT, version: 'v3' },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual(first.body);
    const other = await callUpstream(double.url, 'detector', {
      apiKey: 'demo-key-detector-only',
      idempotencyKey: key,
      body: { text: MIXED_TEXT, version: 'v3' },
    });
    expect(other.status).toBe(200);
    expect((await control.account('demo')).charged.detector).toBe(words);
    expect((await control.account('detector-only')).charged.detector).toBe(words);
  });

  it('activating a replacement (3.1): the new value works at once with the account\'s records and balances, the retired value gets 401', async () => {
    const key = freshKey();
    const first = await detect(key);
    await control.changeKeys('demo', { add: ['demo-key-replacement'], remove: [apiKey] });
    expect((await detect(freshKey())).status).toBe(401);
    const replayed = await callUpstream(double.url, 'detector', { apiKey: 'demo-key-replacement', idempotencyKey: key, body: { text: MIXED_TEXT, version: 'v3' } });
    expect(replayed.status).toBe(200);
    expect(replayed.body).toEqual(first.body);
    expect(await control.account('demo')).toMatchObject({ charged: { detector: words }, providerRuns: { detector: 1 } });
    // A value of another account cannot be given to this one.
    await expect(control.changeKeys('demo', { add: ['demo-key-detector-only'] })).rejects.toThrow(/409/);
  });
});
