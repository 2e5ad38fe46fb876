import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@redline/bff/config';
import { usageReport } from '@redline/bff/console/usage';
import { createMember } from '@redline/bff/members';
import { startBff } from '@redline/bff/server';
import { startUpstreamDouble } from '../upstream/server.ts';
import { upstreamControl } from '../upstream/client.ts';
import { FAST_RETRIES, LogCapture, ledgerPerTest, newOperationId, request } from './harness.ts';

// An operation whose attempt may have run upstream (charged, its answer lost) and that the
// upstream then refuses before its idempotency record (401 for a wrong or retired key) is held
// pending: never settled failed, since its charge would never be counted. Before, such an
// operation was resumed at every sweep (5 minutes) forever, refused each time, and nothing told
// the team; and an operation whose only earlier attempts were answered 429 (which runs nothing)
// was held the same way, its words reserved against its member's budget for good.

const TEXT = 'One two three four five six seven.';

describe.each(['sqlite', 'postgres'] as const)('operations held pending after a refusal of the key (%s ledger)', (ledgerKind) => {
  let double: Awaited<ReturnType<typeof startUpstreamDouble>>;
  const place = ledgerPerTest('held', ledgerKind);
  beforeAll(async () => {
    double = await startUpstreamDouble({ testMode: true });
  });
  afterAll(async () => {
    await double.close();
  });

  let clock = Date.parse('2026-11-28T03:00:00Z');
  const start = async (apiKey: string, env: Record<string, string> = {}) =>
    startBff(
      loadConfig({ ...FAST_RETRIES, BFF_MAX_ATTEMPTS: '3', BFF_REQUEST_DEADLINE_MS: '2000', BFF_PORT: '0', BFF_DATA_DIR: place.dataDir(), UPSTREAM_BASE_URL: double.url, UPSTREAM_API_KEY: apiKey, ...env }),
      { logDestination: new LogCapture(), ledger: await place.ledger(), now: () => clock },
    );
  const until = async (condition: () => Promise<boolean>) => {
    for (let wait = 0; wait < 50 && !(await condition()); wait++) await new Promise((resolve) => setTimeout(resolve, 100));
    return condition();
  };
  const sentWith = async (idempotencyKey: string) =>
    ((await upstreamControl(double.url).received()) as { idempotencyKey?: string }[]).filter((each) => each.idempotencyKey === idempotencyKey).length;

  it('an operation whose earlier attempts were all answered 429 ran nothing: a refusal of the key settles it and frees its words', async () => {
    const control = upstreamControl(double.url);
    const first = await start('demo-key-primary');
    const token = (await createMember(first.ledger, 'rate-limited', { detector: 100 })).token;
    const operationId = newOperationId();
    await control.addFaults([{ fault: { kind: 'status', status: 429, retryAfterSeconds: 1 }, product: 'detector', times: 20 }]);
    const busy = await request(first.url, '/v1/detect', { operationId, text: TEXT }, token);
    expect([busy.status, busy.body.error.code]).toEqual([503, 'busy']);
    const memberId = (await first.ledger.listMembers()).find((member) => member.name === 'rate-limited')!.id;
    expect((await first.ledger.findOperation(memberId, operationId))!.state).toBe('pending');
    await first.stop();
    await control.clearFaults();

    // The dashboard retired the value: the upstream answers 401 before it looks at the key's record.
    await control.changeKeys('demo', { add: ['demo-key-replacement'], remove: ['demo-key-primary'] });
    const refused = await start('demo-key-primary');
    try {
      const answer = await request(refused.url, '/v1/detect', { operationId, text: TEXT }, token);
      expect([answer.status, answer.body.error.code]).toEqual([502, 'upstream_key_rejected']);
      expect(answer.raw).not.toContain('demo-key-primary');
      const stored = (await refused.ledger.findOperation(memberId, operationId))!;
      // Before: pending for good (held as if charged), resumed every sweep, its 7 words reserved.
      expect([stored.state, stored.held]).toEqual(['failed', null]);
      expect((await refused.ledger.budgetUsage(memberId)).detector).toBe(0);
      const usage = await request(refused.url, '/v1/usage', undefined, token, { method: 'GET' });
      expect([usage.body.products.detector.remaining, usage.body.heldOperations]).toEqual([100, undefined]);
    } finally {
      await refused.stop();
      await control.changeKeys('demo', { add: ['demo-key-primary'], remove: ['demo-key-replacement'] });
    }

    const before = await control.account('demo');
    const fixed = await start('demo-key-primary');
    try {
      const repeat = await request(fixed.url, '/v1/detect', { operationId, text: TEXT }, token);
      expect([repeat.status, repeat.body.replayed, repeat.body.wordsCharged]).toEqual([200, false, 7]);
      const after = await control.account('demo');
      expect([after.charged.detector - before.charged.detector, after.providerRuns.detector - before.providerRuns.detector]).toEqual([7, 1]);
    } finally {
      await fixed.stop();
    }
  });

  it('one that may have been charged is held: shown in /v1/usage, the console report and a metric, resumed with a doubling back-off, and counted once the key is right', async () => {
    const control = upstreamControl(double.url);
    const first = await start('demo-key-primary');
    const token = (await createMember(first.ledger, 'held', { detector: 100 })).token;
    const memberId = (await first.ledger.listMembers()).find((member) => member.name === 'held')!.id;
    const operationId = newOperationId();
    const before = await control.account('demo');
    // Run and charged, the answer dropped; every later attempt dropped before the work.
    await control.addFaults([{ fault: { kind: 'drop-after' }, product: 'detector' }, { fault: { kind: 'drop-before' }, product: 'detector', times: 20 }]);
    expect((await request(first.url, '/v1/detect', { operationId, text: TEXT }, token)).status).toBe(504);
    await first.stop();
    await control.clearFaults();
    expect((await control.account('demo')).charged.detector - before.charged.detector).toBe(7);

    // The dashboard retired the value the BFF holds (a replacement activated, not yet set here): 401.
    await control.changeKeys('demo', { add: ['demo-key-replacement'], remove: ['demo-key-primary'] });
    const wrong = await start('demo-key-primary', { BFF_RESUME_INTERVAL_SECONDS: '60' });
    try {
      const { idempotencyKey } = (await wrong.ledger.findOperation(memberId, operationId))!;
      // The resume at start meets the 401 and holds it.
      expect(await until(async () => (await wrong.ledger.findOperation(memberId, operationId))!.held !== null)).toBe(true);
      const held = (await wrong.ledger.findOperation(memberId, operationId))!;
      expect([held.state, held.held!.error.error.code, held.held!.resumes, Date.parse(held.held!.resumeAfter) - clock]).toEqual(['pending', 'upstream_key_rejected', 1, 60_000]);

      const usage = await request(wrong.url, '/v1/usage', undefined, token, { method: 'GET' });
      expect(usage.body.heldOperations).toHaveLength(1);
      expect(usage.body.heldOperations[0]).toMatchObject({ operationId, product: 'detector', code: 'upstream_key_rejected', heldResumes: 1 });
      expect(usage.body.heldOperations[0].message).toMatch(/may have been charged/);
      expect(usage.raw).not.toContain('demo-key-primary');
      expect(usage.raw).not.toContain(TEXT);
      const report = await usageReport(wrong.ledger, await wrong.ledger.consoleStore(), {}, clock);
      expect(report.heldOperations).toMatchObject([{ operationId, memberName: 'held', code: 'upstream_key_rejected', heldResumes: 1 }]);
      const metrics = await (await fetch(`${wrong.url}/metrics`)).text();
      expect(metrics).toMatch(/bff_operations_held_pending\{product="detector",code="upstream_key_rejected"\} 1/);

      // Sweeps within the back-off send nothing (before: every second sweep sent it again).
      const sent = await sentWith(idempotencyKey);
      await wrong.engine.resumeLeftPending();
      await wrong.engine.resumeLeftPending();
      await wrong.engine.resumeLeftPending();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await sentWith(idempotencyKey)).toBe(sent);
      // Past it, one resume; refused again, the next wait is twice as long.
      clock += 61_000;
      expect(await wrong.engine.resumeLeftPending()).toBe(1);
      expect(await until(async () => (await wrong.ledger.findOperation(memberId, operationId))!.held?.resumes === 2)).toBe(true);
      const again = (await wrong.ledger.findOperation(memberId, operationId))!;
      expect([again.state, Date.parse(again.held!.resumeAfter) - clock]).toEqual(['pending', 120_000]);
      expect(await sentWith(idempotencyKey)).toBeGreaterThan(sent);
      // Never settled failed: its words stay reserved until the charge is counted.
      expect((await wrong.ledger.budgetUsage(memberId)).detector).toBe(7);
    } finally {
      await wrong.stop();
      await control.changeKeys('demo', { add: ['demo-key-primary'], remove: ['demo-key-replacement'] });
    }

    // The right key: the resume at start fetches the stored answer, counts its words once, clears the hold.
    const fixed = await start('demo-key-primary');
    try {
      expect(await until(async () => (await fixed.ledger.findOperation(memberId, operationId))!.state === 'completed')).toBe(true);
      const after = await control.account('demo');
      expect([after.charged.detector - before.charged.detector, after.providerRuns.detector - before.providerRuns.detector]).toEqual([7, 1]);
      const usage = await request(fixed.url, '/v1/usage', undefined, token, { method: 'GET' });
      expect([usage.body.products.detector.wordsCharged, usage.body.heldOperations]).toEqual([7, undefined]);
      expect(await fixed.ledger.heldOperations()).toEqual([]);
      const metrics = await (await fetch(`${fixed.url}/metrics`)).text();
      expect(metrics).not.toMatch(/bff_operations_held_pending\{/);
    } finally {
      await fixed.stop();
    }
  });
});
