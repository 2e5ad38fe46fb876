import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_TEXT_CHARACTERS, countCharacters, countWords } from '@redline/shared';
import { COPIED_SENTENCE, MIXED_TEXT } from '../upstream/fixtures.ts';
import { SqliteLedger } from '@redline/bff/storage/sqlite';
import { loadConfig } from '@redline/bff/config';
import { createMember } from '@redline/bff/members';
import { startBff } from '@redline/bff/server';
import { startUpstreamDouble } from '../upstream/server.ts';
import { upstreamControl } from '../upstream/client.ts';
import { FAST_RETRIES, LogCapture, newOperationId, request, startHarness, type Harness } from './harness.ts';
import { connectMcp, newToolKey, toolJson } from './mcp-client.ts';
import { ConsoleClient } from './console-client.ts';
import { OAuthTestClient, approveWithoutBrowser } from './oauth-client.ts';
import { BFF_LISTENING, startServerProcess } from './processes.ts';

// An outside probe (round 3): faults a demanding team meets, driven over real HTTP against the
// upstream double, on real SQLite files and file systems.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const root = process.getuid?.() === 0;
const NOBODY = 65534;
// The kernel's ext4 error trigger and loop devices (a container may have neither). With
// checkpoints on their thread, that thread stops at the fault and the repaired start runs it again.
const ext4Faults = root && existsSync('/sys/fs/ext4/features') && existsSync('/dev/loop-control') && canMountExt4Loop();
if (!ext4Faults) console.warn('SKIPPED the read-only file system probes: they need root, ext4 and a loop device this machine lets us mount.');
/** Whether this machine (a container often cannot) mounts an ext4 image on a loop device. */
function canMountExt4Loop(): boolean {
  const folder = mkdtempSync(path.join(tmpdir(), 'redline-ext4-check-'));
  const image = path.join(folder, 'disk.img');
  const mount = path.join(folder, 'mount');
  try {
    execFileSync('truncate', ['-s', '8M', image]);
    execFileSync('mkfs.ext4', ['-q', image], { stdio: 'ignore' });
    mkdirSync(mount);
    execFileSync('mount', ['-o', 'loop', image, mount], { stdio: 'ignore' });
    execFileSync('umount', [mount], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
/** Whether the unprivileged user can run this checkout's BFF (a checkout under a private folder cannot be read). */
const nobodyRunsTheBff =
  root &&
  (() => {
    try {
      execFileSync('runuser', ['-u', 'nobody', '--', process.execPath, '--import', 'tsx', '--input-type=module', '-e', `await import(${JSON.stringify(path.resolve('bff/src/config.ts'))})`], { stdio: 'ignore', timeout: 30_000 });
      return true;
    } catch {
      return false;
    }
  })();
if (root && !nobodyRunsTheBff) console.warn('SKIPPED the ledger-owner probe: user nobody cannot run this checkout\'s BFF.');

/** An ext4 file system on a loop device that the kernel remounts read-only on its first error, as a failing disk does. */
function ext4Disk(): { mount: string; device: string; readOnlyNow(): void; repair(): void } {
  const image = path.join(mkdtempSync(path.join(tmpdir(), 'redline-ext4-')), 'disk.img');
  writeFileSync(image, Buffer.alloc(0));
  execFileSync('truncate', ['-s', '32M', image]);
  execFileSync('mkfs.ext4', ['-q', image]);
  const mount = mkdtempSync(path.join(tmpdir(), 'redline-ext4-mount-'));
  execFileSync('mount', ['-o', 'loop,errors=remount-ro', image, mount]);
  const device = path.basename(execFileSync('findmnt', ['-no', 'SOURCE', mount]).toString().trim());
  cleanups.push(() => {
    try {
      execFileSync('umount', [mount]);
    } catch {
      execFileSync('umount', ['-l', mount]);
    }
    rmSync(mount, { recursive: true, force: true });
    rmSync(path.dirname(image), { recursive: true, force: true });
  });
  return {
    mount,
    device,
    // The kernel's own emergency read-only remount (errors=remount-ro), with the BFF's files open.
    readOnlyNow: () => writeFileSync(`/sys/fs/ext4/${device}/trigger_fs_error`, 'probe3'),
    // What an operator does after the kernel's emergency remount: unmount, check, mount again.
    repair: () => {
      execFileSync('umount', [mount]);
      try {
        execFileSync('e2fsck', ['-fy', image], { stdio: 'ignore' });
      } catch (error) {
        if ((error as { status?: number }).status !== 1) throw error; // 1: errors corrected
      }
      execFileSync('mount', ['-o', 'loop,errors=remount-ro', image, mount]);
    },
  };
}
const cleanups: (() => void)[] = [];
afterAll(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
});

for (const checkpoints of ['commit', 'thread'] as const) describe.runIf(ext4Faults)(`the data folder's file system turns read-only while an operation is at the upstream (checkpoints: ${checkpoints})`, () => {
  it('the member and the log are told it is read-only; after the disk is repaired nothing is lost and it is charged once', async () => {
    const disk = ext4Disk();
    const dataDir = path.join(disk.mount, 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    const double = await startUpstreamDouble({ testMode: true });
    const control = upstreamControl(double.url);
    const env = { ...FAST_RETRIES, BFF_PORT: '0', BFF_DATA_DIR: dataDir, BFF_LEDGER_PROBE_SECONDS: '0.2', UPSTREAM_BASE_URL: double.url, UPSTREAM_API_KEY: 'demo-key-primary', BFF_SQLITE_CHECKPOINTS: checkpoints };
    const logs = new LogCapture();
    let bff = await startBff(loadConfig(env), { logDestination: logs });
    try {
      const { token } = await createMember(bff.ledger, 'ro-tester');
      const consoleSession = await ConsoleClient.signIn(bff.url, token);
      await control.addFaults([{ fault: { kind: 'delay', delayMs: 800 } }]);
      const operationId = newOperationId();
      const answer = request(bff.url, '/v1/detect', { operationId, text: MIXED_TEXT }, token);
      for (let i = 0; i < 100 && (await control.received()).length === 0; i++) await sleep(20);
      disk.readOnlyNow();
      const refused = await answer;
      expect(refused.status).toBe(503);
      expect(refused.body.error.code).toBe('ledger_unavailable');
      // Not "cannot reach its database": it reaches it and cannot write, and waiting alone will not fix that.
      expect(refused.body.error.message).toMatch(/read-only/);
      expect(refused.body.error.message).toMatch(/administrator/);
      expect(refused.body.error.message).toMatch(/same operation id/);
      expect((await request(bff.url, '/readyz', undefined, null)).body).toEqual({ status: 'ledger_unavailable', reason: 'read_only' });
      const logged = logs.lines.map((line) => JSON.parse(line)).find((line) => line.msg?.startsWith('ledger unavailable'));
      expect(logged.reason).toBe('read_only');
      expect(logged.msg).toContain(dataDir);
      expect(logged.msg).toMatch(/read-only/);
      // What the repair cannot bring back, said where the operator looks (README, Exactly once).
      expect(logged.msg).toMatch(/missing from usage/);
      // The console, where an administrator looks first, says what is wrong too (not only "try again shortly").
      const onConsole = await consoleSession.get('/me/usage');
      expect([onConsole.status, onConsole.body.error.code]).toEqual([503, 'ledger_unavailable']);
      expect(onConsole.body.error.message).toMatch(/read-only/);
      expect(onConsole.body.error.message).toMatch(/log/);
      // A new operation meanwhile is refused before anything is forwarded.
      const other = await request(bff.url, '/v1/detect', { operationId: newOperationId(), text: `${MIXED_TEXT} Another one.` }, token);
      expect(other.status).toBe(503);
      expect((await control.received()).length).toBe(1);

      // The operator's repair: stop the BFF, check the file system, mount it again, start. The
      // operation's insert (committed without waiting for the disk, see README "Exactly once")
      // could still be in the page cache when the file system failed, and then is gone after the repair (it was here),
      // like after a power cut: the member's repeat stores it again under the same derived key,
      // which the upstream replays.
      await bff.stop();
      disk.repair();
      bff = await startBff(loadConfig(env), { logDestination: logs });
      const done = await request(bff.url, '/v1/detect', { operationId, text: MIXED_TEXT }, token);
      expect(done.status).toBe(200);
      expect(done.body.wordsCharged).toBe(countWords(MIXED_TEXT));
      const account = await control.account('demo');
      expect(account.charged.detector).toBe(countWords(MIXED_TEXT));
      expect(account.providerRuns.detector).toBe(1);
      const usage = await request(bff.url, '/v1/usage', undefined, token);
      expect(usage.body.products.detector.wordsCharged).toBe(countWords(MIXED_TEXT));
    } finally {
      await bff.stop();
      await double.close();
    }
  });
});

describe('MCP tool calls driven by the official SDK client', () => {
  let h: Harness;
  let client: Client;
  let ledgerFile: string;
  beforeAll(async () => {
    ledgerFile = path.join(mkdtempSync(path.join(tmpdir(), 'redline-probe3-mcp-')), 'bff.sqlite');
    cleanups.push(() => rmSync(path.dirname(ledgerFile), { recursive: true, force: true }));
    h = await startHarness({ ledger: new SqliteLedger(ledgerFile, { busyTimeoutMs: 300 }), env: { BFF_LEDGER_PROBE_SECONDS: '0.2', BFF_MEMBER_RATE_LIMIT: '1000' } });
    client = await connectMcp(h.bff.url, h.token);
  });
  afterAll(async () => {
    await client.close();
    await h.close();
  });
  beforeEach(async () => {
    await h.control.clearFaults();
  });

  it('the ledger unavailable is the tool error ledger_unavailable with a wait, not an internal error; the retry is charged once', async () => {
    const other = new Database(ledgerFile);
    try {
      const before = await h.control.account('demo');
      other.exec('BEGIN IMMEDIATE');
      const idempotency_key = newToolKey();
      const refused = await client.callTool({ name: 'detect_ai_text', arguments: { text: MIXED_TEXT, idempotency_key } });
      expect(refused.isError).toBe(true);
      expect(toolJson(refused).error).toMatchObject({ code: 'ledger_unavailable', retryAfterSeconds: expect.any(Number) });
      expect(toolJson(refused).error.message).toMatch(/same idempotency_key/);
      expect(h.logs.text).not.toContain('unexpected error in an MCP tool');
      other.exec('ROLLBACK');
      for (let i = 0; i < 50 && (await request(h.bff.url, '/readyz', undefined, null)).status !== 200; i++) await sleep(100);
      const done = await client.callTool({ name: 'detect_ai_text', arguments: { text: MIXED_TEXT, idempotency_key } });
      expect(done.isError).toBeFalsy();
      const after = await h.control.account('demo');
      expect(after.charged.detector - before.charged.detector).toBe(countWords(MIXED_TEXT));
    } finally {
      other.close();
    }
  });

  it('the same key sent at once with different texts: one runs and is charged, the others are refused operation_id_reused', async () => {
    const before = await h.control.account('demo');
    await h.control.addFaults([{ fault: { kind: 'delay', delayMs: 300 } }]);
    const idempotency_key = newToolKey();
    const texts = [MIXED_TEXT, `${MIXED_TEXT} One more sentence here.`, `Another text entirely, written for this probe.`];
    const results = await Promise.all(texts.map((text) => client.callTool({ name: 'detect_ai_text', arguments: { text, idempotency_key } })));
    const won = results.filter((result) => !result.isError);
    expect(won).toHaveLength(1);
    for (const result of results.filter((candidate) => candidate.isError)) expect(toolJson(result).error.code).toBe('operation_id_reused');
    const after = await h.control.account('demo');
    expect(after.providerRuns.detector - before.providerRuns.detector).toBe(1);
    expect(after.charged.detector - before.charged.detector).toBe((won[0]!.structuredContent as { wordsCharged: number }).wordsCharged);
  });

  it('the same key sent at once with the same text: one upstream run, one answer not replayed', async () => {
    const before = await h.control.account('demo');
    await h.control.addFaults([{ fault: { kind: 'delay', delayMs: 300 } }]);
    const idempotency_key = newToolKey();
    const results = await Promise.all(Array.from({ length: 5 }, () => client.callTool({ name: 'humanize_text', arguments: { text: MIXED_TEXT, idempotency_key } })));
    expect(results.every((result) => !result.isError)).toBe(true);
    expect(results.filter((result) => (result.structuredContent as { replayed: boolean }).replayed === false)).toHaveLength(1);
    const after = await h.control.account('demo');
    expect(after.providerRuns.humanizer - before.providerRuns.humanizer).toBe(1);
    expect(after.charged.humanizer - before.charged.humanizer).toBe(countWords(MIXED_TEXT));
  });

  it('a call the client aborts mid-flight: its retry with the same key gets the result, charged once and counted once', async () => {
    const before = await h.control.account('demo');
    const usageBefore = (await h.call('/v1/usage')).body.products.plagiarism.wordsCharged;
    await h.control.addFaults([{ fault: { kind: 'delay', delayMs: 600 } }]);
    const idempotency_key = newToolKey();
    const abort = new AbortController();
    const first = client.callTool({ name: 'check_sources', arguments: { text: COPIED_SENTENCE, idempotency_key } }, undefined, { signal: abort.signal });
    const received = (await h.control.received()).length;
    for (let i = 0; i < 100 && (await h.control.received()).length === received; i++) await sleep(10);
    abort.abort();
    await expect(first).rejects.toThrow();
    const retry = await client.callTool({ name: 'check_sources', arguments: { text: COPIED_SENTENCE, idempotency_key } });
    expect(retry.isError).toBeFalsy();
    const after = await h.control.account('demo');
    expect(after.providerRuns.plagiarism - before.providerRuns.plagiarism).toBe(1);
    expect(after.charged.plagiarism - before.charged.plagiarism).toBe(countWords(COPIED_SENTENCE));
    expect((await h.call('/v1/usage')).body.products.plagiarism.wordsCharged - usageBefore).toBe(countWords(COPIED_SENTENCE));
  });

  it('a text over the upstream\'s 160,000 characters (over 1 MiB as JSON) is split, merged and charged as its words', async () => {
    const before = await h.control.account('demo');
    const sentence = 'The committee reviewed the “proposal” — twice — and noted its €2,000 budget. ';
    const text = sentence.repeat(Math.ceil(400_000 / sentence.length));
    const result = await client.callTool({ name: 'detect_ai_text', arguments: { text, idempotency_key: newToolKey() } });
    expect(result.isError).toBeFalsy();
    const outcome = result.structuredContent as { wordsCharged: number; parts: number };
    expect(outcome.parts).toBeGreaterThan(2);
    expect(outcome.wordsCharged).toBe(countWords(text));
    const after = await h.control.account('demo');
    expect(after.charged.detector - before.charged.detector).toBe(countWords(text));
  });

  it('a key whose first call was refused for quota runs when retried after a top-up, charged once', async () => {
    const before = await h.control.account('demo');
    await h.control.setBalances('demo', { humanizer: 3 });
    const idempotency_key = newToolKey();
    const refused = await client.callTool({ name: 'humanize_text', arguments: { text: MIXED_TEXT, idempotency_key } });
    expect(toolJson(refused).error).toMatchObject({ code: 'quota_exceeded', remainingWords: 3, requiredWords: countWords(MIXED_TEXT) });
    await h.control.setBalances('demo', { humanizer: before.balances.humanizer! });
    const done = await client.callTool({ name: 'humanize_text', arguments: { text: MIXED_TEXT, idempotency_key } });
    expect(done.structuredContent).toMatchObject({ replayed: false, wordsCharged: countWords(MIXED_TEXT) });
    const again = await client.callTool({ name: 'humanize_text', arguments: { text: MIXED_TEXT, idempotency_key } });
    expect(again.structuredContent).toMatchObject({ replayed: true });
    const after = await h.control.account('demo');
    expect(after.charged.humanizer - before.charged.humanizer).toBe(countWords(MIXED_TEXT));
  });

  it('invalid arguments are tool errors naming the argument, and nothing is sent', async () => {
    const received = (await h.control.received()).length;
    const cases = [
      { text: 42, idempotency_key: newToolKey() },
      { text: MIXED_TEXT, idempotency_key: 'has spaces in it, not url-safe' },
      { text: MIXED_TEXT, idempotency_key: newToolKey(), version: 'v4' },
      { idempotency_key: newToolKey() },
    ];
    for (const args of cases) {
      const result = await client.callTool({ name: 'detect_ai_text', arguments: args });
      expect(result.isError).toBe(true);
      expect((result.content as { text: string }[])[0]!.text).toMatch(/text|idempotency_key|version/);
    }
    expect((await h.control.received()).length).toBe(received);
  });
});

describe('HTTP-level abuse on /v1', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { BFF_MEMBER_RATE_LIMIT: '1000' } });
  });
  afterAll(async () => {
    await h.close();
  });

  /** Raw HTTP/1.1 on one socket: the bytes as written, the answers as they come back. */
  function rawExchange(data: string, answers: number, timeoutMs = 10_000): Promise<string> {
    const { port } = new URL(h.bff.url);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1');
      let received = '';
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`timed out with: ${received.slice(0, 500)}`));
      }, timeoutMs);
      socket.on('data', (chunk) => {
        received += chunk.toString('utf8');
        if ((received.match(/HTTP\/1\.1 \d{3}/g) ?? []).length >= answers && /\}\s*$/.test(received)) {
          clearTimeout(timer);
          socket.end();
          resolve(received);
        }
      });
      socket.on('error', reject);
      socket.write(data);
    });
  }
  const post = (pathname: string, body: string) =>
    `POST ${pathname} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${h.token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

  it('pipelined requests on one connection are answered in order; the repeat is replayed, charged once', async () => {
    const before = await h.control.account('demo');
    const operationId = newOperationId();
    const body = JSON.stringify({ operationId, text: MIXED_TEXT });
    const cost = JSON.stringify({ text: MIXED_TEXT });
    const raw = await rawExchange(post('/v1/detect', body) + post('/v1/cost', cost) + post('/v1/detect', body), 3);
    const bodies = raw.split(/HTTP\/1\.1 /).slice(1).map((answer) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)));
    expect(bodies.map((answer) => answer.replayed ?? answer.words)).toEqual([false, countWords(MIXED_TEXT), true]);
    const after = await h.control.account('demo');
    expect(after.providerRuns.detector - before.providerRuns.detector).toBe(1);
    expect(after.charged.detector - before.charged.detector).toBe(countWords(MIXED_TEXT));
  });

  it('a request refused before its body is read (401) does not swallow the one pipelined after it', async () => {
    const body = JSON.stringify({ operationId: newOperationId(), text: MIXED_TEXT });
    const refused = post('/v1/detect', body).replace(`Bearer ${h.token}`, 'Bearer rl_not-a-member-token');
    const raw = await rawExchange(refused + post('/v1/cost', JSON.stringify({ text: MIXED_TEXT })), 2);
    expect(raw.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 401', 'HTTP/1.1 200']);
  });

  it('a gzip bomb (40 MiB of zeros in 40 KiB) is refused body_too_large at the limit, quickly, on /v1 and /mcp', async () => {
    const bomb = gzipSync(Buffer.alloc(40 * 1024 * 1024), { level: 9 });
    for (const pathname of ['/v1/detect', '/mcp']) {
      const started = Date.now();
      const response = await fetch(h.bff.url + pathname, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.token}`, 'content-type': 'application/json', 'content-encoding': 'gzip', accept: 'application/json, text/event-stream' },
        body: bomb,
      });
      expect(response.status).toBe(413);
      expect(Date.now() - started).toBeLessThan(1500);
      const answer = await response.json();
      // Both say what the limit is, as /v1 does: an assistant's JSON-RPC error too.
      expect(answer.error.message).toContain(`at most ${loadConfig(h.env).maxBodyBytes.toLocaleString('en-US')} bytes`);
    }
  });

  it('thirty bodies trickling in (slowloris) do not hold up another member', async () => {
    const { port } = new URL(h.bff.url);
    const sockets = Array.from({ length: 30 }, () => {
      const socket = net.connect(Number(port), '127.0.0.1');
      socket.on('error', () => {});
      socket.write(`POST /v1/detect HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${h.token}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"text":"`);
      return socket;
    });
    const drip = setInterval(() => sockets.forEach((socket) => socket.write('a ')), 100);
    try {
      const other = await h.addMember(`other-${Date.now()}`);
      await sleep(300);
      const started = Date.now();
      const answer = await h.call('/v1/detect', { operationId: newOperationId(), text: MIXED_TEXT }, { token: other });
      expect(answer.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      clearInterval(drip);
      sockets.forEach((socket) => socket.destroy());
    }
  });

  it('duplicate "text" keys: the text charged is the text analysed and sent (JSON.parse keeps the last)', async () => {
    const first = 'One two three.';
    const last = 'Four five six seven eight nine ten eleven.';
    const operationId = newOperationId();
    const answer = await h.call('/v1/detect', undefined, { rawBody: `{"operationId":"${operationId}","text":${JSON.stringify(first)},"text":${JSON.stringify(last)}}` });
    expect(answer.status).toBe(200);
    expect(answer.body.wordsCharged).toBe(countWords(last));
    expect(answer.body.result.data.details.chunks.map((chunk: { text: string }) => chunk.text).join(' ')).toBe(last);
  });

  it('a lone surrogate in the text (a valid JSON escape) is refused saying what to remove, before anything is sent or charged', async () => {
    const before = await h.control.account('demo');
    const text = 'Broken pair \ud800 here, and a fine one 😀 there.';
    const operationId = newOperationId();
    const rawBody = JSON.stringify({ operationId, text });
    expect(rawBody).toContain('\\ud800'); // the JSON escape, valid JSON and valid UTF-8
    const answer = await h.call('/v1/detect', undefined, { rawBody });
    const repeat = await h.call('/v1/detect', undefined, { rawBody });
    for (const refused of [answer, repeat]) {
      expect([refused.status, refused.body.error.code]).toEqual([400, 'invalid_request']);
      expect(refused.body.error.message).toMatch(/surrogate/);
    }
    expect((await h.control.account('demo')).providerRuns.detector).toBe(before.providerRuns.detector);
  });

  it('160,000 characters go as one part and 160,001 as two, counted in code points (astral characters too)', async () => {
    const word = '😀bc ';
    const exact = word.repeat(40_000).trimEnd() + 'x'; // 160,000 code points, 200,000 UTF-16 units
    expect(countCharacters(exact)).toBe(MAX_TEXT_CHARACTERS);
    const one = await h.call('/v1/plagiarism', { operationId: newOperationId(), text: exact });
    expect([one.status, one.body.parts, one.body.wordsCharged]).toEqual([200, 1, countWords(exact)]);
    const over = `${exact}y`; // 160,001 code points
    expect(countCharacters(over)).toBe(MAX_TEXT_CHARACTERS + 1);
    const two = await h.call('/v1/plagiarism', { operationId: newOperationId(), text: over });
    expect([two.status, two.body.parts]).toEqual([200, 2]);
    expect(two.body.wordsCharged).toBe((await h.call('/v1/cost', { text: over })).body.words);
  });

  it('Unicode whitespace (NBSP, U+2028, ideographic space, U+0085): /v1/cost predicts what the upstream charges', async () => {
    for (const separator of ['\u00a0', '\u2028', '\u3000', '\u0085', '\u200b', '\u180e', '\u202f']) {
      const text = ['Alpha', 'beta', 'gamma', 'delta.'].join(separator);
      const cost = await h.call('/v1/cost', { text });
      const charged = await h.call('/v1/detect', { operationId: newOperationId(), text });
      expect([separator, charged.status, charged.body.wordsCharged]).toEqual([separator, 200, cost.body.words]);
    }
  });
});

