import { expect, it } from 'vitest';
import { MIXED_TEXT } from '../upstream/fixtures.ts';
import { newOperationId, startHarness } from './harness.ts';

/** A BFF with one check in flight: the upstream has it and answers after `delayMs`. */
async function callInFlight(delayMs: number) {
  const h = await startHarness({ upstream: {} });
  await h.control.addFaults([{ fault: { kind: 'delay', delayMs } }]);
  const operationId = newOperationId();
  const inFlight = h.call('/v1/detect', { operationId, text: MIXED_TEXT });
  for (let i = 0; i < 400 && (await h.control.received()).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
  return { h, operationId, inFlight };
}

it('graceful shutdown drains in-flight calls, refuses new ones, and leaves the ledger consistent', async () => {
  const { h, operationId, inFlight } = await callInFlight(600);

  const draining = h.bff.engine.drain(5_000);
  const refused = await h.call('/v1/detect', { operationId: newOperationId(), text: MIXED_TEXT });
  expect(refused.status).toBe(503);
  expect(refused.body.error.code).toBe('shutting_down');
  expect(refused.headers.get('retry-after')).toBe('5');
  expect((await h.call('/readyz', undefined, { token: null })).status).toBe(503);

  const answer = await inFlight;
  expect(answer.status).toBe(200);
  await draining;
  const member = (await h.bff.ledger.listMembers())[0]!;
  const record = await h.bff.ledger.findOperation(member.id, operationId);
  expect(record).toMatchObject({ state: 'completed', requestBody: null, wordsCharged: answer.body.wordsCharged });
  expect(await h.bff.ledger.pendingOperations()).toEqual([]);
  await h.close();
});

it('a call cut off by the grace period is answered shutting_down (not "could not be reached") and stays pending for the next start', async () => {
  const { h, operationId, inFlight } = await callInFlight(3_000);
  expect((await h.control.received()).length).toBe(1);

  await h.bff.engine.drain(200);
  const answer = await inFlight;
  expect(answer.status).toBe(503);
  expect(answer.body.error).toMatchObject({ code: 'shutting_down', message: expect.stringContaining('nothing will be charged twice') });
  expect(answer.headers.get('retry-after')).toBe('5');
  const member = (await h.bff.ledger.listMembers())[0]!;
  expect(await h.bff.ledger.findOperation(member.id, operationId)).toMatchObject({ state: 'pending' });
  await h.close();
});
