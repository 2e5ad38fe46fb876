import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '@redline/bff/config';
import { createMember } from '@redline/bff/members';
import { startBff, type RunningBff } from '@redline/bff/server';
import { PostgresLedger } from '@redline/bff/storage/postgres';
import { LogCapture, POSTGRES_URL, dropSchema, request } from './harness.ts';

// Two instances on one PostgreSQL ledger, each caching members: a rotation and a revocation
// made in the console on one instance stop the old token on the other at once.

const schema = `console_instances_${process.pid}`;
const folder = mkdtempSync(path.join(tmpdir(), 'redline-console-'));
const instances: RunningBff[] = [];
let ledger: PostgresLedger;

beforeAll(async () => {
  ledger = await PostgresLedger.open(POSTGRES_URL, schema);
  for (let i = 0; i < 2; i++) {
    const config = loadConfig({ BFF_PORT: '0', BFF_DATA_DIR: folder, BFF_DATABASE_URL: POSTGRES_URL });
    instances.push(await startBff(config, { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: new LogCapture() }));
  }
});

afterAll(async () => {
  for (const instance of instances) await instance.stop();
  await ledger.close();
  rmSync(folder, { recursive: true, force: true });
  await dropSchema(schema);
});

const usage = (index: number, token: string) => request(instances[index]!.url, '/v1/usage', undefined, token);

async function consolePost(pathname: string, cookie: string, csrf: string) {
  const base = instances[0]!.url;
  const response = await fetch(base + pathname, { method: 'POST', headers: { cookie, 'x-redline-csrf': csrf, origin: base, 'content-type': 'application/json' }, body: '{}' });
  return { status: response.status, body: (await response.json()) as any };
}

it('a rotation and a revocation in the console reach the member cache of the other instance at once', async () => {
  const admin = await createMember(ledger, 'console-admin');
  await (await ledger.consoleStore()).setRole(admin.member.id, 'admin');
  const { member, token } = await createMember(ledger, 'cached-writer');
  const base = instances[0]!.url;
  const signIn = await fetch(`${base}/console/api/sign-in`, { method: 'POST', headers: { origin: base, 'content-type': 'application/json' }, body: JSON.stringify({ token: admin.token }) });
  const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
  const { csrfToken } = (await signIn.json()) as { csrfToken: string };

  // Both instances now hold the member in their caches.
  for (const index of [0, 1]) expect((await usage(index, token)).status).toBe(200);

  const rotated = await consolePost(`/console/api/members/${member.id}/rotate`, cookie, csrfToken);
  expect(rotated.status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 50)); // the announcement's delivery
  expect((await usage(1, token)).status).toBe(401);
  expect((await usage(1, rotated.body.token)).status).toBe(200);

  expect((await consolePost(`/console/api/members/${member.id}/revoke`, cookie, csrfToken)).status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 50));
  for (const index of [0, 1]) expect((await usage(index, rotated.body.token)).status).toBe(401);
});
