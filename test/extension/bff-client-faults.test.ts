import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@redline/bff/config';
import { createMember } from '@redline/bff/members';
import { startBff } from '@redline/bff/server';
import { runCheck, getUsage, type BffConnection } from '../../extension/lib/bff-client.ts';
import type { CheckRequest } from '../../extension/lib/messages.ts';
import { LogCapture, startHarness, type Harness } from '../bff/harness.ts';
import { startFaultRelay, type FaultRelay } from '../fault-relay.ts';
import { productTally } from '../upstream/client.ts';

// The extension's calls to the BFF when the answer is lost on the way (the connection dropped,
// the body cut off, a gateway answering for a restarting server): repeated with the same
// operation id, so the writer gets the result and the team is charged once. Real BFF, real
// upstream double, a TCP relay between them and the extension's own client.

const TEXT = 'Moreover, it is important to note that the landscape is ever-evolving. I wrote this on a Tuesday, mostly.';

let harness: Harness;
let relay: FaultRelay;
let connection: BffConnection;
let checks = 0;

const detectorCharged = async () => (await productTally(harness.double!.url, 'detector')).charged;
const detectsReceived = async () => (await productTally(harness.double!.url, 'detector')).received;
const check = (): CheckRequest => ({ type: 'check', product: 'detector', operationId: `fault-check-${process.pid}-${checks++}`, text: TEXT, words: 18, version: 'v3' });
/** The words the answer says were charged (the detector's own count), checked against the double's account. */
function wordsOf(result: Awaited<ReturnType<typeof runCheck>>): number {
  const { wordsCharged } = (result as { value: { wordsCharged: number } }).value;
  expect(wordsCharged).toBeGreaterThan(10);
  return wordsCharged;
}
const detectsSeen = () => relay.seen.filter((request) => request.path === '/v1/detect').map((request) => request.fault);

beforeAll(async () => {
  harness = await startHarness();
  relay = await startFaultRelay(harness.bff.url);
  connection = { url: relay.url, token: harness.token };
});
afterAll(async () => {
  await relay.close();
  await harness.close();
});
afterEach(() => relay.reset());

describe('a check whose answer is lost on the way', () => {
  for (const fault of ['refuse', 'drop-answer', 'cut-body', 'gateway-502'] as const) {
    it(`${fault}: sent again with the same operation id, answered, and charged once`, async () => {
      const [chargedBefore, receivedBefore] = [await detectorCharged(), await detectsReceived()];
      relay.fail('/v1/detect', fault);

      const result = await runCheck(connection, check());

      expect(result.ok, JSON.stringify(result)).toBe(true);
      expect(detectsSeen()).toEqual([fault, 'pass']);
      expect((await detectorCharged()) - chargedBefore).toBe(wordsOf(result));
      // The upstream ran it once: refused before the BFF, nothing reached it; otherwise the repeat was the BFF's replay.
      expect((await detectsReceived()) - receivedBefore).toBe(1);
    });
  }

  it('two answers lost in a row: the third attempt answers, after the waits between them', async () => {
    const chargedBefore = await detectorCharged();
    relay.fail('/v1/detect', 'drop-answer', 'gateway-502');
    const started = performance.now();
    const result = await runCheck(connection, check());
    expect(result.ok).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(2_400);
    expect(detectsSeen()).toEqual(['drop-answer', 'gateway-502', 'pass']);
    expect((await detectorCharged()) - chargedBefore).toBe(wordsOf(result));
  });

  it('lost three times: the writer is told the server cannot be reached, and nothing was charged', async () => {
    const chargedBefore = await detectorCharged();
    relay.fail('/v1/detect', 'refuse', 'refuse', 'refuse');
    const result = await runCheck(connection, check());
    expect(result).toMatchObject({ ok: false, error: { code: 'bff_unreachable', message: expect.stringMatching(/^Can't reach your team's Redline server at http:\/\/127\.0\.0\.1:\d+\./) } });
    expect(detectsSeen()).toEqual(['refuse', 'refuse', 'refuse']);
    expect(await detectorCharged()).toBe(chargedBefore);
  });

  it("the server's own explained error is shown as it is, not sent again", async () => {
    relay.fail('/v1/detect', 'json-503');
    const result = await runCheck(connection, check());
    expect(result).toMatchObject({ ok: false, error: { code: 'upstream_unreachable', status: 503, message: 'The analysis service could not be reached. Try again in a minute.' } });
    expect(detectsSeen()).toEqual(['json-503']);
  });
});

it('the usage the popup shows survives a dropped answer too', async () => {
  relay.fail('/v1/usage', 'drop-answer');
  const result = await getUsage(connection);
  expect(result.ok, JSON.stringify(result)).toBe(true);
  expect(relay.seen.filter((request) => request.path.startsWith('/v1/usage')).map((request) => request.fault)).toEqual(['drop-answer', 'pass']);
});

it('the BFF restarting during a check: its "restarting" answer is waited out, the next instance answers, and the words are charged once', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'redline-restart-'));
  const env = { ...harness.env, BFF_DATA_DIR: dataDir, BFF_SHUTDOWN_GRACE_MS: '200' };
  let bff = await startBff(loadConfig(env), { logDestination: new LogCapture() });
  const restarting = await startFaultRelay(bff.url);
  try {
    const { token } = await createMember(bff.ledger, 'writer', {});
    const chargedBefore = await detectorCharged();
    await harness.control.addFaults([{ fault: { kind: 'delay', delayMs: 1_500 }, product: 'detector', times: 1 }]);

    const checking = runCheck({ url: restarting.url, token }, check());
    await sleep(400); // at the upstream, which takes 1.5 s
    await bff.stop(); // past its 200 ms grace: answered 503 shutting_down, the operation left pending
    bff = await startBff(loadConfig(env), { logDestination: new LogCapture() });
    restarting.retarget(bff.url);
    const result = await checking;

    expect(result.ok, JSON.stringify(result)).toBe(true);
    expect(restarting.seen.map((request) => request.path)).toEqual(['/v1/detect', '/v1/detect']);
    expect((await detectorCharged()) - chargedBefore).toBe(wordsOf(result));
  } finally {
    await restarting.close();
    await bff.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
