import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countWords } from '@redline/shared';
import { splitDocument } from '@redline/bff/operations/documents';
import { connectMcp, newToolKey, toolJson, toolSummary } from './mcp-client.ts';
import { startHarness, type Harness } from './harness.ts';

// An outside probe (the sixth): real HTTP, the upstream double, real PostgreSQL and SQLite files.

/** Two parts: the first as long as the upstream allows, the second short. */
const TWO_PARTS = 'The committee reviewed the annual figures and agreed on a plan. '.repeat(2600) + 'The end.';
const PART_WORDS = splitDocument(TWO_PARTS).parts.map((part) => countWords(part.text));

describe('an MCP repeat of a large document that failed after one part was charged', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { BFF_PART_CONCURRENCY: '1', BFF_RESUME_INTERVAL_SECONDS: '3600' } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("says what this call charged, not the whole document's words as if charged now", async () => {
    expect(PART_WORDS).toHaveLength(2);
    const mcp = await connectMcp(h.bff.url, h.token);
    const key = newToolKey();
    // The account pays for the first part only: the second is refused for quota.
    await h.control.setBalances('demo', { detector: PART_WORDS[0]! + 5 });
    const failed = await mcp.callTool({ name: 'detect_ai_text', arguments: { text: TWO_PARTS, idempotency_key: key } });
    expect(failed.isError).toBe(true);
    expect(toolJson(failed).error.code).toBe('quota_exceeded');
    expect((await h.control.account('demo')).charged.detector).toBe(PART_WORDS[0]);

    // After a top-up the assistant repeats the call: only the second part is run and charged.
    await h.control.setBalances('demo', { detector: 1_000_000 });
    const repeated = await mcp.callTool({ name: 'detect_ai_text', arguments: { text: TWO_PARTS, idempotency_key: key } });
    expect(repeated.isError, toolSummary(repeated)).toBeFalsy();
    const total = PART_WORDS[0]! + PART_WORDS[1]!;
    expect((await h.control.account('demo')).charged.detector).toBe(total);
    expect(toolJson(repeated).wordsCharged).toBe(total);
    const summary = toolSummary(repeated);
    // The summary must not read as "the whole document charged now" (an assistant adding the first call's charge counts it twice).
    expect(summary).not.toMatch(new RegExp(`${total.toLocaleString('en-US')} words charged\\.`));
    const words = (count: number) => `${count.toLocaleString('en-US')} word${count === 1 ? '' : 's'}`;
    expect(summary).toContain(
      `${words(PART_WORDS[1]!)} charged now; earlier calls with this idempotency_key were charged ${words(PART_WORDS[0]!)} for it, so ${words(total)} for the whole operation, none twice.`,
    );
    // A repeat of the completed call says it was charged once, the whole of it.
    const again = await mcp.callTool({ name: 'detect_ai_text', arguments: { text: TWO_PARTS, idempotency_key: key } });
    expect(toolSummary(again)).toContain(`${words(total)} charged for it once; nothing charged again.`);
    await mcp.close();
  }, 60_000);
});
