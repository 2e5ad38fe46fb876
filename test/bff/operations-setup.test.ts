import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BFF_ERROR_CODES } from '@redline/shared';
import { CONFIG_VARIABLES, loadConfig } from '@redline/bff/config';
import { createMember } from '@redline/bff/members';
import { startBff, type RunningBff } from '@redline/bff/server';
import { startUpstreamDouble, type RunningUpstreamDouble } from '../upstream/server.ts';
import { MIXED_TEXT } from '../upstream/fixtures.ts';
import { FAST_RETRIES, LogCapture, UPSTREAM_KEY, newOperationId, request } from './harness.ts';
import { BFF_LISTENING, startServerProcess } from './processes.ts';

// Running and configuring the BFF: signals reach it under npm start, readiness says when the
// upstream address is wrong and why, every error code is documented, the CLI's errors are short.

describe('readiness checks that UPSTREAM_BASE_URL answers like the upstream', () => {
  let double: RunningUpstreamDouble;
  const running: RunningBff[] = [];
  const dataDir = mkdtempSync(path.join(tmpdir(), 'redline-ready-'));

  beforeAll(async () => {
    double = await startUpstreamDouble({ testMode: true });
  });
  afterAll(async () => {
    for (const bff of running) await bff.stop();
    await double.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(baseUrl: string, apiKey = UPSTREAM_KEY) {
    const logs = new LogCapture();
    const bff = await startBff(loadConfig({ ...FAST_RETRIES, BFF_PORT: '0', BFF_DATA_DIR: dataDir, UPSTREAM_BASE_URL: baseUrl, UPSTREAM_API_KEY: apiKey }), { logDestination: logs });
    running.push(bff);
    return { bff, logs, ready: () => request(bff.url, '/readyz', undefined, null) };
  }

  it('the right base URL is ready', async () => {
    const { ready } = await start(double.url);
    expect((await ready()).body).toEqual({ status: 'ready', mode: 'upstream' });
  });

  it('a wrong path is not ready, with the status and URL in /readyz and the log; a call says upstream_invalid_response and logs them', async () => {
    const { bff, logs, ready } = await start(`${double.url}/api`);
    const answer = await ready();
    expect(answer.status).toBe(503);
    expect(answer.body.status).toBe('upstream_unavailable');
    expect(answer.body.reason).toContain(`${double.url}/api/api/detect/ answered HTTP 404`);
    expect(answer.body.reason).toContain('UPSTREAM_BASE_URL');
    expect(logs.text).toContain('HTTP 404');

    const token = (await createMember(bff.ledger, `m-${newOperationId()}`)).token;
    const call = await request(bff.url, '/v1/detect', { operationId: newOperationId(), text: MIXED_TEXT }, token);
    expect(call.status).toBe(502);
    expect(call.body.error.code).toBe('upstream_invalid_response');
    const line = logs.lines.map((entry) => JSON.parse(entry)).find((entry) => entry.msg?.includes('answered unexpectedly'));
    expect(line).toMatchObject({ status: 404, url: `${double.url}/api/api/detect/` });
  });

  it('a refused key and an unreachable address are not ready either, each with its reason', async () => {
    const wrongKey = await (await start(double.url, 'not-a-key')).ready();
    expect(wrongKey.status).toBe(503);
    expect(wrongKey.body.reason).toContain('refused the API key');
    const unreachable = await (await start('http://127.0.0.1:9')).ready();
    expect(unreachable.status).toBe(503);
    expect(unreachable.body.reason).toContain('cannot be reached');
  });
});

describe('documentation', () => {
  const readme = readFileSync('README.md', 'utf8');
  it.each(BFF_ERROR_CODES.map((code) => [code]))('the README documents the error code %s', (code) => {
    expect(readme).toContain(`\`${code}\``);
  });
  const configuration = readme.slice(readme.indexOf('### Configuration (environment)'), readme.indexOf('### When the database fails'));
  it.each(CONFIG_VARIABLES.map((name) => [name]))('the README\'s configuration table explains %s', (name) => {
    expect(configuration).toMatch(new RegExp(`^\\|[^\\n]*\`${name}\``, 'm'));
  });
});

describe('the members CLI', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'redline-cli-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const members = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'bff/src/cli.ts', ...args], { env: { ...process.env, BFF_DATA_DIR: dataDir }, encoding: 'utf8' });

  it.each([
    [['add', 'owner'], 'A member named "owner" already exists.'],
    [['revoke', 'nobody'], 'no active member with id or name "nobody"'],
    [['frobnicate'], 'unknown command "frobnicate"'],
    [['add', 'x', '--budget', 'words=5'], '--budget must look like detector=5000'],
    [['add', 'x', '--budget', 'detector=99999999999999999999'], 'is more than the largest budget, 1,000,000,000 words'],
    [['list', '--colour'], "Unknown option '--colour'"],
  ])('%j: one line saying what is wrong and one hint, not the usage', (args, message) => {
    expect(members('add', 'owner').status).not.toBeNull();
    const result = members(...args);
    expect(result.status).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(message);
    expect(lines[1]).toMatch(/npm run members/);
    expect(result.stderr).not.toContain('Usage:');
  });

  it('refuses to read a ledger that is not there (a BFF_DATA_DIR other than the BFF\'s), creating nothing; add says it starts a new one', () => {
    const elsewhere = path.join(dataDir, 'not-the-bffs');
    const run = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'bff/src/cli.ts', ...args], { env: { ...process.env, BFF_DATA_DIR: elsewhere }, encoding: 'utf8' });
    const listed = run('list');
    expect(listed.status).toBe(2);
    expect(listed.stderr).toContain(`there is no ledger in ${elsewhere} (BFF_DATA_DIR)`);
    expect(existsSync(elsewhere)).toBe(false);
    const added = run('add', 'carol');
    expect(added.status).toBe(0);
    expect(added.stderr).toContain(`starting a new ledger in ${elsewhere}`);
    expect(run('list').stdout).toContain('carol');
  });
});

