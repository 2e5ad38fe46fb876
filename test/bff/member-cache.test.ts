import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '@redline/bff/config';
import { createMember, revokeMember } from '@redline/bff/members';
import { startBff, type RunningBff } from '@redline/bff/server';
import type { Ledger } from '@redline/bff/storage/ledger';
import { PostgresLedger } from '@redline/bff/storage/postgres';
import { LogCapture, POSTGRES_URL, dropSchema, request } from './harness.ts';

// Two instances on one PostgreSQL ledger cache members briefly; a revocation reaches both at once.

const schema = `member_cache_${process.pid}`;
const folder = mkdtempSync(path.join(tmpdir(), 'redline-members-'));
const instances: RunningBff[] = [];
const lookups = [0, 0];
let ledger: PostgresLedger;

/** The real ledger, counting its member lookups. */
function counting(real: Ledger, index: number): Ledger {
  return new Proxy(real, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property === 'memberByTokenHash') return (hash: string) => (lookups[index]!++, (value as Ledger['memberByTokenHash']).call(target, hash));
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

beforeAll(async () => {
  ledger = await PostgresLedger.open(POSTGRES_URL, schema);
  for (let i = 0; i < 2; i++) {
    const config = loadConfig({ BFF_PORT: '0', BFF_DATA_DIR: folder, BFF_DATABASE_URL: POSTGRES_URL });
    instances.push(await startBff(config, { ledger: counting(await PostgresLedger.open(POSTGRES_URL, schema), i), logDestination: new LogCapture() }));
  }
});

afterAll(async () => {
  for (const instance of instances) await instance.stop();
  await ledger.close();
  rmSync(folder, { recursive: true, force: true });
  await dropSchema(schema);
});

const usage = (index: number, token: string) => request(instances[index]!.url, '/v1/usage', undefined, token);

it('looks a member up once per instance, and a revocation stops the token on every instance at once', async () => {
  const { token } = await createMember(ledger, 'cached-member');
  lookups.fill(0);
  for (let i = 0; i < 3; i++) for (const index of [0, 1]) expect((await usage(index, token)).status).toBe(200);
  expect(lookups).toEqual([1, 1]);

  expect(await revokeMember(ledger, (await ledger.listMembers()).find((member) => member.name === 'cached-member')!.id)).toBe(true);
  // The announcement travels over the database connection: allow it the moment it takes.
  await new Promise((resolve) => setTimeout(resolve, 50));
  for (const index of [0, 1]) {
    const refused = await usage(index, token);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('unauthorized');
  }
});

it('caches nothing while its revocation channel is down, so a revocation cannot be missed', async () => {
  const { token } = await createMember(ledger, 'channel-member');
  expect((await usage(0, token)).status).toBe(200);
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  try {
    const { rowCount } = await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN redline_members' AND pid <> pg_backend_pid()`);
    expect(rowCount).toBeGreaterThanOrEqual(2);
  } finally {
    await admin.end();
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  // Revoked without an announcement (as if by hand in SQL) while nobody listens: still refused.
  expect(await ledger.revokeMember((await ledger.listMembers()).find((member) => member.name === 'channel-member')!.id)).toBe(true);
  expect((await usage(0, token)).status).toBe(401);
  expect((await usage(1, token)).status).toBe(401);
});
