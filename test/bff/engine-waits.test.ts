import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { detect } from '@redline/shared/analysis';
import { HttpError } from '@redline/bff/errors';
import { createLogger } from '@redline/bff/logging';
import { createMetrics } from '@redline/bff/metrics';
import { OperationEngine } from '@redline/bff/operations/engine';
import type { Ledger, MemberRecord, NewOperation } from '@redline/bff/storage/ledger';
import { SqliteLedger } from '@redline/bff/storage/sqlite';
import type { Forwarder } from '@redline/bff/upstream/forwarder';

// The engine on a real SQLite ledger with an in-process forwarder, for what depends on
// ordering: a request that waits for another request's call under its id, and a failure
// reopened by another instance between its read and its reopen.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const member: MemberRecord = { id: 'm1', name: 'm1', tokenPrefix: 'rl_x', budgets: {}, role: 'member', rateLimit: null, createdAt: new Date().toISOString(), revokedAt: null };
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0)) await step();
});

async function sqlite() {
  const dir = mkdtempSync(path.join(tmpdir(), 'redline-engine-'));
  const ledger = new SqliteLedger(path.join(dir, 'l.sqlite'));
  await ledger.addMember({ id: member.id, name: member.name, tokenHash: 'h', tokenPrefix: 'rl_x', budgets: {} });
  cleanup.push(async () => {
    await ledger.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { ledger, file: path.join(dir, 'l.sqlite') };
}

function wrap(ledger: Ledger, overrides: Partial<Ledger>): Ledger {
  return new Proxy(ledger, {
    get(target, prop) {
      if (prop in overrides) return overrides[prop as keyof Ledger];
      const v = Reflect.get(target, prop);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

const answerFor = (text: string) => {
  const { chunks, ai_percentage, words_processed } = detect(text, 'v3');
  return { success: true, data: { details: { chunks, ai_percentage }, version: 'v3', words_processed } };
};

/** A forwarder whose first call the upstream refuses for quota (settled); later ones answer the detector's result after `work`. */
function quotaRefusedFirst(work: () => Promise<void> = async () => {}): Forwarder {
  let calls = 0;
  return {
    source: 'upstream',
    forward: async (req) => {
      if (calls++ === 0) return { ok: false, settled: true, error: HttpError.of(402, 'quota_exceeded', 'Not enough words.') };
      await work();
      return { ok: true, body: answerFor(JSON.parse(req.body).text) };
    },
    close: async () => {},
  };
}

it('a request that waited on another request\'s call does not start a call of its own once a drain has begun: 503 shutting_down', async () => {
  const { ledger, file } = await sqlite();
  const slow = wrap(ledger, {
    openOperation: async (ops: NewOperation[]) => {
      if (ops[0]!.requestBody!.includes('MISTAKE')) {
        await sleep(100); // a slow lookup (widens the window; any lookup time opens it)
      }
      return ledger.openOperation(ops);
    },
  });
  const events: string[] = [];
  let inFlight = 0;
  const forwarder = quotaRefusedFirst(async () => {
    events.push('forward-start');
    inFlight++;
    await sleep(400);
    inFlight--;
    events.push('forward-end');
  });
  const engine = new OperationEngine({ ledger: slow, forwarder, metrics: createMetrics(), logger: createLogger('silent'), partConcurrency: 2, resultRetentionHours: 24 });
  const operationId = 'op-drain-1';
  // The id's work is stored and failed for a reason a repeat can change (quota): a repeat reopens it.
  const stored = await engine.run(member, { product: 'detector', operationId, text: 'Real text of the operation.', version: 'v3' }).catch((e) => e);
  expect(stored.status).toBe(402);
  events.length = 0;
  const m = engine.run(member, { product: 'detector', operationId, text: 'MISTAKE text here.', version: 'v3' }).catch((e) => e);
  await sleep(10);
  const w = engine.run(member, { product: 'detector', operationId, text: 'Real text of the operation.', version: 'v3' }).catch((e) => e);
  await sleep(10);
  const drained = engine.drain(5000).then(() => events.push('drained'));
  await drained;
  const inFlightAtDrain = inFlight;
  await sleep(50); // server.stop(): retention.stop(), monitor.stop(), closeAllConnections, forwarder.close() ...
  await ledger.close(); // ... then ledger.close()
  events.push('ledger-closed');
  const waited = await w;
  expect((await m).status).toBe(409);
  expect(waited.status).toBe(503);
  expect(waited.body.code).toBe('shutting_down');
  expect(inFlightAtDrain).toBe(0);
  // No upstream call started once draining began (before the fix: drained, forward-start, ledger-closed, forward-end).
  expect(events).toEqual(['drained', 'ledger-closed']);
  const reopened = new SqliteLedger(file);
  expect((await reopened.findOperation(member.id, operationId))?.state).toBe('failed');
  await reopened.close();
});

it('a failure reopened by another instance between its read and its reopen is decided again: reserved once, charged once', async () => {
  const { ledger, file } = await sqlite();
  const other = new SqliteLedger(file);
  cleanup.push(() => other.close());
  let reopenCalls = 0;
  const forwarder = quotaRefusedFirst();
  const wrapped = wrap(ledger, {
    reopenOperation: async (...args: Parameters<Ledger['reopenOperation']>) => {
      if (reopenCalls++ === 0) await other.reopenOperation(...args); // the other instance got there first
      return ledger.reopenOperation(...args);
    },
  });
  const engine = new OperationEngine({ ledger: wrapped, forwarder, metrics: createMetrics(), logger: createLogger('silent'), partConcurrency: 2, resultRetentionHours: 24 });
  const input = { product: 'detector' as const, operationId: 'op-changed-1', text: 'Some text of the operation here.', version: 'v3' as const };
  const first = await engine.run(member, input).catch((e) => e);
  expect(first.status).toBe(402);
  const second = await engine.run(member, input);
  expect(reopenCalls).toBe(1); // the second decision found it pending, with no reopen of its own
  expect((await ledger.budgetUsage(member.id)).detector).toBe(second.wordsCharged);
  expect((await ledger.wordsCharged(member.id)).detector).toBe(second.wordsCharged);
});
