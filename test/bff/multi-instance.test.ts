import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { countWords } from '@redline/shared';
import { loadConfig } from '@redline/bff/config';
import { createMember } from '@redline/bff/members';
import { startBff, type RunningBff } from '@redline/bff/server';
import { PostgresLedger } from '@redline/bff/storage/postgres';
import { startUpstreamDouble, type RunningUpstreamDouble } from '../upstream/server.ts';
import { upstreamControl } from '../upstream/client.ts';
import { MIXED_TEXT } from '../upstream/fixtures.ts';
import { FAST_RETRIES, LogCapture, POSTGRES_URL, dropSchema, newOperationId, request } from './harness.ts';

// Two BFF instances on one PostgreSQL ledger, as a team would deploy behind a load balancer.

const schema = `multi_instance_${process.pid}`;
let double: RunningUpstreamDouble;
let instances: RunningBff[];
let token: string;
const folder = mkdtempSync(path.join(tmpdir(), 'redline-multi-'));

beforeAll(async () => {
  double = await startUpstreamDouble({ testMode: true, inProgressRetryAfterSeconds: 1 });
  const env = { ...FAST_RETRIES, BFF_PORT: '0', BFF_DATA_DIR: folder, UPSTREAM_BASE_URL: double.url, UPSTREAM_API_KEY: 'demo-key-primary' };
  instances = [];
  for (let i = 0; i < 2; i++) {
    instances.push(await startBff(loadConfig(env), { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: new LogCapture() }));
  }
  token = (await createMember(instances[0]!.ledger, 'shared-member')).token;
});

afterAll(async () => {
  for (const instance of instances ?? []) await instance.stop();
  await double?.close();
  rmSync(folder, { recursive: true, force: true });
  await dropSchema(schema);
});

it('a member created on one instance is known to the other; a repeat on either is a replay', async () => {
  const operationId = newOperationId();
  const first = await request(instances[0]!.url, '/v1/detect', { operationId, text: MIXED_TEXT }, token);
  expect(first.status).toBe(200);
  const repeat = await request(instances[1]!.url, '/v1/detect', { operationId, text: MIXED_TEXT }, token);
  expect(repeat.body).toEqual({ ...first.body, replayed: true });
});

/** MIXED_TEXT under one operation id on both instances at once: both answered, with one result; their `replayed` flags, sorted. */
async function detectOnBothAtOnce(operationId: string): Promise<boolean[]> {
  const answers = await Promise.all(instances.map((instance) => request(instance.url, '/v1/detect', { operationId, text: MIXED_TEXT }, token)));
  for (const answer of answers) expect(answer.status).toBe(200);
  expect(answers[0]!.body.result).toEqual(answers[1]!.body.result);
  return answers.map((answer) => answer.body.replayed as boolean).sort();
}

/** The words both instances' metrics count as charged, summed as a dashboard sums them. */
async function wordsChargedInMetrics(): Promise<number> {
  let sum = 0;
  for (const instance of instances) {
    const metrics = (await request(instance.url, '/metrics', undefined, null)).raw;
    for (const match of metrics.matchAll(/^bff_words_charged_total\{product="detector"[^}]*\} (\d+)$/gm)) sum += Number(match[1]);
  }
  return sum;
}

/** The upstream ran MIXED_TEXT once and charged its words once. */
async function expectChargedOnce(control: ReturnType<typeof upstreamControl>): Promise<void> {
  const account = await control.account('demo');
  expect(account.charged.detector).toBe(countWords(MIXED_TEXT));
  expect(account.providerRuns.detector).toBe(1);
}

it('the same operation sent to both instances at once is charged once', async () => {
  const control = upstreamControl(double.url);
  await control.reset();
  await control.addFaults([{ fault: { kind: 'delay', delayMs: 700 } }]);
  const operationId = newOperationId();
  const countedBefore = await wordsChargedInMetrics();
  // Only the answer whose instance recorded the charge says it was not a replay.
  expect(await detectOnBothAtOnce(operationId)).toEqual([false, true]);
  await expectChargedOnce(control);
  expect((await wordsChargedInMetrics()) - countedBefore).toBe(countWords(MIXED_TEXT));
  const usage = await request(instances[1]!.url, '/v1/usage', undefined, token);
  expect(usage.body.products.detector.wordsCharged).toBe(2 * countWords(MIXED_TEXT));
});

it('a failed operation repeated on both instances at once runs again once: the instance that did not reopen it follows the one that did', async () => {
  const control = upstreamControl(double.url);
  await control.reset();
  const operationId = newOperationId();
  await control.setBalances('demo', { detector: 1 });
  expect((await request(instances[0]!.url, '/v1/detect', { operationId, text: MIXED_TEXT }, token)).body.error.code).toBe('quota_exceeded');
  await control.setBalances('demo', { detector: 1_000_000 });
  const countedBefore = await wordsChargedInMetrics();
  expect(await detectOnBothAtOnce(operationId)).toEqual([false, true]);
  for (let round = 0; round < 2; round++) expect(await detectOnBothAtOnce(operationId)).toEqual([true, true]);
  await expectChargedOnce(control);
  expect((await wordsChargedInMetrics()) - countedBefore).toBe(countWords(MIXED_TEXT));
});
