import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstreamDouble, type RunningUpstreamDouble } from '../upstream/server.ts';
import { upstreamControl } from '../upstream/client.ts';
import { startFaultRelay, type FaultRelay } from '../fault-relay.ts';
import { newOperationId, startHarness, type Harness } from './harness.ts';

// The BFF's calls to the upstream losing their answers on the way back (a network or a gateway
// between them, not the upstream's own faults, which the double makes itself): the BFF sends the
// same bytes with the same Idempotency-Key, the upstream replays, and the words are charged once.

const TEXT = 'Moreover, it is important to note that the landscape is ever-evolving. I wrote this on a Tuesday, mostly.';

let double: RunningUpstreamDouble;
let relay: FaultRelay;
let h: Harness;

beforeAll(async () => {
  double = await startUpstreamDouble({ testMode: true });
  relay = await startFaultRelay(double.url);
  h = await startHarness({ env: { UPSTREAM_BASE_URL: relay.url } });
});
afterAll(async () => {
  await h.close();
  await relay.close();
  await double.close();
});

const control = () => upstreamControl(double.url);

describe('an upstream answer lost between the BFF and the upstream', () => {
  for (const fault of ['refuse', 'drop-answer', 'cut-body', 'gateway-502'] as const) {
    it(`${fault}: the BFF asks again with the same key; one charge, the result answered`, async () => {
      relay.reset();
      relay.fail('/api/detect', fault);
      const before = (await control().account('demo')).charged.detector;

      const answer = await h.call('/v1/detect', { operationId: newOperationId(), text: TEXT, version: 'v3' });

      expect(answer.status, answer.raw).toBe(200);
      expect(answer.body.replayed).toBe(false);
      const seen = relay.seen.filter((request) => request.path.startsWith('/api/detect'));
      expect(seen.map((request) => request.fault)).toEqual([fault, 'pass']);
      expect((await control().account('demo')).charged.detector - before).toBe(answer.body.wordsCharged);
      // The same key both times.
      const received = (await control().received()) as { idempotencyKey: string }[];
      const reached = fault === 'drop-answer' || fault === 'cut-body' ? 2 : 1;
      const keys = received.slice(-reached).map((entry) => entry.idempotencyKey);
      expect(keys[0]).toMatch(/^[\w-]{16,}$/);
      expect(new Set(keys).size).toBe(1);
    });
  }
});