describe('OAuth token edge cases (RFC 6749, 7636, 8707)', () => {
  let h: Harness;
  let client: OAuthTestClient;
  let other: OAuthTestClient;
  beforeAll(async () => {
    h = await startHarness();
    client = await OAuthTestClient.register(`${h.bff.url}/mcp`);
    other = await OAuthTestClient.register(`${h.bff.url}/mcp`, 'http://127.0.0.1:7778/callback', 'Other assistant');
  });
  afterAll(async () => {
    await h.close();
  });

  const tokenRequest = (parameters: Record<string, string>) =>
    fetch(client.as.token_endpoint!, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(parameters) });
  async function code() {
    const start = await client.start();
    const { location } = await approveWithoutBrowser(start.authorizationUrl, h.token);
    return { start, code: location!.searchParams.get('code')! };
  }

  it("a code presented by another client is refused invalid_grant, and the right client can still use it", async () => {
    const { start, code: issued } = await code();
    const stolen = await tokenRequest({ grant_type: 'authorization_code', client_id: other.client.client_id, code: issued, code_verifier: start.codeVerifier, redirect_uri: client.redirectUri });
    expect(stolen.status).toBe(400);
    expect((await stolen.json()).error).toBe('invalid_grant');
    expect((await client.exchangeRaw(issued, start.codeVerifier)).status).toBe(200);
  });

  it('a token request for another resource is refused invalid_target (RFC 8707 section 2.2)', async () => {
    const { start, code: issued } = await code();
    const answer = await tokenRequest({ grant_type: 'authorization_code', client_id: client.client.client_id, code: issued, code_verifier: start.codeVerifier, redirect_uri: client.redirectUri, resource: 'https://elsewhere.example/mcp' });
    expect(answer.status).toBe(400);
    expect((await answer.json()).error).toBe('invalid_target');
  });

  it('a refresh for another resource is refused invalid_target; one by another client invalid_grant', async () => {
    const { start, code: issued } = await code();
    const tokens = await (await client.exchangeRaw(issued, start.codeVerifier)).json();
    const elsewhere = await tokenRequest({ grant_type: 'refresh_token', client_id: client.client.client_id, refresh_token: tokens.refresh_token, resource: 'https://elsewhere.example/mcp' });
    expect(elsewhere.status).toBe(400);
    expect((await elsewhere.json()).error).toBe('invalid_target');
    const byOther = await tokenRequest({ grant_type: 'refresh_token', client_id: other.client.client_id, refresh_token: tokens.refresh_token });
    expect(byOther.status).toBe(400);
    expect((await byOther.json()).error).toBe('invalid_grant');
  });

  it('a code_verifier outside 43 to 128 unreserved characters is refused even when its S256 matches (RFC 7636 section 4.1)', async () => {
    for (const verifier of ['short-verifier', 'v'.repeat(129), `${'v'.repeat(42)} `]) {
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const start = await client.start({ code_challenge: challenge });
      const { location } = await approveWithoutBrowser(start.authorizationUrl, h.token);
      const answer = await client.exchangeRaw(location!.searchParams.get('code')!, verifier);
      expect(answer.status).toBe(400);
      expect(await answer.json()).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(/^code_verifier must be 43 to 128 characters/) });
    }
  });

});

