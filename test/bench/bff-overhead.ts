/**
 * Benchmark: what the BFF costs over a bare proxy, in one run. Four paths to the same
 * upstream double, each in its own process:
 *
 *   direct         the load generator calls the double itself
 *   bare proxy     a minimal undici pass-through that adds the API key (bare-proxy.ts)
 *   BFF, SQLite    the BFF with its embedded ledger
 *   BFF, PostgreSQL the BFF with the ledger in PostgreSQL (a database of its own, dropped after)
 *                  and, when Redis answers, rate limits in Redis: the several-instance setup
 *
 * Every request is a new operation (a new Idempotency-Key or operationId), so every path
 * does the full work. Per path and repetition: closed-loop throughput at each connection
 * count (autocannon), the middle process's CPU time per request, and open-loop latency at
 * fixed unsaturated rates (latency from each request's due time). Medians of the reps. The
 * resulting table is written into the README between the bench markers.
 *
 *   npm run bench [-- --seconds 5 --reps 3 --note "..." --no-readme --cpu-prof DIR --baseline GIT_REF]
 *
 * --baseline adds "BFF, SQLite (REF)" (and "BFF, PostgreSQL (REF)" when that path is measured,
 * on a database of its own): the BFF's code at that commit (bff/ and shared/, bundled as this
 * one is; node_modules from this tree), measured in the same run for a before/after.
 * --variant "LABEL:NAME=VALUE ..." (repeatable) adds "BFF, SQLite, LABEL": this commit's BFF
 * with those environment variables, e.g. "V8's heap growth:BFF_HEAP_GROWING_PERCENT=0".
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { reachable } from '../system.ts';
import { openLoop } from './open-loop.ts';
import { cpuMs, peakRss, rssMiB } from './proc.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    reps: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10,64' },
    rates: { type: 'string', default: '100,300' },
    paths: { type: 'string', default: 'direct,proxy,sqlite,postgres' },
    note: { type: 'string' },
    'no-readme': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    'database-url': { type: 'string', default: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    'redis-url': { type: 'string', default: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' },
    baseline: { type: 'string' },
    variant: { type: 'string', multiple: true, default: [] },
  },
});
const seconds = Number(values.seconds);
const reps = Number(values.reps);
const connectionCounts = values.connections.split(',').map(Number);
const rates = values.rates.split(',').map(Number);
const wantedPaths = new Set(values.paths.split(','));
const root = path.resolve(import.meta.dirname, '../..');
const README = path.join(root, 'README.md');
const MARKERS = ['<!-- bench:start -->', '<!-- bench:end -->'] as const;

const TEXT =
  "In today's fast-paced digital landscape, it is important to note that artificial intelligence plays a crucial role in fostering innovation. " +
  'I went to the shop yesterday and honestly it was kinda closed. ' +
  'Moreover, organizations must navigate the complexities of an ever-evolving technological paradigm. ' +
  'Photosynthesis is the process by which green plants use sunlight to make food from carbon dioxide and water. ' +
  'My neighbour keeps three goats that eat everything in sight, and nobody minds.';
const WORDS = TEXT.split(/\s+/).length;
const API_KEY = 'bench-key';

const startLoad = loadavg()[0]!;
const workDir = mkdtempSync(path.join(tmpdir(), 'redline-bench-'));
const children: ChildProcess[] = [];
let sequence = 0;
const nextId = () => `bench-${process.pid}-${sequence++}`;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}


/** The node flags `npm run serve` starts the BFF with (package.json), so the bench runs it the same way. */
function serveNodeFlags(codeRoot: string): string[] {
  const packageFile = path.join(codeRoot, 'package.json');
  if (!existsSync(packageFile)) return [];
  const serve = (JSON.parse(readFileSync(packageFile, 'utf8')) as { scripts?: Record<string, string> }).scripts?.serve ?? '';
  return /\bnode\s+((?:--\S+\s+)*)bff\/dist\/server\/main\.mjs/.exec(serve)?.[1]?.trim().split(/\s+/).filter(Boolean) ?? [];
}

