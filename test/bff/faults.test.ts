import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BffDetectResponse, BffHumanizeResponse, BffPlagiarismResponse, REPLAY_WINDOW_MS, countWords } from '@redline/shared';
import { COPIED_SENTENCE, MIXED_TEXT } from '../upstream/fixtures.ts';
import { newOperationId, startHarness, type Harness } from './harness.ts';

// Exactly-once forwarding over real HTTP against the double: every injected fault ends
// with exactly one charge and the right result.

let h: Harness;
const words = countWords(MIXED_TEXT);
const detect = (operationId: string, text = MIXED_TEXT) => h.call('/v1/detect', { operationId, text });

async function expectOneCharge(product: 'detector' | 'humanizer' | 'plagiarism' = 'detector', expectedWords = words) {
  const account = await h.control.account('demo');
  expect(account.charged[product]).toBe(expectedWords);
  expect(account.providerRuns[product]).toBe(1);
}

/** Every request the double received for this run carried one key and the same bytes. */
async function expectSameKeyAndBytes(minimumRequests: number) {
  const received = await h.control.received();
  expect(received.length).toBeGreaterThanOrEqual(minimumRequests);
  expect(new Set(received.map((entry: { idempotencyKey: string }) => entry.idempotencyKey)).size).toBe(1);
  expect(new Set(received.map((entry: { bodySha256: string }) => entry.bodySha256)).size).toBe(1);
  expect(received[0].idempotencyKey).toMatch(/^[A-Za-z0-9_-]{32}$/);
  return received;
}

beforeAll(async () => {
  h = await startHarness({ env: { BFF_MEMBER_RATE_LIMIT: '1000' }, upstream: { inProgressRetryAfterSeconds: 1 } });
});
afterAll(() => h.close());
beforeEach(() => h.control.reset());

describe('forwarding', () => {
  it('forwards each product once and answers with the result and the BFF facts', async () => {
    const detection = await detect(newOperationId());
    expect(detection.status).toBe(200);
    const parsed = BffDetectResponse.parse(detection.body);
    expect(parsed).toMatchObject({ source: 'upstream', replayed: false, wordsCharged: words, parts: 1, product: 'detector' });
    expect(parsed.result.data.details.chunks?.map((chunk) => chunk.type)).toEqual(['AI', 'Human', 'AI']);

    const rewrite = await h.call('/v1/humanize', { operationId: newOperationId(), text: MIXED_TEXT, model: 'huma_v2' });
    expect(BffHumanizeResponse.parse(rewrite.body).result.model_used).toBe('huma_v2');
    const sources = await h.call('/v1/plagiarism', { operationId: newOperationId(), text: COPIED_SENTENCE });
    expect(BffPlagiarismResponse.parse(sources.body).result.result.results[0]?.is_plagiarised).toBe(true);
    expect((await h.control.received()).length).toBe(3);
  });

  it('answers a repeat of a finished operation id from the ledger without calling the upstream', async () => {
    const operationId = newOperationId();
    const first = await detect(operationId);
    const repeat = await detect(operationId);
    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual({ ...first.body, replayed: true });
    expect((await h.control.received()).length).toBe(1);
  });

  it('shares one upstream call between concurrent repeats of an operation id', async () => {
    await h.control.addFaults([{ fault: { kind: 'delay', delayMs: 400 } }]);
    const operationId = newOperationId();
    const answers = await Promise.all(Array.from({ length: 6 }, () => detect(operationId)));
    for (const answer of answers) expect(answer.status).toBe(200);
    expect(new Set(answers.map((answer) => JSON.stringify(answer.body.result))).size).toBe(1);
    expect(answers.filter((answer) => !answer.body.replayed)).toHaveLength(1);
    expect((await h.control.received()).length).toBe(1);
    await expectOneCharge();
  });

  it('refuses an operation id reused with different input', async () => {
    const operationId = newOperationId();
    await detect(operationId);
    const reused = await detect(operationId, `${MIXED_TEXT} Another sentence.`);
    expect(reused.status).toBe(409);
    expect(reused.body.error.code).toBe('operation_id_reused');
    const otherProduct = await h.call('/v1/plagiarism', { operationId, text: MIXED_TEXT });
    expect(otherProduct.body.error.code).toBe('operation_id_reused');
  });
});

