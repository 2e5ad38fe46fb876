import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '@redline/bff/config';
import { createMember } from '@redline/bff/members';
import { startBff, type RunningBff } from '@redline/bff/server';
import { PostgresLedger } from '@redline/bff/storage/postgres';
import { ConsoleClient } from './console-client.ts';
import { LogCapture, request } from './harness.ts';
import { startPrivatePostgres, type PrivatePostgres } from './private-postgres.ts';

// A member change made on one instance reaches the member cache of another even when the
// instance making it cannot open a new database connection at that moment: the notice goes
// out with the change's own statement (pg_notify, delivered on commit), not on a connection
// of its own afterwards. A PostgreSQL server of the test's own, where the first instance's
// role is then refused new connections (CONNECTION LIMIT 0) while its open ones keep working.

const schema = 'announcements';
const folder = mkdtempSync(path.join(tmpdir(), 'redline-announce-'));
const instances: RunningBff[] = [];
let server: PrivatePostgres;
let superuser: pg.Client;

const roleUrl = (url: string) => url.replace('postgres://postgres@', 'postgres://redline_bff@');

beforeAll(async () => {
  server = await startPrivatePostgres();
  superuser = new pg.Client({ connectionString: server.url });
  await superuser.connect();
  await superuser.query('CREATE ROLE redline_bff LOGIN');
  await superuser.query('GRANT CREATE ON DATABASE postgres TO redline_bff');
  // Instance 0 as that role (it creates the schema, so owns it), instance 1 as the superuser.
  for (const url of [roleUrl(server.url), server.url]) {
    const config = loadConfig({ BFF_PORT: '0', BFF_DATA_DIR: folder, BFF_DATABASE_URL: url, BFF_DATABASE_SCHEMA: schema });
    instances.push(await startBff(config, { ledger: await PostgresLedger.open(url, schema), logDestination: new LogCapture() }));
  }
}, 60_000);

afterAll(async () => {
  await superuser?.query('ALTER ROLE redline_bff CONNECTION LIMIT -1').catch(() => {});
  for (const instance of instances) await instance.stop();
  await superuser?.end();
  server?.destroy();
  rmSync(folder, { recursive: true, force: true });
});

const usage = (index: number, token: string) => request(instances[index]!.url, '/v1/usage', undefined, token);

/** The status instance `index` answers the token with, once it is `expected` or after 2 s (the cache keeps members 30 s). */
async function statusWithin(index: number, token: string, expected: number): Promise<number> {
  let status = 0;
  for (let i = 0; i < 40 && status !== expected; i++) {
    status = (await usage(index, token)).status;
    if (status !== expected) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return status;
}

it('a rotation, a budget change and a revocation reach the other instance while the first can open no new connection', async () => {
  const ledger = instances[0]!.ledger;
  const admin = await createMember(ledger, 'announcing-admin');
  await (await ledger.consoleStore()).setRole(admin.member.id, 'admin');
  const { member, token } = await createMember(ledger, 'announced-member');
  const console = await ConsoleClient.signIn(instances[0]!.url, admin.token);
  // The other instance now holds the member in its cache.
  expect((await usage(1, token)).status).toBe(200);

  await superuser.query('ALTER ROLE redline_bff CONNECTION LIMIT 0');
  await expect(new pg.Client({ connectionString: roleUrl(server.url) }).connect()).rejects.toThrow(/too many connections/);

  const rotated = await console.post(`/members/${member.id}/rotate`);
  expect(rotated.status, rotated.raw).toBe(200);
  expect(await statusWithin(1, token, 401)).toBe(401);
  const newToken = rotated.body.token as string;
  expect((await usage(1, newToken)).status).toBe(200);

  const budgets = await console.post(`/members/${member.id}/budgets`, { detector: 7 });
  expect(budgets.status, budgets.raw).toBe(200);
  for (let i = 0; i < 40 && (await usage(1, newToken)).body.products?.detector?.budget !== 7; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  expect((await usage(1, newToken)).body.products.detector.budget).toBe(7);

  const revoked = await console.post(`/members/${member.id}/revoke`);
  expect(revoked.status, revoked.raw).toBe(200);
  expect(await statusWithin(1, newToken, 401)).toBe(401);
});