// A BFF that runs as its own user, as in production (root reads and writes any file).
describe.runIf(nobodyRunsTheBff)('the ledger file belongs to another user (a backup restored as root)', () => {
  it('the BFF process stays up, the log names the file, its owner and mode and says to chown it; once given back, the owner is made', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'redline-owner-'));
    cleanups.push(() => rmSync(folder, { recursive: true, force: true }));
    const dataDir = path.join(folder, 'data');
    const file = path.join(dataDir, 'bff.sqlite');
    mkdirSync(dataDir, { mode: 0o700 });
    await new SqliteLedger(file).close();
    for (const name of [folder, dataDir]) chownSync(name, NOBODY, NOBODY);
    // The ledger file stays root's (0600), as `cp` run by root leaves a restored backup.
    const bff = await startServerProcess('runuser', ['-u', 'nobody', '--', process.execPath, '--import', 'tsx', 'bff/src/main.ts'], { BFF_PORT: '0', BFF_DATA_DIR: dataDir, BFF_LEDGER_PROBE_SECONDS: '0.2' }, BFF_LISTENING);
    try {
      // It crashed here: main.ts's first-member check met the unavailable ledger and nothing caught it.
      expect((await request(bff.url, '/readyz', undefined, null)).body).toEqual({ status: 'ledger_unavailable', reason: 'read_only' });
      const logged = bff.output().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line)).find((line) => line.msg?.startsWith('ledger unavailable'));
      expect(logged.msg).toContain(file);
      expect(logged.msg).toMatch(/belongs to uid 0 with mode 600/);
      expect(logged.msg).toMatch(/chown/);

      chownSync(file, NOBODY, NOBODY);
      for (let i = 0; i < 50 && !existsSync(path.join(dataDir, 'first-member-token.txt')); i++) await sleep(100);
      expect(existsSync(path.join(dataDir, 'first-member-token.txt'))).toBe(true);
      expect((await request(bff.url, '/readyz', undefined, null)).status).toBe(200);
    } finally {
      await bff.stop();
    }
  });
});