describe('npm start', () => {
  // `npm start` is the builds followed by `exec npm run serve` (the BFF's bundle): the extension
  // build is left out here (it would rewrite extension/.output under the other test files); the
  // bundle is built, and the handover of signals is the same.
  it('builds, then hands over to the bundle without a shell in between', () => {
    const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    expect(scripts.start).toMatch(/&& npm run build:bff --silent && (?:\w+=\S* )*exec npm run --silent serve$/);
    expect(scripts.serve).toMatch(/^exec node .*bff\/dist\/server\/main\.mjs$/);
    expect(scripts['start:bff']).toMatch(/^exec node /);
  });

  it('hands SIGTERM to the bundled BFF: it drains, stops listening and exits', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'redline-start-'));
    try {
      execFileSync('npm', ['run', '--silent', 'build:bff'], { encoding: 'utf8' });
      const started = await startServerProcess('npm', ['run', 'serve'], { BFF_PORT: '0', BFF_DATA_DIR: dataDir }, BFF_LISTENING);
      expect((await fetch(`${started.url}/healthz`)).status).toBe(200);
      const code = await started.stop('SIGTERM', 15_000);
      expect(code).not.toBeNull(); // npm exited
      expect(started.output()).toContain('draining in-flight operations');
      expect(started.output()).toContain('"msg":"stopped"');
      await expect(fetch(`${started.url}/healthz`)).rejects.toThrow(); // nothing listens any more
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('configuration', () => {
  it('says what a number setting must be, and what it was given', () => {
    expect(() => loadConfig({ BFF_PORT: 'abc' })).toThrow('BFF_PORT: must be a number, not "abc"');
    expect(() => loadConfig({ BFF_PORT: '70000' })).toThrow('BFF_PORT: must be at most 65535, not "70000"');
    expect(() => loadConfig({ BFF_MAX_ATTEMPTS: '2.5' })).toThrow('BFF_MAX_ATTEMPTS: must be a whole number, not "2.5"');
    expect(() => loadConfig({ BFF_MAX_ATTEMPTS: '0' })).toThrow('BFF_MAX_ATTEMPTS: must be more than 0, not "0"');
  });

  it('takes exact origins only: a wildcard or a path in BFF_ALLOWED_ORIGINS is refused with what to write instead', () => {
    expect(loadConfig({ BFF_ALLOWED_ORIGINS: 'https://app.example.com:8443,http://[::1]:3000,http://localhost' }).allowedOrigins).toEqual([
      'https://app.example.com:8443',
      'http://[::1]:3000',
      'http://localhost',
    ]);
    for (const origin of ['https://*.example.com', 'https://app.example.com/', 'https://app.example.com/path']) {
      expect(() => loadConfig({ BFF_ALLOWED_ORIGINS: origin })).toThrow(/BFF_ALLOWED_ORIGINS.*no wildcards, no path/);
    }
  });
});
