import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter, sleep } from '@redline/bff/upstream/retry';
import { UpstreamKeyring } from '@redline/bff/upstream/keyring';
import { HttpForwarder } from '@redline/bff/upstream/http-forwarder';
import { createMetrics } from '@redline/bff/metrics';
import { createLogger } from '@redline/bff/logging';
import { LogCapture } from './harness.ts';

const policy = { deadlineMs: 10_000, attemptTimeoutMs: 1_000, maxAttempts: 5, backoffBaseMs: 100, backoffCapMs: 1_000 };

describe('backoff', () => {
  it('is full jitter under a capped exponential ceiling', () => {
    expect(backoffDelay(policy, 0, () => 0.999)).toBe(99);
    expect(backoffDelay(policy, 3, () => 0.999)).toBe(799);
    expect(backoffDelay(policy, 10, () => 0.999)).toBe(999);
    expect(backoffDelay(policy, 10, () => 0)).toBe(0);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });

  it('sleeps can be cancelled', async () => {
    const controller = new AbortController();
    const waiting = sleep(10_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
  });
});

describe('HttpForwarder', () => {
  it('records a key the upstream generated itself, and gives up within its deadline', async () => {
    let calls = 0;
    const server = createServer((req, res) => {
      calls++;
      if (req.headers['idempotency-key'] === 'slow-key-000') {
        res.writeHead(503).end('{}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'x-idempotency-key': 'generated-by-server', 'x-idempotency-key-source': 'server-generated' });
      res.end(JSON.stringify({ humanized_text: 'x', words_processed: 1, model_used: 'lexi' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const forwarder = new HttpForwarder({ baseUrl, keys: new UpstreamKeyring({ envKey: 'k', store: () => Promise.reject(new Error('no store')), logger: createLogger('silent', new LogCapture()) }), retry: { ...policy, deadlineMs: 400, backoffBaseMs: 50 }, metrics: createMetrics(), logger: createLogger('silent', new LogCapture()) });
    try {
      const ok = await forwarder.forward({ product: 'humanizer', idempotencyKey: 'our-key-0000', body: '{}' });
      expect(ok).toMatchObject({ ok: true, acceptedKey: 'generated-by-server', acceptedKeySource: 'server-generated' });
      const started = Date.now();
      const unavailable = await forwarder.forward({ product: 'humanizer', idempotencyKey: 'slow-key-000', body: '{}' });
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(unavailable).toMatchObject({ ok: false, settled: false });
      // The 503's own error, or, when the deadline cut an attempt in flight (a loaded machine), that attempt's.
      if (!unavailable.ok) expect(['usage_recording_unavailable', 'upstream_unreachable']).toContain(unavailable.error.body.code);
      expect(calls).toBeGreaterThan(2);
    } finally {
      await forwarder.close();
      server.close();
    }
  });
});
