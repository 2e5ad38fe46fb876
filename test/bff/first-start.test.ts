import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { POSTGRES_URL, dropSchema, request } from './harness.ts';

// Three BFF processes start at once on one empty PostgreSQL schema (as a deployment's
// replicas do): all come up and stay up, exactly one creates the owner and writes its token.

const children: ChildProcess[] = [];
const folders: string[] = [];
const schemas: string[] = [];

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  for (const schema of schemas) await dropSchema(schema);
});

function startProcess(dataDir: string, schema: string): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bff/src/main.ts'], {
    env: { ...process.env, BFF_PORT: '0', BFF_DATA_DIR: dataDir, BFF_DATABASE_URL: POSTGRES_URL, BFF_DATABASE_SCHEMA: schema },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  return { child, output: () => output };
}

const listeningUrl = (output: string) => /"url":"(http:\/\/[^"]+)".*"msg":"BFF listening"/.exec(output)?.[1];

it.each([1, 2, 3])('three instances at once on an empty database (trial %i): all up, one owner, one token file', async (trial) => {
  const schema = `first_start_${process.pid}_${trial}`;
  schemas.push(schema);
  await dropSchema(schema);
  const dirs = [0, 1, 2].map(() => mkdtempSync(path.join(tmpdir(), 'redline-first-')));
  folders.push(...dirs);
  const instances = dirs.map((dir) => startProcess(dir, schema));

  for (let waited = 0; instances.some((instance) => !/First run|BFF listening[\s\S]*\n/.test(instance.output()) || !listeningUrl(instance.output())); waited += 100) {
    for (const instance of instances) if (instance.child.exitCode !== null) throw new Error(`an instance exited: ${instance.output()}`);
    if (waited > 30_000) throw new Error(`not all instances started:\n${instances.map((instance) => instance.output()).join('\n---\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // The loser used to crash just after "BFF listening": give it the time to.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  for (const instance of instances) {
    expect(instance.child.exitCode, instance.output()).toBeNull();
    const ready = await request(listeningUrl(instance.output())!, '/readyz', undefined, null);
    expect(ready.status).toBe(200);
  }
  const tokenFiles = dirs.map((dir) => path.join(dir, 'first-member-token.txt')).filter((file) => existsSync(file));
  expect(tokenFiles).toHaveLength(1);
  expect(statSync(tokenFiles[0]!).mode & 0o777).toBe(0o600);
  expect(instances.filter((instance) => instance.output().includes('First run: a member "owner" was created'))).toHaveLength(1);

  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    const { rows } = await client.query(`SELECT name FROM ${schema}.members`);
    expect(rows).toEqual([{ name: 'owner' }]);
  } finally {
    await client.end();
  }
  for (const instance of instances) instance.child.kill('SIGTERM');
}, 60_000);
