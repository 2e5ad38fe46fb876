import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { countWords } from '@redline/shared';
import { splitDocument } from '@redline/bff/operations/documents';
import { newOperationId, startHarness, type Harness } from './harness.ts';

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

let h: Harness;

async function eventually(check: () => Promise<void>, timeoutMs = 10_000): Promise<void> {
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

beforeAll(async () => {
  h = await startHarness({
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
    expect(refused.body.error.message).toContain('Part 3 of 3');

    const charged = PART_WORDS[0]! + PART_WORDS[1]!;
    await eventually(async () => expect((await h.control.account('demo')).charged.detector).toBe(charged));
    // No client comes back: the BFF settles the open part itself and counts what it was charged.
    await eventually(async () => {
      expect((await h.call('/v1/usage', undefined, { token })).body.products.detector.wordsCharged).toBe(charged);
      expect(await h.bff.ledger.pendingOperations()).toEqual([]);
    });
    expect((await h.control.account('demo')).providerRuns.detector).toBe(2);
  });
});
