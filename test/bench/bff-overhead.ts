/**
 * Benchmark: the BFF's added latency and its throughput, side by side with direct calls to
 * the upstream double, in one run. Both servers run in their own processes; the load comes
 * from this one (autocannon). Every request is a new operation (a new Idempotency-Key or
 * operation id), so both paths do the full work: analysis, charging, and for the BFF the
 * ledger writes.
 *
 *   npm run bench [-- --seconds 10 --connections 10]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { createMember } from '@redline/bff/members';
import { SqliteLedger } from '@redline/bff/storage/sqlite';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '10' } },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);

const TEXT =
  "In today's fast-paced digital landscape, it is important to note that artificial intelligence plays a crucial role in fostering innovation. " +
  'I went to the shop yesterday and honestly it was kinda closed. ' +
  'Moreover, organizations must navigate the complexities of an ever-evolving technological paradigm. ' +
  'Photosynthesis is the process by which green plants use sunlight to make food from carbon dioxide and water. ' +
  'My neighbour keeps three goats that eat everything in sight, and nobody minds.';

const workDir = mkdtempSync(path.join(tmpdir(), 'redline-bench-'));
const children: ChildProcess[] = [];

async function run(args: string[], env: Record<string, string>, readyUrl: string): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(child);
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
    const ready = await fetch(readyUrl).then((response) => response.status < 500, () => false);
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${args.join(' ')} did not become ready`);
}

let sequence = 0;
async function load(name: string, url: string, headers: Record<string, string>, body: (id: string) => string, idHeader?: string) {
  const result = await autocannon({
    url,
    method: 'POST',
    connections,
    duration: seconds,
    headers: { 'content-type': 'application/json', ...headers },
    requests: [
      {
        setupRequest: (request) => {
          const id = `bench-${process.pid}-${sequence++}`;
          return { ...request, body: body(id), headers: { ...request.headers, ...(idHeader ? { [idHeader]: id } : {}) } };
        },
      },
    ],
  });
  const errors = result.errors + result.non2xx;
  return { name, p50: result.latency.p50, p99: result.latency.p99, rps: result.requests.average, total: result.requests.total, errors };
}

try {
  const accountsFile = path.join(workDir, 'accounts.json');
  writeFileSync(accountsFile, JSON.stringify([{ id: 'bench', keys: ['bench-key'], balances: { detector: 1e12, humanizer: 1e12, plagiarism: 1e12 } }]));
  const ledger = new SqliteLedger(path.join(workDir, 'bff.sqlite'));
  const { token } = await createMember(ledger, 'bench');
  await ledger.close();

  await run(['test/upstream/main.ts', '--port', '4399', '--accounts', accountsFile], {}, 'http://127.0.0.1:4399/');
  await run(['bff/src/main.ts'], {
    BFF_PORT: '8399',
    BFF_DATA_DIR: workDir,
    BFF_LOG_LEVEL: 'warn',
    BFF_MEMBER_RATE_LIMIT: '100000000',
    UPSTREAM_BASE_URL: 'http://127.0.0.1:4399',
    UPSTREAM_API_KEY: 'bench-key',
  }, 'http://127.0.0.1:8399/readyz');

  // Warm both paths up, then measure them one after the other in this run.
  await load('warm-up', 'http://127.0.0.1:4399/api/detect/', { 'x-api-key': 'bench-key' }, () => JSON.stringify({ text: TEXT, version: 'v3' }), 'idempotency-key');
  const direct = await load('direct to the double', 'http://127.0.0.1:4399/api/detect/', { 'x-api-key': 'bench-key' }, () => JSON.stringify({ text: TEXT, version: 'v3' }), 'idempotency-key');
  const viaBff = await load('through the BFF', 'http://127.0.0.1:8399/v1/detect', { authorization: `Bearer ${token}` }, (id) => JSON.stringify({ operationId: id, text: TEXT, version: 'v3' }));

  console.log(`\nPOST detect, ${TEXT.split(/\s+/).length} words, ${connections} connections, ${seconds} s each, Node ${process.version}\n`);
  console.log('| path | p50 latency (ms) | p99 latency (ms) | throughput (req/s) | requests | errors |');
  console.log('|---|---|---|---|---|---|');
  for (const row of [direct, viaBff]) console.log(`| ${row.name} | ${row.p50} | ${row.p99} | ${Math.round(row.rps)} | ${row.total} | ${row.errors} |`);
  console.log(`\nAdded by the BFF: p50 +${(viaBff.p50 - direct.p50).toFixed(1)} ms, p99 +${(viaBff.p99 - direct.p99).toFixed(1)} ms.`);
} finally {
  for (const child of children) child.kill('SIGTERM');
  rmSync(workDir, { recursive: true, force: true });
}
