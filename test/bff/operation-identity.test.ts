import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AI_SENTENCE, HUMAN_SENTENCE } from '../upstream/fixtures.ts';
import { newOperationId, startHarness, type Harness } from './harness.ts';

// An operation id names one piece of work. A repeat may join a call still in flight only when
// it asks for exactly the same work; anything else is refused before anything is shared.

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ env: { BFF_MEMBER_RATE_LIMIT: '1000' } });
});
afterAll(() => h.close());
beforeEach(() => h.control.reset());

describe('operation identity while a call is in flight', () => {
  it('refuses a different request under the same id at once with 409, and the first call still gets its own result', async () => {
    await h.control.addFaults([{ fault: { kind: 'delay', delayMs: 1500 }, product: 'detector' }]);
    const operationId = newOperationId();
    const first = h.call('/v1/detect', { operationId, text: `Alpha text. ${AI_SENTENCE}` });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = performance.now();
    const other = await h.call('/v1/humanize', { operationId, text: `Completely different. ${HUMAN_SENTENCE}`, model: 'lexi' });
    const elapsed = performance.now() - started;
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('operation_id_reused');
    expect(elapsed).toBeLessThan(1000); // answered at once, not after the first call finished
    const original = await first;
    expect(original.status).toBe(200);
    expect(original.body).toMatchObject({ product: 'detector', replayed: false });
    expect(original.body.result.data.details.chunks[0].text).toContain('Alpha text.');
  });

  it('refuses the same text for another product, version or model while in flight', async () => {
    await h.control.addFaults([{ fault: { kind: 'delay', delayMs: 1000 }, product: 'detector' }]);
    const operationId = newOperationId();
    const text = `Alpha text. ${AI_SENTENCE}`;
    const first = h.call('/v1/detect', { operationId, text, version: 'v3' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const [otherVersion, otherProduct] = await Promise.all([
      h.call('/v1/detect', { operationId, text, version: 'v2' }),
      h.call('/v1/plagiarism', { operationId, text }),
    ]);
    expect(otherVersion.status).toBe(409);
    expect(otherProduct.status).toBe(409);
    expect((await first).status).toBe(200);
  });

  it('lets an exact repeat join the call in flight: one upstream call, the same result', async () => {
    await h.control.addFaults([{ fault: { kind: 'delay', delayMs: 800 }, product: 'detector' }]);
    const operationId = newOperationId();
    const text = `Alpha text. ${AI_SENTENCE}`;
    const first = h.call('/v1/detect', { operationId, text });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const repeat = await h.call('/v1/detect', { operationId, text });
    const original = await first;
    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual({ ...original.body, replayed: true });
    expect((await h.control.received()).length).toBe(1);
  });
});

describe('operation identity when the stored work and other work arrive together', () => {
  it('answers exact repeats of the stored work from the ledger while requests with other work under the id are refused', async () => {
    // A mistaken request under the id is in flight (being looked up in the ledger) when exact
    // repeats arrive: the repeats must not be refused for the mistaken request's work.
    for (let round = 0; round < 5; round++) {
      const operationId = newOperationId();
      const text = `Alpha text ${round}. ${AI_SENTENCE}`;
      const first = await h.call('/v1/detect', { operationId, text });
      expect(first.status).toBe(200);
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => h.call('/v1/detect', { operationId, text: i % 2 === 0 ? `${text} Changed.` : text })),
      );
      answers.forEach((answer, i) => {
        if (i % 2 === 0) expect(answer.body.error?.code).toBe('operation_id_reused');
        else expect(answer.body).toEqual({ ...first.body, replayed: true });
      });
    }
    expect((await h.control.received()).length).toBe(5);
  });
});
