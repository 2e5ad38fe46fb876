import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { countWords } from '@redline/shared';
import { loadConfig } from '@redline/bff/config';
import { createMember } from '@redline/bff/members';
import { splitDocument } from '@redline/bff/operations/documents';
import { startBff, type RunningBff } from '@redline/bff/server';
import { PostgresLedger } from '@redline/bff/storage/postgres';
import { startUpstreamDouble, type RunningUpstreamDouble } from '../upstream/server.ts';
import { upstreamControl } from '../upstream/client.ts';
import { FAST_RETRIES, LogCapture, POSTGRES_URL, dropSchema, newOperationId, request, startHarness, type Harness } from './harness.ts';

// Large documents under faults, over real HTTP against the double (an outside probe): whatever
// happens to one part, every word the upstream charged for the document's parts ends up in the
// member's usage, without the client having to come back.

/** Exactly `characters` characters of words (no White_Space at either end). */
function words(characters: number, seed = 0): string {
  let text = '';
  for (let i = seed; text.length < characters; i++) text += `lorem${i % 97} ipsum${i % 13}. `;
  return text.slice(0, characters).replace(/\s$/u, 'x');
}

/** Three parts, each ending at its paragraph break. */
const THREE_PARTS = [0, 1, 2].map((seed) => words(150_000, seed)).join('\n\n');
const PART_WORDS = splitDocument(THREE_PARTS).parts.map((part) => countWords(part.text));

