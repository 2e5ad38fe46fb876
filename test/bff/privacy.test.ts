import { afterAll, beforeAll, expect, it } from 'vitest';
import { MIXED_TEXT } from '../upstream/fixtures.ts';
import { UPSTREAM_KEY, newOperationId, startHarness, type BffResponse, type Harness } from './harness.ts';

// After an error storm, no secret and no user text appear in logs, responses or metrics.

let h: Harness;
const SECRET_TEXT = 'The launch code is Zebra Umbrella Quartz, do not share it.';

beforeAll(async () => {
  h = await startHarness({ env: { BFF_MAX_ATTEMPTS: '3', BFF_LOG_LEVEL: 'trace' } });
});
afterAll(() => h.close());

it('keeps the upstream key, member tokens and text out of logs, error bodies and metrics', async () => {
  await h.control.addFaults([
    { fault: { kind: 'drop-before' }, times: 2 },
    { fault: { kind: 'status', status: 503 }, times: 4 },
    { fault: { kind: 'status', status: 502 }, times: 2 },
    { fault: { kind: 'status', status: 429, retryAfterSeconds: 0 }, times: 2 },
    { fault: { kind: 'drop-after' } },
  ]);
  const responses: BffResponse[] = [];
  for (let i = 0; i < 6; i++) responses.push(await h.call('/v1/detect', { operationId: newOperationId(), text: `${SECRET_TEXT} ${MIXED_TEXT}` }));
  responses.push(await h.call('/v1/humanize', { operationId: newOperationId(), text: SECRET_TEXT, model: 'nope' }));
  responses.push(await h.call('/v1/detect', undefined, { rawBody: `{"text": "${SECRET_TEXT}` }));
  responses.push(await h.call('/v1/usage', undefined, { token: `${h.token}x` }));
  responses.push(await h.call('/metrics', undefined, { token: null }));

  const errors = responses.filter((response) => response.status >= 400);
  expect(errors.filter((response) => response.status >= 500).length).toBeGreaterThanOrEqual(2);
  expect(h.logs.lines.length).toBeGreaterThan(10);
  const metrics = responses.at(-1)!.raw;
  expect(metrics).toContain('bff_upstream_retries_total');
  // Successful answers carry the user's own text back to them; nothing else may.
  const everything = [h.logs.text, metrics, ...errors.map((response) => response.raw)].join('\n');
  for (const secret of [UPSTREAM_KEY, h.token, 'Zebra Umbrella', 'important to note']) {
    expect(everything).not.toContain(secret);
  }
});
