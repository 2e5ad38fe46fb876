/**
 * Benchmark: how long /healthz waits while one request does the heaviest work the BFF
 * accepts: a 1,000,000-character document in three shapes (upstream mode: split, parts,
 * merge; offline mode: analysis in worker threads) and a 15 MiB /v1/cost body. The BFF and
 * the upstream double run in their own processes; /healthz is polled every 10 ms. Target:
 * 100 ms.
 *
 *   npm run bench:stalls
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createMember } from '@redline/bff/members';
import { SqliteLedger } from '@redline/bff/storage/sqlite';
import { BFF_LISTENING, DOUBLE_LISTENING, slowestHealthCheckDuring, startServerProcess, type ServerProcess } from '../bff/processes.ts';

const MILLION = 1_000_000;
const WORK: Record<string, { path: string; body: () => string }> = {
  'document, one paragraph': { path: 'product', body: () => JSON.stringify({ text: 'The quick brown fox jumps over the lazy dog near the riverbank. '.repeat(MILLION / 64 + 1).slice(0, MILLION) }) },
  'document, no sentence ends': { path: 'product', body: () => JSON.stringify({ text: 'word '.repeat(MILLION / 5).trimEnd() }) },
  'document, one word': { path: 'product', body: () => JSON.stringify({ text: 'a'.repeat(MILLION) }) },
  '15 MiB /v1/cost body': { path: '/v1/cost', body: () => JSON.stringify({ text: 'ab '.repeat(5 * 1024 * 1024) }) },
};

let sequence = 0;
const rows: string[] = [];
for (const mode of ['upstream', 'offline'] as const) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'redline-bench-stalls-'));
  const processes: ServerProcess[] = [];
  try {
    const env: Record<string, string> = { BFF_PORT: '0', BFF_DATA_DIR: dataDir, BFF_MEMBER_RATE_LIMIT: '100000' };
    if (mode === 'upstream') {
      const double = await startServerProcess(process.execPath, ['--import', 'tsx', 'test/upstream/main.ts', '--port', '0'], {}, DOUBLE_LISTENING);
      processes.push(double);
      Object.assign(env, { UPSTREAM_BASE_URL: double.url, UPSTREAM_API_KEY: 'demo-key-primary' });
    }
    const ledger = new SqliteLedger(path.join(dataDir, 'bff.sqlite'));
    const { token } = await createMember(ledger, 'bench');
    await ledger.close();
    const bff = await startServerProcess(process.execPath, ['--import', 'tsx', 'bff/src/main.ts'], env, BFF_LISTENING);
    processes.push(bff);
    const post = (pathname: string, body: string) =>
      fetch(bff.url + pathname, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body }).then(async (response) => {
        await response.text();
        return response.status;
      });
    await post('/v1/detect', JSON.stringify({ operationId: `bench-stalls-${process.pid}-${sequence++}`, text: 'Warm up.' }));
    for (const [name, work] of Object.entries(WORK)) {
      const products = work.path === 'product' ? (mode === 'upstream' ? ['/v1/detect', '/v1/plagiarism'] : ['/v1/detect', '/v1/plagiarism']) : [work.path];
      for (const pathname of products) {
        const body = work.path === 'product' ? JSON.stringify({ ...JSON.parse(work.body()), operationId: `bench-stalls-${process.pid}-${sequence++}` }) : work.body();
        let status = 0;
        const started = performance.now();
        const slowest = await slowestHealthCheckDuring(bff.url, async () => {
          status = await post(pathname, body);
        });
        rows.push(`| ${mode} | ${name} | ${pathname} | ${status} | ${Math.round(performance.now() - started)} | ${slowest.toFixed(0)} |`);
        console.error(rows.at(-1));
      }
    }
  } finally {
    for (const server of processes.reverse()) await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
console.log(`\n/healthz during one heavy request, Node ${process.version}\n`);
console.log('| mode | request | route | status | request (ms) | slowest /healthz (ms) |');
console.log('|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