// Generous: these tests wait out a 4 s upstream delay and the BFF's sweeps, slower on a loaded machine.
async function eventually(check: () => Promise<void>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

for (const ledger of ['sqlite', 'postgres'] as const) {
  describe(`${ledger} ledger`, { timeout: 45_000 }, () => {
    let h: Harness;

    beforeAll(async () => {
      h = await startHarness({
        ledger,
        env: {
          BFF_PART_CONCURRENCY: '3',
          BFF_MEMBER_RATE_LIMIT: '1000',
          BFF_REQUEST_DEADLINE_MS: '2500',
          BFF_ATTEMPT_TIMEOUT_MS: '1000',
          BFF_RESUME_INTERVAL_SECONDS: '0.5',
        },
      });
    });
    afterAll(() => h?.close());
    beforeEach(() => h.control.reset());

    describe('a part refused for good while another part is still open', () => {
      it('leaves the document pending until the open part is settled, so its charge is counted without a repeat', async () => {
        const token = await h.addMember(`m-${newOperationId()}`);
        // The account can pay for parts 1 and 2 only; part 2 is held upstream past the BFF's
        // deadline (and charged when it finishes), part 3 is refused for quota meanwhile.
        await h.control.setBalances('demo', { detector: PART_WORDS[0]! + PART_WORDS[1]! + 5 });
        await h.control.addFaults([
          { fault: { kind: 'delay', delayMs: 1 }, product: 'detector' },
          { fault: { kind: 'delay', delayMs: 4_000 }, product: 'detector' },
        ]);
        const refused = await h.call('/v1/detect', { operationId: newOperationId(), text: THREE_PARTS }, { token });
        expect(refused.status).toBe(402);
        // Which part is refused depends on the order the three concurrent parts reach the double.
        expect(refused.body.error.message).toMatch(/^Part [123] of 3 of this document/);

        const charged = PART_WORDS[0]! + PART_WORDS[1]!;
        await eventually(async () => expect((await h.control.account('demo')).charged.detector).toBe(charged));
        // No client comes back: the BFF settles the open part itself and counts what it was charged.
        await eventually(async () => {
          expect((await h.call('/v1/usage', undefined, { token })).body.products.detector.wordsCharged).toBe(charged);
          expect(await h.bff.ledger.pendingOperations()).toEqual([]);
        });
        expect((await h.control.account('demo')).providerRuns.detector).toBe(2);
      });

      it('does not run the refused part again behind the writer, even once the plan is topped up: the document settles failed with the open part counted', async () => {
        const name = `m-${newOperationId()}`;
        const token = await h.addMember(name);
        await h.control.setBalances('demo', { detector: PART_WORDS[0]! + PART_WORDS[1]! + 5 });
        await h.control.addFaults([
          { fault: { kind: 'delay', delayMs: 1 }, product: 'detector' },
          { fault: { kind: 'delay', delayMs: 4_000 }, product: 'detector' },
        ]);
        const operationId = newOperationId();
        const refused = await h.call('/v1/detect', { operationId, text: THREE_PARTS }, { token });
        expect(refused.status).toBe(402);
        // The administrator tops the plan up at once; the writer, told 402, does not come back.
        await h.control.setBalances('demo', { detector: 1_000_000 });

        const charged = PART_WORDS[0]! + PART_WORDS[1]!;
        await eventually(async () => {
          expect(await h.bff.ledger.pendingOperations()).toEqual([]);
          expect((await h.call('/v1/usage', undefined, { token })).body.products.detector.wordsCharged).toBe(charged);
        });
        const member = (await h.bff.ledger.listMembers()).find((candidate) => candidate.name === name)!;
        expect(await h.bff.ledger.findOperation(member.id, operationId)).toMatchObject({ state: 'failed', wordsCharged: charged });
        expect((await h.control.account('demo')).charged.detector).toBe(charged);
        expect((await h.control.account('demo')).providerRuns.detector).toBe(2);
      });
    });

    describe('what a failed document tells the writer', () => {
      it('a part past the upstream replay window: does not promise that repeating the id reuses the parts, since a repeat is refused the same way', async () => {
        const token = await h.addMember(`m-${newOperationId()}`);
        // Part 2 runs and is charged upstream, but its answer never reaches the BFF before the deadline.
        await h.control.addFaults([
          { fault: { kind: 'delay', delayMs: 1 }, product: 'detector' },
          { fault: { kind: 'drop-after' }, product: 'detector' },
          { fault: { kind: 'drop-before' }, product: 'detector', times: 100 },
        ]);
        const operationId = newOperationId();
        expect((await h.call('/v1/detect', { operationId, text: THREE_PARTS }, { token })).status).toBe(504);
        // The clock first: with the faults cleared first, the BFF's sweep of pending operations could fetch the lost
        // part's answer inside the window in between (seen once on a loaded machine), and the document would complete.
        await h.control.advanceClock(25 * 60 * 60 * 1000);
        await h.control.clearFaults();

        const expired = await h.call('/v1/detect', { operationId, text: THREE_PARTS }, { token });
        expect(expired.status).toBe(410);
        expect(expired.body.error.code).toBe('result_expired');
        // Parts 1 and 2, and part 3 if it ran alongside part 2 on the repeat.
        const charged = (await h.control.account('demo')).charged.detector;
        expect(charged).toBeGreaterThanOrEqual(PART_WORDS[0]! + PART_WORDS[1]!);
        expect(expired.body.error.message).toContain(`${charged.toLocaleString('en-US')} words charged for this document's parts stay counted`);
        expect(expired.body.error.message).not.toMatch(/repeating this operation id .* reuses those parts/);
        const repeated = await h.call('/v1/detect', { operationId, text: THREE_PARTS }, { token });
        expect(repeated.body.error).toEqual(expired.body.error);
        expect((await h.call('/v1/usage', undefined, { token })).body.products.detector.wordsCharged).toBe(charged);
      });

      it('a repeat refused for the member budget asks only for the words its unfinished parts need', async () => {
        const total = countWords(THREE_PARTS);
        const token = await h.addMember(`m-${newOperationId()}`, { detector: total });
        await h.control.setBalances('demo', { detector: PART_WORDS[0]! + PART_WORDS[1]! + 5 });
        const operationId = newOperationId();
        expect((await h.call('/v1/detect', { operationId, text: THREE_PARTS }, { token })).status).toBe(402);
        await h.control.setBalances('demo', { detector: 1_000_000 });
        // Six words spent elsewhere: the repeat, which still needs part 3's words, no longer fits.
        expect((await h.call('/v1/detect', { operationId: newOperationId(), text: 'six words in this small text' }, { token })).status).toBe(200);

        const refused = await h.call('/v1/detect', { operationId, text: THREE_PARTS }, { token });
        expect(refused.status).toBe(403);
        const remaining = total - (PART_WORDS[0]! + PART_WORDS[1]! + 6);
        expect(refused.body.error).toMatchObject({ code: 'member_budget_exceeded', remainingWords: remaining, requiredWords: PART_WORDS[2] });
        expect(refused.body.error.message).toContain(`has ${remaining.toLocaleString('en-US')} words left`);
        expect(refused.body.error.message).toContain(`needs ${PART_WORDS[2]!.toLocaleString('en-US')} more`);
      });
    });
  });
}

// A client's repeat landing on another instance while the first still runs the document (two
// instances on one PostgreSQL ledger): the instance that meets a refusal settled the document
// failed as if every part it had not sent were never sent, while the other instance held one of
// them open upstream. That part, charged when the upstream finished it, stayed pending under a
// failed document, which is never resumed: its words never reached usage or the budget. Found by
// an outside probe (bffprobe).
describe('two instances running one operation at once (a client repeat that landed on the other)', { timeout: 45_000 }, () => {
  const schema = `document_faults_${process.pid}`;
  let double: RunningUpstreamDouble;
  const instances: RunningBff[] = [];
  beforeAll(async () => {
    double = await startUpstreamDouble({ testMode: true });
    const env = {
      ...FAST_RETRIES,
      BFF_PORT: '0',
      BFF_DATA_DIR: '/nonexistent-unused',
      UPSTREAM_BASE_URL: double.url,
      UPSTREAM_API_KEY: 'demo-key-primary',
      BFF_MEMBER_RATE_LIMIT: '1000',
      BFF_REQUEST_DEADLINE_MS: '2500',
      BFF_ATTEMPT_TIMEOUT_MS: '1000',
      BFF_RESUME_INTERVAL_SECONDS: '0.5',
    };
    // The first sends the parts together, the second one after the other.
    for (const concurrency of ['3', '1']) {
      instances.push(await startBff(loadConfig({ ...env, BFF_PART_CONCURRENCY: concurrency }), { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: new LogCapture() }));
    }
  });
  afterAll(async () => {
    for (const instance of instances) await instance.stop();
    await double?.close();
    await dropSchema(schema);
  });

  // One instance's call met two provider aborts and settled the operation failed (nothing
  // charged by those attempts); the other's, with the same key, ran upstream past its deadline
  // and was charged. A failed operation is never resumed: those words were never counted. Found
  // by an outside probe (bffprobe) running documents on two instances under faults.
  it('a failure settled by one while the other has an attempt open: the open one is resumed and its charge counted', async () => {
    const control = upstreamControl(double.url);
    const token = (await createMember(instances[0]!.ledger, `m-${newOperationId()}`, { detector: 100 })).token;
    const text = 'Seven words charged once for this check.';
    // Three aborts, then a run held past the deadline: whichever instance meets two aborts
    // settles the operation, the other's second attempt runs and is charged 4 s later.
    await control.addFaults([
      { fault: { kind: 'status', status: 502 }, product: 'detector', times: 3 },
      { fault: { kind: 'delay', delayMs: 4_000 }, product: 'detector' },
    ]);
    const before = await control.account('demo');
    const operationId = newOperationId();
    const answers = await Promise.all(
      instances.map(async (instance, index) => {
        await new Promise((resolve) => setTimeout(resolve, index * 10));
        const answer = await request(instance.url, '/v1/detect', { operationId, text }, token);
        return `${answer.status} ${answer.body.error?.code}`;
      }),
    );
    expect(answers).toContain('502 provider_aborted');

    await eventually(async () => expect((await control.account('demo')).charged.detector - before.charged.detector).toBe(7), 15_000);
    await eventually(async () => {
      const usage = (await request(instances[0]!.url, '/v1/usage', undefined, token)).body.products.detector;
      expect(usage).toMatchObject({ wordsCharged: 7, remaining: 93 });
      expect(await instances[0]!.ledger.pendingOperations()).toEqual([]);
    }, 15_000);
    const repeat = await request(instances[1]!.url, '/v1/detect', { operationId, text }, token);
    expect([repeat.status, repeat.body.replayed, repeat.body.wordsCharged]).toEqual([200, true, 7]);
    expect((await control.account('demo')).providerRuns.detector - before.providerRuns.detector).toBe(1);
  });

  it("does not settle the document while a part is open on the other instance: that part's charge is counted", async () => {
    const control = upstreamControl(double.url);
    // Two long parts the account cannot pay for, and a short one it can.
    const text = [words(150_000, 0), words(150_000, 1), words(20_000, 2)].join('\n\n');
    const partWords = splitDocument(text).parts.map((part) => countWords(part.text));
    expect(partWords).toHaveLength(3);
    await control.setBalances('demo', { detector: partWords[2]! + 5 });
    const budget = 100_000;
    const token = (await createMember(instances[0]!.ledger, `m-${newOperationId()}`, { detector: budget })).token;
    // The short part is held upstream past the first instance's deadline, and charged when it finishes.
    await control.addFaults([{ fault: { kind: 'delay', delayMs: 4_000 }, product: 'detector', times: 3 }]);
    const before = await control.account('demo');
    const operationId = newOperationId();
    const first = request(instances[0]!.url, '/v1/detect', { operationId, text }, token);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const repeat = await request(instances[1]!.url, '/v1/detect', { operationId, text }, token);
    expect([repeat.status, repeat.body.error.code]).toEqual([402, 'quota_exceeded']);
    expect((await first).status).toBe(402);

    await eventually(async () => expect((await control.account('demo')).charged.detector - before.charged.detector).toBe(partWords[2]), 15_000);
    await eventually(async () => {
      const usage = (await request(instances[1]!.url, '/v1/usage', undefined, token)).body.products.detector;
      expect(usage).toMatchObject({ wordsCharged: partWords[2], remaining: budget - partWords[2]! });
      expect(await instances[0]!.ledger.pendingOperations()).toEqual([]);
    }, 15_000);
    expect((await control.account('demo')).providerRuns.detector - before.providerRuns.detector).toBe(1);
  });
});