describe('faults end with exactly one charge and the right result', () => {
  it('connection dropped before processing', async () => {
    await h.control.addFaults([{ fault: { kind: 'drop-before' }, times: 2 }]);
    const response = await detect(newOperationId());
    expect(response.status).toBe(200);
    expect(response.body.result.data.words_processed).toBe(words);
    await expectSameKeyAndBytes(3);
    await expectOneCharge();
  });

  it('connection dropped after the work was done and charged', async () => {
    await h.control.addFaults([{ fault: { kind: 'drop-after' } }]);
    const response = await detect(newOperationId());
    expect(response.status).toBe(200);
    expect(response.body.wordsCharged).toBe(words);
    await expectSameKeyAndBytes(2);
    await expectOneCharge();
  });

  it('a 503 storm, before and after the work', async () => {
    await h.control.addFaults([
      { fault: { kind: 'status', status: 503 }, times: 3 },
      { fault: { kind: 'status', status: 503, phase: 'after' } },
      { fault: { kind: 'status', status: 503 }, times: 2 },
    ]);
    const response = await detect(newOperationId());
    expect(response.status).toBe(200);
    const received = await expectSameKeyAndBytes(7);
    expect(received.map((entry: { status: number }) => entry.status)).toEqual([503, 503, 503, 503, 503, 503, 200]);
    await expectOneCharge();
  });

  it('409 in progress: the BFF waits the full Retry-After, then gets the stored result', async () => {
    const slow = await startHarness({ env: { BFF_ATTEMPT_TIMEOUT_MS: '300' }, upstream: { inProgressRetryAfterSeconds: 1 } });
    try {
      await slow.control.addFaults([{ fault: { kind: 'delay', delayMs: 900 } }]);
      const started = Date.now();
      const response = await slow.call('/v1/detect', { operationId: newOperationId(), text: MIXED_TEXT });
      expect(response.status).toBe(200);
      const received = await slow.control.received();
      const statuses = received.map((entry: { status: number | string }) => entry.status);
      expect(statuses).toContain(409);
      expect(statuses.at(-1)).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
      expect(new Set(received.map((entry: { idempotencyKey: string }) => entry.idempotencyKey)).size).toBe(1);
      const account = await slow.control.account('demo');
      expect(account.charged.detector).toBe(words);
      expect(account.providerRuns.detector).toBe(1);
    } finally {
      await slow.close();
    }
  });

  it('429 with Retry-After: waits the full interval before retrying', async () => {
    await h.control.addFaults([{ fault: { kind: 'status', status: 429, retryAfterSeconds: 1 } }]);
    const started = Date.now();
    const response = await detect(newOperationId());
    expect(response.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    await expectSameKeyAndBytes(2);
    await expectOneCharge();
  });

  it('502: one retry, then "provider aborted, nothing charged"; a later repeat charges once', async () => {
    await h.control.addFaults([{ fault: { kind: 'status', status: 502 }, times: 2 }]);
    const operationId = newOperationId();
    const aborted = await detect(operationId);
    expect(aborted.status).toBe(502);
    expect(aborted.body.error).toMatchObject({ code: 'provider_aborted' });
    expect(aborted.body.error.message).toMatch(/Nothing was charged/);
    expect((await h.control.received()).length).toBe(2);
    expect((await h.control.account('demo')).charged.detector).toBe(0);
    const later = await detect(operationId);
    expect(later.status).toBe(200);
    await expectSameKeyAndBytes(3);
    await expectOneCharge();
  });

  it('result older than the replay window: 410 result_expired, not retried, never charged twice', async () => {
    const once = await startHarness({ env: { BFF_MAX_ATTEMPTS: '1' } });
    try {
      await once.control.addFaults([{ fault: { kind: 'drop-after' } }]);
      const operationId = newOperationId();
      const lost = await once.call('/v1/detect', { operationId, text: MIXED_TEXT });
      expect(lost.status).toBe(504);
      expect(lost.body.error.code).toBe('upstream_unreachable');
      await once.control.advanceClock(REPLAY_WINDOW_MS);
      const expired = await once.call('/v1/detect', { operationId, text: MIXED_TEXT });
      expect(expired.status).toBe(410);
      expect(expired.body.error.code).toBe('result_expired');
      const again = await once.call('/v1/detect', { operationId, text: MIXED_TEXT });
      expect(again.status).toBe(410);
      expect((await once.control.received()).length).toBe(2);
      expect((await once.control.account('demo')).charged.detector).toBe(words);
    } finally {
      await once.close();
    }
  });
});

describe('never retried', () => {
  it('400 not enough words: quota_exceeded with the remaining figures, one request', async () => {
    const poor = await startHarness({ apiKey: 'demo-key-low-balance' });
    try {
      const text = 'word '.repeat(60).trim();
      const response = await poor.call('/v1/detect', { operationId: newOperationId(), text });
      expect(response.status).toBe(402);
      expect(response.body.error).toMatchObject({ code: 'quota_exceeded', remainingWords: 50, requiredWords: 60, product: 'detector' });
      expect(response.body.error.message).toMatch(/60 and 50 remain/);
      expect((await poor.control.received()).length).toBe(1);
    } finally {
      await poor.close();
    }
  });

  it('403 no subscription, and 401 for a wrong upstream key', async () => {
    const detectorOnly = await startHarness({ apiKey: 'demo-key-detector-only' });
    const wrongKey = await startHarness({ apiKey: 'revoked-upstream-key' });
    try {
      const refused = await detectorOnly.call('/v1/humanize', { operationId: newOperationId(), text: MIXED_TEXT, model: 'lexi' });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'no_subscription', product: 'humanizer' });
      expect((await detectorOnly.control.received()).length).toBe(1);

      const rejected = await wrongKey.call('/v1/detect', { operationId: newOperationId(), text: MIXED_TEXT });
      expect(rejected.status).toBe(502);
      expect(rejected.body.error.code).toBe('upstream_key_rejected');
      expect(rejected.raw).not.toContain('revoked-upstream-key');
      expect((await wrongKey.control.received()).length).toBe(1);
    } finally {
      await detectorOnly.close();
      await wrongKey.close();
    }
  });
});
