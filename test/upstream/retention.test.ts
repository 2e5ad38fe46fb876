import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLAY_WINDOW_MS, countWords } from '@redline/shared';
import { Ledger, fingerprintOf } from './ledger.ts';
import { startUpstreamDouble, type RunningUpstreamDouble } from './server.ts';
import { callUpstream, upstreamControl } from './client.ts';
import { MIXED_TEXT } from './fixtures.ts';

// Responses are held for the 24-hour replay window of the double's own clock, then only the
// permanent record stays (upstream-api.md 2.8, 3.2, 4.2 rule 7).

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
const heapAfterGc = () => {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
};

/** A response of the size a 74-word detection answer has, built anew for each operation. */
const responseFor = (i: number) => ({
  success: true,
  data: {
    details: {
      chunks: Array.from({ length: 5 }, (_, n) => ({ text: `sentence ${n} of operation ${i} `.repeat(4), startChar: n * 100, endChar: n * 100 + 99, type: 'AI', score: 0.7 })),
      ai_percentage: 40,
    },
    version: 'v3',
    words_processed: 74,
  },
});

describe('the double over a million operations', () => {
  it('holds only the responses of the last 24 hours and a small permanent record per operation', () => {
    const ledger = new Ledger([{ id: 'bench', keys: ['k'], balances: { detector: 1e12 } }]);
    const account = ledger.account('bench')!;
    const operations = 1_000_000;
    const perWindow = 10_000; // the clock moves so that 10,000 operations fit in 24 hours
    const before = heapAfterGc();
    let peakHeld = 0;
    for (let i = 0; i < operations; i++) {
      const key = `bench-operation-${i}`;
      const record = ledger.begin(account, { key, fingerprint: fingerprintOf('detector', 'v3', key), serverGenerated: false, product: 'detector', words: 74 });
      ledger.complete(account, record, responseFor(i));
      ledger.advanceClock(REPLAY_WINDOW_MS / perWindow);
      if (i % 1000 === 0) peakHeld = Math.max(peakHeld, ledger.heldResponses());
    }
    const grownBytes = heapAfterGc() - before;

    expect(peakHeld).toBeLessThanOrEqual(perWindow);
    expect(ledger.heldResponses()).toBeLessThanOrEqual(perWindow);
    expect(account.records.size + account.expired.size).toBe(operations);
    expect(account.charged.detector).toBe(74 * operations);
    // Holding every response would be over 1 KB per operation; what stays is the 24-hour window
    // (~10 MB here) and the permanent record (key, fingerprint digest, map entry).
    console.log(`heap grown by ${(grownBytes / 2 ** 20).toFixed(0)} MiB over ${operations} operations (${(grownBytes / operations).toFixed(0)} B each)`);
    expect(grownBytes / operations).toBeLessThan(300);

    // The oldest operation is a permanent record: its key still refuses other work and replays nothing.
    expect(ledger.record(account, 'bench-operation-0')).toEqual({ key: 'bench-operation-0', fingerprint: fingerprintOf('detector', 'v3', 'bench-operation-0'), state: 'expired' });
    expect(ledger.record(account, `bench-operation-${operations - 1}`)?.state).toBe('completed');
  }, 120_000);
});

describe('expiry over HTTP, on the injected clock', () => {
  let double: RunningUpstreamDouble;
  let control: ReturnType<typeof upstreamControl>;
  const detect = (idempotencyKey: string, text = MIXED_TEXT) =>
    callUpstream(double.url, 'detector', { apiKey: 'demo-key-primary', idempotencyKey, body: { text, version: 'v3' } });
  const state = async () => (await fetch(`${double.url}/__control/state`)).json();

  beforeAll(async () => {
    double = await startUpstreamDouble({ testMode: true });
    control = upstreamControl(double.url);
  });
  afterAll(() => double.close());

  it('drops responses nobody asked for again once 24 hours pass, keeping the record: 410, no second charge', async () => {
    for (const key of ['retention-key-1', 'retention-key-2', 'retention-key-3']) expect((await detect(key)).status).toBe(200);
    expect((await state()).heldResponses).toBe(3);
    await control.advanceClock(REPLAY_WINDOW_MS - 60_000);
    expect((await state()).heldResponses).toBe(3);
    expect((await detect('retention-key-1')).status).toBe(200); // still within the window: replayed
    await control.advanceClock(60_000);
    const after = await state();
    expect(after.heldResponses).toBe(0);
    expect(after.accounts.find((account: { id: string }) => account.id === 'demo').records).toBe(3);

    const repeat = await detect('retention-key-2');
    expect(repeat.status).toBe(410);
    expect((await detect('retention-key-2', `${MIXED_TEXT} Changed.`)).status).toBe(409);
    const account = await control.account('demo');
    expect(account.charged.detector).toBe(3 * countWords(MIXED_TEXT));
    expect(account.providerRuns.detector).toBe(3);
  });
});
