import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { countWords } from '@redline/shared';
import { loadConfig } from '@redline/bff/config';
import { createMember } from '@redline/bff/members';
import { startBff, type RunningBff } from '@redline/bff/server';
import { PostgresLedger } from '@redline/bff/storage/postgres';
import { startUpstreamDouble } from '../upstream/server.ts';
import { upstreamControl } from '../upstream/client.ts';
import { FAST_RETRIES, LogCapture, POSTGRES_URL, dropSchema, newOperationId, request, startHarness } from './harness.ts';

// Budgets under concurrency: ten 90-word detects at once, each with its own operation id,
// against a detector budget of 100. The reservation is part of the insert, so exactly one
// passes, whichever instance it lands on.

const TEXT_90_WORDS = `${Array.from({ length: 89 }, (_, i) => `word${i}`).join(' ')} end.`;

async function tenAtOnce(urls: string[], token: string) {
  return Promise.all(
    Array.from({ length: 10 }, (_, i) => request(urls[i % urls.length]!, '/v1/detect', { operationId: newOperationId(), text: TEXT_90_WORDS }, token)),
  );
}

function expectOneThrough(answers: Awaited<ReturnType<typeof tenAtOnce>>) {
  expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
  const refused = answers.filter((answer) => answer.status !== 200);
  expect(refused).toHaveLength(9);
  for (const answer of refused) {
    expect(answer.status).toBe(403);
    expect(answer.body.error).toMatchObject({ code: 'member_budget_exceeded', requiredWords: 90 });
  }
}

it('the text is 90 words', () => {
  expect(countWords(TEXT_90_WORDS)).toBe(90);
});

describe('SQLite, one instance', () => {
  it('ten concurrent 90-word detects against a budget of 100: one succeeds, usage stays within the budget', async () => {
    const h = await startHarness({ env: { BFF_MEMBER_RATE_LIMIT: '1000' } });
    try {
      const token = await h.addMember('budget-ten', { detector: 100 });
      // Every upstream call waits, so all ten are in flight together.
      await h.control.addFaults([{ fault: { kind: 'delay', delayMs: 400 }, times: 10 }]);
      const answers = await tenAtOnce([h.bff.url], token);
      expectOneThrough(answers);
      const usage = await h.call('/v1/usage', undefined, { token });
      expect(usage.body.products.detector).toEqual({ wordsCharged: 90, budget: 100, remaining: 10 });
      expect((await h.control.account('demo')).charged.detector).toBe(90);

      // A failure the upstream settled releases its reservation: the words are free again.
      // (The upstream account runs out of words: 402 quota_exceeded is final for that key.)
      await h.control.setBalances('demo', { detector: 3 });
      const operationId = newOperationId();
      const small = await h.call('/v1/detect', { operationId, text: 'Five words in this text.' }, { token });
      expect(small.body.error.code).toBe('quota_exceeded');
      const after = await h.call('/v1/usage', undefined, { token });
      expect(after.body.products.detector.remaining).toBe(10);
      // Repeating the failed operation reserves its words again, and finishes once words are back.
      await h.control.setBalances('demo', { detector: 1000 });
      const repeated = await h.call('/v1/detect', { operationId, text: 'Five words in this text.' }, { token });
      expect(repeated.status).toBe(200);
      const final = await h.call('/v1/usage', undefined, { token });
      expect(final.body.products.detector).toEqual({ wordsCharged: 95, budget: 100, remaining: 5 });
    } finally {
      await h.close();
    }
  });
});

describe('PostgreSQL, two instances', () => {
  const schema = `budgets_${process.pid}`;
  const folder = mkdtempSync(path.join(tmpdir(), 'redline-budgets-'));
  const instances: RunningBff[] = [];
  afterAll(async () => {
    for (const instance of instances) await instance.stop();
    rmSync(folder, { recursive: true, force: true });
    await dropSchema(schema);
  });

  it('ten concurrent 90-word detects spread over both instances against a budget of 100: one succeeds', async () => {
    const double = await startUpstreamDouble({ testMode: true });
    try {
      const env = { ...FAST_RETRIES, BFF_PORT: '0', BFF_DATA_DIR: folder, BFF_MEMBER_RATE_LIMIT: '1000', UPSTREAM_BASE_URL: double.url, UPSTREAM_API_KEY: 'demo-key-primary' };
      for (let i = 0; i < 2; i++) {
        instances.push(await startBff(loadConfig(env), { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: new LogCapture() }));
      }
      const { token } = await createMember(instances[0]!.ledger, 'budget-ten-pg', { detector: 100 });
      const control = upstreamControl(double.url);
      await control.addFaults([{ fault: { kind: 'delay', delayMs: 400 }, times: 10 }]);
      const answers = await tenAtOnce(instances.map((instance) => instance.url), token);
      expectOneThrough(answers);
      for (const instance of instances) {
        const usage = await request(instance.url, '/v1/usage', undefined, token);
        expect(usage.body.products.detector).toEqual({ wordsCharged: 90, budget: 100, remaining: 10 });
      }
      expect((await control.account('demo')).charged.detector).toBe(90);
    } finally {
      await double.close();
    }
  });
});
