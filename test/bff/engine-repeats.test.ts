import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { BffErrorBody, countWords } from '@redline/shared';
import { HttpError } from '@redline/bff/errors';
import { createLogger } from '@redline/bff/logging';
import { createMetrics } from '@redline/bff/metrics';
import { OperationEngine } from '@redline/bff/operations/engine';
import type { Ledger, MemberRecord } from '@redline/bff/storage/ledger';
import { SqliteLedger } from '@redline/bff/storage/sqlite';
import type { Forwarder } from '@redline/bff/upstream/forwarder';

// Repeats of a failed operation, on a real SQLite ledger with an in-process forwarder.

const member: MemberRecord = { id: 'm1', name: 'm1', tokenPrefix: 'rl_x', budgets: {}, role: 'member', rateLimit: null, createdAt: new Date().toISOString(), revokedAt: null };
const cleanup: (() => void)[] = [];
afterEach(() => cleanup.splice(0).forEach((step) => step()));

const THREE_PARTS = [0, 1, 2].map((seed) => `lorem${seed} ipsum. `.repeat(10_000).trim()).join('\n\n');

function wrap(ledger: Ledger, overrides: Partial<Ledger>): Ledger {
  return new Proxy(ledger, {
    get(target, prop) {
      if (prop in overrides) return overrides[prop as keyof Ledger];
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

// A document stored by a version that cut it elsewhere (the cut follows sentence ends, and
// splitSentences changes: initials, 2026-11-27) cannot be resumed. A repeat is refused, and the
// document is settled with that refusal: left pending, it held its reserved words against the
// member's budget for good, and every resume sweep ran it again.
it('a repeat of a document that splits differently now is settled failed, its reservation released', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'redline-resplit-'));
  const ledger = new SqliteLedger(path.join(dir, 'l.sqlite'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  await ledger.addMember({ id: member.id, name: member.name, tokenHash: 'h', tokenPrefix: 'rl_x', budgets: {} });
  let calls = 0;
  const forwarder: Forwarder = {
    source: 'upstream',
    forward: async (request) => {
      if (++calls === 2) return { ok: false, settled: true, error: HttpError.of(402, 'quota_exceeded', 'Not enough words.') };
      const words = countWords(JSON.parse(request.body).text);
      return { ok: true, body: { success: true, data: { details: { chunks: [], ai_percentage: 0 }, version: 'v3', words_processed: words } } };
    },
    close: async () => {},
  };
  // After the first run, the refused part reads as an older version cut it.
  let upgraded = false;
  const cutElsewhere = wrap(ledger, {
    partsOf: async (memberId: string, parentId: string) =>
      (await ledger.partsOf(memberId, parentId)).map((part) => (upgraded && part.partIndex === 1 ? { ...part, fingerprint: 'cut-by-an-older-version' } : part)),
  });
  const engine = new OperationEngine({ ledger: cutElsewhere, forwarder, metrics: createMetrics(), logger: createLogger('silent'), partConcurrency: 1, resultRetentionHours: 24 });
  const input = { product: 'detector' as const, operationId: 'op-resplit', text: THREE_PARTS, version: 'v3' as const };
  expect((await engine.run(member, input).catch((error) => error)).status).toBe(402);
  upgraded = true;

  const repeated = await engine.run(member, input).catch((error) => error);
  expect(repeated.status).toBe(500);
  expect(repeated.body.message).toContain('split differently');
  expect((await ledger.findOperation(member.id, input.operationId))?.state).toBe('failed');
  expect((await ledger.budgetUsage(member.id)).detector).toBe((await ledger.wordsCharged(member.id)).detector);
  expect(await ledger.pendingOperations()).toEqual([]);
  await ledger.close();
});

// requiredWords is non-negative in the contract (BffErrorBody): it said -46 here.
it('a repeat refused for the budget never says it needs fewer than no words (the upstream counted more words than the text has, the budget lowered since)', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'redline-budget-'));
  const ledger = new SqliteLedger(path.join(dir, 'l.sqlite'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  await ledger.addMember({ id: member.id, name: member.name, tokenHash: 'h', tokenPrefix: 'rl_x', budgets: { detector: 1_000 } });
  let calls = 0;
  const forwarder: Forwarder = {
    source: 'upstream',
    // First an answer that cannot be read but was charged 50 words, then ordinary answers.
    forward: async (request) =>
      ++calls === 1
        ? { ok: true, body: { success: true, data: { words_processed: 50 } } }
        : { ok: true, body: { success: true, data: { details: { chunks: [], ai_percentage: 0 }, version: 'v3', words_processed: countWords(JSON.parse(request.body).text) } } },
    close: async () => {},
  };
  const engine = new OperationEngine({ ledger, forwarder, metrics: createMetrics(), logger: createLogger('silent'), partConcurrency: 1, resultRetentionHours: 24 });
  const unreadable = { product: 'detector' as const, operationId: 'op-unreadable', text: 'Four words of text.', version: 'v3' as const };
  expect((await engine.run(member, unreadable).catch((error) => error)).status).toBe(502);
  await engine.run(member, { product: 'detector', operationId: 'op-other', text: 'lorem '.repeat(40).trim(), version: 'v3' });
  await (await ledger.consoleStore()).changeBudgets(member.id, { detector: 30 });

  const refused = await engine.run(member, unreadable).catch((error) => error);
  expect(refused.status).toBe(403);
  expect(refused.body).toMatchObject({ code: 'member_budget_exceeded', remainingWords: 0, requiredWords: 0 });
  expect(refused.body.message).not.toMatch(/-\d/);
  expect(BffErrorBody.safeParse({ error: refused.body }).success, JSON.stringify(refused.body)).toBe(true);
  await ledger.close();
});
