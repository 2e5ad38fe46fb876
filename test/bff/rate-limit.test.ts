import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@redline/bff/config';
import { createMember } from '@redline/bff/members';
import { startBff, type RunningBff } from '@redline/bff/server';
import { PostgresLedger } from '@redline/bff/storage/postgres';
import { reachable } from '../system.ts';
import { LogCapture, POSTGRES_URL, dropSchema, request } from './harness.ts';

// Per-member rate limits: one counter for all instances when they share Redis, and a
// per-instance fallback (never an outage) when Redis does not answer.

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const redisUp = await reachable(REDIS_URL);
if (!redisUp) console.warn(`SKIPPED the shared rate-limit test: no Redis at ${REDIS_URL} (.ci/system-deps starts one; or set TEST_REDIS_URL).`);

const schema = `rate_limit_${process.pid}`;
const folder = mkdtempSync(path.join(tmpdir(), 'redline-rate-'));
const started: RunningBff[] = [];

async function startInstances(count: number, env: Record<string, string>): Promise<{ instances: RunningBff[]; logs: LogCapture[] }> {
  const instances: RunningBff[] = [];
  const logs: LogCapture[] = [];
  for (let i = 0; i < count; i++) {
    const capture = new LogCapture();
    const config = loadConfig({ BFF_PORT: '0', BFF_DATA_DIR: folder, BFF_LOG_LEVEL: 'info', ...env });
    const instance = await startBff(config, { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: capture });
    instances.push(instance);
    logs.push(capture);
    started.push(instance);
  }
  return { instances, logs };
}

const usage = (instance: RunningBff, token: string) => request(instance.url, '/v1/usage', undefined, token);

afterAll(async () => {
  for (const instance of started) await instance.stop();
  rmSync(folder, { recursive: true, force: true });
  await dropSchema(schema);
});

describe.skipIf(!redisUp)('with BFF_REDIS_URL', () => {
  let instances: RunningBff[];
  beforeAll(async () => {
    ({ instances } = await startInstances(2, { BFF_REDIS_URL: REDIS_URL, BFF_MEMBER_RATE_LIMIT: '4', BFF_MEMBER_RATE_WINDOW_SECONDS: '60' }));
  });

  it('two instances share one limit per member: the fifth request on either is refused', async () => {
    const { token } = await createMember(instances[0]!.ledger, 'shared-limit');
    const statuses = [];
    for (const instance of [instances[0]!, instances[1]!, instances[0]!, instances[1]!]) statuses.push((await usage(instance, token)).status);
    expect(statuses).toEqual([200, 200, 200, 200]);
    for (const instance of instances) {
      const refused = await usage(instance, token);
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('rate_limited');
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(refused.body.error.retryAfterSeconds).toBe(retryAfter);
    }
    // Another member has a limit of its own.
    const { token: other } = await createMember(instances[1]!.ledger, 'other-limit');
    expect((await usage(instances[0]!, other)).status).toBe(200);
  });

  it("two instances share one count of an address's refused console sign-ins", async () => {
    // The count is per address (127.0.0.1 here), so one left by an earlier run would be counted too.
    const redis = new Redis(REDIS_URL);
    const stale = await redis.keys('redline:console-sign-in-refusals-rate*');
    if (stale.length > 0) await redis.del(...stale);
    await redis.quit();
    const refuse = (instance: RunningBff) =>
      fetch(`${instance.url}/console/api/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: instance.url },
        body: JSON.stringify({ token: `rl_${'z'.repeat(43)}` }),
      }).then((answer) => answer.status);
    const statuses = [];
    for (let i = 0; i < 11; i++) statuses.push(await refuse(instances[i % 2]!));
    expect(statuses).toEqual([...Array(10).fill(401), 429]);
    expect(await refuse(instances[0]!)).toBe(429);
  });

  it('counts concurrent requests atomically across instances', async () => {
    const { token } = await createMember(instances[0]!.ledger, 'concurrent-limit');
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => usage(instances[i % 2]!, token)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(4);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(8);
  });
});

describe('when Redis does not answer', () => {
  it('does not refuse members for it: each instance counts on its own, says so in the log and a metric', async () => {
    const { instances, logs } = await startInstances(1, { BFF_REDIS_URL: 'redis://127.0.0.1:1', BFF_MEMBER_RATE_LIMIT: '2', BFF_MEMBER_RATE_WINDOW_SECONDS: '60' });
    const instance = instances[0]!;
    const { token } = await createMember(instance.ledger, 'no-redis');
    expect((await usage(instance, token)).status).toBe(200);
    expect((await usage(instance, token)).status).toBe(200);
    expect((await usage(instance, token)).status).toBe(429); // the local counter still limits
    expect(logs[0]!.text).toMatch(/rate-limit store \(Redis\) unavailable/);
    expect(logs[0]!.text).not.toContain(token);
    const metrics = await (await fetch(`${instance.url}/metrics`)).text();
    expect(Number(/^bff_rate_limit_store_errors_total (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(3);
  });
});