async function start(args: string[], env: Record<string, string>, readyUrl: string, nodeArgs: string[] = [], { tsx = true } = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...nodeArgs, ...(tsx ? ['--import', 'tsx'] : []), ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  for (let i = 0; i < 150; i++) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
    if (await fetch(readyUrl).then((response) => response.status < 500, () => false)) return child;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${args.join(' ')} did not become ready`);
}

/** Creates the bench member through the members CLI, as an administrator would. */
function addMember(env: Record<string, string>, codeRoot = root): string {
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(codeRoot, 'bff/src/cli.ts'), 'add', 'bench'], { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8' });
  const token = /rl_[A-Za-z0-9_-]{43}/.exec(result.stdout)?.[0];
  if (!token) throw new Error(`members add failed: ${result.stderr || result.stdout}`);
  return token;
}

interface Target {
  name: string;
  url: string;
  /** The process between the load and the double, whose CPU and memory are measured. */
  pid?: number;
  headers: (id: string) => Record<string, string>;
  body: (id: string) => string;
  rss?: { restMiB: number; peakMiB: number; afterMiB?: number; heapAfterMiB?: number };
  metricsUrl?: string;
}

interface RepResult {
  rps: Record<number, number>;
  cpuMsPerRequest: Record<number, number>;
  open: Record<number, { p50: number; p99: number; cpuMsPerRequest: number }>;
  errors: number;
}

async function closedLoop(target: Target, connections: number) {
  const cpuBefore = target.pid ? cpuMs(target.pid) : 0;
  const result = await autocannon({
    url: target.url,
    method: 'POST',
    connections,
    duration: seconds,
    requests: [
      {
        setupRequest: (request) => {
          const id = nextId();
          return { ...request, headers: target.headers(id), body: target.body(id) };
        },
      },
    ],
  });
  const cpu = target.pid ? cpuMs(target.pid) - cpuBefore : NaN;
  const ok = result['2xx'];
  return { rps: ok / result.duration, cpuMsPerRequest: cpu / result.requests.total, errors: result.errors + result.non2xx + result.timeouts };
}

async function measure(target: Target): Promise<RepResult> {
  const rep: RepResult = { rps: {}, cpuMsPerRequest: {}, open: {}, errors: 0 };
  const run = async () => {
    for (const connections of connectionCounts) {
      const closed = await closedLoop(target, connections);
      rep.rps[connections] = closed.rps;
      rep.cpuMsPerRequest[connections] = closed.cpuMsPerRequest;
      rep.errors += closed.errors;
    }
    for (const rate of rates) {
      const cpuBefore = target.pid ? cpuMs(target.pid) : NaN;
      const open = await openLoop({ url: target.url, rate, seconds, headers: target.headers, body: target.body, nextId });
      rep.open[rate] = { p50: open.p50, p99: open.p99, cpuMsPerRequest: target.pid ? (cpuMs(target.pid) - cpuBefore) / open.sent : NaN };
      rep.errors += open.errors;
    }
  };
  if (target.pid && target.rss) {
    const { peakMiB } = await peakRss(target.pid, run);
    target.rss.peakMiB = Math.max(target.rss.peakMiB, peakMiB);
  } else {
    await run();
  }
  return rep;
}

const median = (numbers: number[]) => {
  const sorted = numbers.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
const signed = (value: number) => (Number.isFinite(value) ? `${value >= 0 ? '+' : ''}${value.toFixed(1)}` : '—');
const thousands = (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '—');

/** Databases this run created (this commit's PostgreSQL BFF, and a baseline's), dropped at the end. */
const postgresDatabases: string[] = [];
const adminUrl = values['database-url'];

try {
  const accountsFile = path.join(workDir, 'accounts.json');
  writeFileSync(accountsFile, JSON.stringify([{ id: 'bench', keys: [API_KEY], balances: { detector: 1e15, humanizer: 1e15, plagiarism: 1e15 } }]));
  const upstreamPort = await freePort();
  const upstreamUrl = `http://127.0.0.1:${upstreamPort}`;
  const double = await start(['test/upstream/main.ts', '--port', String(upstreamPort), '--accounts', accountsFile, '--test-mode'], {}, `${upstreamUrl}/__control/state`);

  const upstreamBody = (id: string) => JSON.stringify({ text: TEXT, version: 'v3' });
  const bffBody = (id: string) => JSON.stringify({ operationId: id, text: TEXT, version: 'v3' });
  const targets: Target[] = [];
  if (wantedPaths.has('direct')) {
    targets.push({ name: 'direct to the double', url: `${upstreamUrl}/api/detect/`, headers: (id) => ({ 'content-type': 'application/json', 'x-api-key': API_KEY, 'idempotency-key': id }), body: upstreamBody });
  }
  if (wantedPaths.has('proxy')) {
    const port = await freePort();
    const proxy = await start(['test/bench/bare-proxy.ts', '--port', String(port), '--upstream', upstreamUrl, '--api-key', API_KEY], {}, `http://127.0.0.1:${port}/`);
    targets.push({ name: 'bare proxy', url: `http://127.0.0.1:${port}/api/detect/`, pid: proxy.pid, headers: (id) => ({ 'content-type': 'application/json', 'idempotency-key': id }), body: upstreamBody });
  }

  const startBff = async (name: string, ledgerEnv: Record<string, string>, codeRoot = root) => {
    const port = await freePort();
    const env = {
      ...ledgerEnv,
      BFF_PORT: String(port),
      BFF_MEMBER_RATE_LIMIT: '1000000000',
      UPSTREAM_BASE_URL: upstreamUrl,
      UPSTREAM_API_KEY: API_KEY,
    };
    const token = addMember(env, codeRoot);
    // One directory per BFF: the main thread and tsx's loader thread each write a profile there.
    const profile = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(values['cpu-prof'], `bff-${name.toLowerCase().replace(/\W+/g, '-')}`)}`] : [];
    // Each BFF runs as `npm start` runs it, from its bundle; a baseline too old to have one, from its sources through tsx.
    const bundled = existsSync(path.join(codeRoot, 'bff/dist/server/main.mjs'));
    const entry = bundled ? path.join(codeRoot, 'bff/dist/server/main.mjs') : path.join(codeRoot, 'bff/src/main.ts');
    const bff = await start([entry], env, `http://127.0.0.1:${port}/readyz`, [...serveNodeFlags(codeRoot), ...profile], { tsx: !bundled });
    targets.push({
      name: `BFF, ${name}`,
      url: `http://127.0.0.1:${port}/v1/detect`,
      pid: bff.pid,
      headers: () => ({ 'content-type': 'application/json', authorization: `Bearer ${token}` }),
      body: bffBody,
      rss: { restMiB: rssMiB(bff.pid!), peakMiB: 0 },
      metricsUrl: `http://127.0.0.1:${port}/metrics`,
    });
  };
  if (values['cpu-prof']) mkdirSync(values['cpu-prof'], { recursive: true });
  const bundle = spawnSync(process.execPath, ['bff/build.mjs'], { cwd: root, encoding: 'utf8' });
  if (bundle.status !== 0) throw new Error(`building the BFF bundle failed: ${bundle.stderr}`);
  if (wantedPaths.has('sqlite')) {
    const dataDir = path.join(workDir, 'sqlite');
    mkdirSync(dataDir);
    await startBff('SQLite', { BFF_DATA_DIR: dataDir });
  }
  for (const [index, variant] of values.variant.entries()) {
    // This commit's SQLite BFF with other settings, e.g. `--variant "V8's heap growth:BFF_HEAP_GROWING_PERCENT=0"`.
    const [label, settings = ''] = variant.split(/:(.*)/s);
    const dataDir = path.join(workDir, `variant-${index}`);
    mkdirSync(dataDir);
    const env = Object.fromEntries(settings.split(/\s+(?=[A-Z_]+=)/).filter(Boolean).map((pair) => pair.split(/=(.*)/s).slice(0, 2)));
    await startBff(`SQLite, ${label}`, { ...env, BFF_DATA_DIR: dataDir });
  }
  // The BFF as it was at another commit, beside this one (its bff/ and shared/ folders, the same
  // node_modules), on SQLite, and on PostgreSQL too when that path is measured.
  let baseline: { root: string; label: string } | undefined;
  if (values.baseline) {
    const baselineRoot = path.join(workDir, 'baseline');
    mkdirSync(baselineRoot);
    const archive = spawnSync('sh', ['-c', `git archive ${JSON.stringify(values.baseline)} bff shared package.json | tar -x -C ${JSON.stringify(baselineRoot)}`], { cwd: root, encoding: 'utf8' });
    if (archive.status !== 0) throw new Error(`--baseline ${values.baseline}: ${archive.stderr}`);
    symlinkSync(path.join(root, 'node_modules'), path.join(baselineRoot, 'node_modules'));
    const baselineBundle = existsSync(path.join(baselineRoot, 'bff/build.mjs')) && spawnSync(process.execPath, ['bff/build.mjs'], { cwd: baselineRoot, encoding: 'utf8' }).status === 0;
    baseline = { root: baselineRoot, label: `${values.baseline}${baselineBundle ? '' : ', through tsx'}` };
    if (wantedPaths.has('sqlite')) {
      const dataDir = path.join(workDir, 'baseline-data');
      mkdirSync(dataDir);
      await startBff(`SQLite (${baseline.label})`, { BFF_DATA_DIR: dataDir }, baselineRoot);
    }
  }
  if (wantedPaths.has('postgres')) {
    const admin = new pg.Client({ connectionString: adminUrl });
    try {
      await admin.connect();
      // The several-instance setup: shared rate limits in Redis when one answers.
      const redisUp = await reachable(values['redis-url']);
      if (!redisUp) console.error(`No Redis at ${values['redis-url']}: BFF, PostgreSQL runs with per-instance rate limits.`);
      const startPostgresBff = async (suffix: string, codeRoot: string, label: string) => {
        const database = `redline_bench_${process.pid}${suffix}`;
        await admin.query(`CREATE DATABASE ${database}`);
        postgresDatabases.push(database);
        const dataDir = path.join(workDir, `postgres${suffix}`);
        mkdirSync(dataDir);
        const url = new URL(adminUrl);
        url.pathname = `/${database}`;
        const env: Record<string, string> = { BFF_DATA_DIR: dataDir, BFF_DATABASE_URL: url.toString() };
        if (redisUp) env.BFF_REDIS_URL = values['redis-url'];
        await startBff(`${redisUp ? 'PostgreSQL + Redis' : 'PostgreSQL'}${label}`, env, codeRoot);
      };
      await startPostgresBff('', root, '');
      if (baseline) await startPostgresBff('_baseline', baseline.root, ` (${baseline.label})`);
    } catch (error) {
      console.error(`Skipping BFF, PostgreSQL: ${(error as Error).message} (set --database-url)`);
    } finally {
      await admin.end().catch(() => {});
    }
  }

  // Warm every path up (JIT, connection pools, SQLite pages), then measure them in turns.
  for (const target of targets) await closedLoop(target, 10).then(() => {}, () => {});
  const results = new Map<Target, RepResult[]>(targets.map((target) => [target, []]));
  for (let rep = 0; rep < reps; rep++) {
    for (const target of targets) {
      console.error(`rep ${rep + 1}/${reps}: ${target.name}`);
      results.get(target)!.push(await measure(target));
      // A day passes on the double's clock: it drops the responses it held for replays.
      await fetch(`${upstreamUrl}/__control/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advanceMs: 24 * 3600_000 + 60_000 }) });
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  for (const target of targets) {
    if (!target.pid || !target.rss) continue;
    target.rss.afterMiB = rssMiB(target.pid);
    const metrics = target.metricsUrl ? await fetch(target.metricsUrl).then((response) => response.text(), () => '') : '';
    const heapUsed = /^nodejs_heap_size_used_bytes (\d+)/m.exec(metrics)?.[1];
    if (heapUsed) target.rss.heapAfterMiB = Number(heapUsed) / 2 ** 20;
  }
  const doubleRss = rssMiB(double.pid!);

  // The table.
  const direct = targets.find((target) => target.name.startsWith('direct'));
  const proxy = targets.find((target) => target.name === 'bare proxy');
  const med = (target: Target | undefined, pick: (rep: RepResult) => number) => (target ? median(results.get(target)!.map(pick)) : NaN);
  const added = (target: Target, rate: number, q: 'p50' | 'p99') =>
    direct ? median(results.get(target)!.map((rep, i) => rep.open[rate]![q] - results.get(direct)![i]!.open[rate]![q])) : NaN;
  const top = Math.max(...connectionCounts);

  const lines: string[] = [];
  const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const note = values.note ?? (startLoad > 0.8 ? `the machine was shared with other jobs (load average ${startLoad.toFixed(1)} at the start), so the figures are noisy` : 'the machine was otherwise idle');
  lines.push(
    `Measured ${when} UTC with \`npm run bench\`: Node ${process.version}, ${cpus().length} cores, all processes (load generator, double, proxy, BFFs) on this one machine; ${note}.`,
    `POST detect, ${WORDS} words, a new operation per request; ${seconds} s per point; medians of ${reps} reps. CPU per request is the middle process's CPU time over the requests it answered, at ${top} connections (saturated) and at ${Math.max(...rates)} req/s. Open loop: requests sent at a fixed rate, latency from when each was due; "added" is over direct in the same rep.`,
    '',
    `| path | ${connectionCounts.map((c) => `req/s at ${c} conns`).join(' | ')} | ratio to bare proxy at ${top} | CPU per request at ${top} conns / ${Math.max(...rates)} req/s | ${rates.map((r) => `${r} req/s: p50 / p99 (added)`).join(' | ')} | p50 at ${Math.max(...rates)} req/s across reps | errors |`,
    `|---|${connectionCounts.map(() => '---|').join('')}---|---|${rates.map(() => '---|').join('')}---|---|`,
  );
  for (const target of targets) {
    const reps = results.get(target)!;
    const ratio = med(target, (rep) => rep.rps[top]!) / med(proxy, (rep) => rep.rps[top]!);
    const latency = rates.map((rate) => {
      const p50 = med(target, (rep) => rep.open[rate]!.p50);
      const p99 = med(target, (rep) => rep.open[rate]!.p99);
      const extra = target === direct ? '' : ` (${signed(added(target, rate, 'p50'))} / ${signed(added(target, rate, 'p99'))})`;
      return `${fixed(p50)} / ${fixed(p99)} ms${extra}`;
    });
    const highest = Math.max(...rates);
    const spread = reps.map((rep) => rep.open[highest]!.p50);
    lines.push(
      `| ${target.name} | ${connectionCounts.map((c) => thousands(med(target, (rep) => rep.rps[c]!))).join(' | ')} | ${target === direct ? '—' : fixed(ratio, 2)} | ${target.pid ? `${fixed(med(target, (rep) => rep.cpuMsPerRequest[top]!), 2)} / ${fixed(med(target, (rep) => rep.open[Math.max(...rates)]!.cpuMsPerRequest), 2)} ms` : '—'} | ${latency.join(' | ')} | ${fixed(Math.min(...spread))}–${fixed(Math.max(...spread))} ms | ${reps.reduce((sum, rep) => sum + rep.errors, 0)} |`,
    );
  }
  lines.push('', '| process | RSS at rest | RSS peak under load | RSS 5 s after the load | V8 heap used then |', '|---|---|---|---|---|');
  for (const target of targets) {
    if (target.rss) {
      lines.push(`| ${target.name} | ${fixed(target.rss.restMiB, 0)} MiB | ${fixed(target.rss.peakMiB, 0)} MiB | ${fixed(target.rss.afterMiB ?? NaN, 0)} MiB | ${fixed(target.rss.heapAfterMiB ?? NaN, 0)} MiB |`);
    }
  }
  lines.push(`| upstream double (after ${sequence.toLocaleString('en-US')} operations) | | | ${fixed(doubleRss, 0)} MiB | |`);
  const table = lines.join('\n');
  console.log(`\n${table}\n`);

  if (!values['no-readme']) {
    const readme = readFileSync(README, 'utf8');
    const from = readme.indexOf(MARKERS[0]);
    const to = readme.indexOf(MARKERS[1]);
    if (from < 0 || to < from) {
      console.error(`README.md has no ${MARKERS.join(' … ')} markers; the table was not written.`);
    } else {
      writeFileSync(README, `${readme.slice(0, from + MARKERS[0].length)}\n${table}\n${readme.slice(to)}`);
      console.error('Wrote the table into README.md.');
    }
  }
} finally {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
          child.once('exit', () => {
            clearTimeout(killer);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
  if (postgresDatabases.length > 0) {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    for (const database of postgresDatabases) await admin.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin.end();
  }
  rmSync(workDir, { recursive: true, force: true });
}
