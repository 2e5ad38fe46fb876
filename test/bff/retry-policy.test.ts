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
      if (!unavailable.ok) expect(unavailable.error.body.code).toBe('usage_recording_unavailable');
      expect(calls).toBeGreaterThan(2);
    } finally {
      await forwarder.close();
      server.close();
    }
  });

  it('a last attempt cut short by the call\'s own deadline: the client hears the answer before it (503), or "unreachable" when there was none', async () => {
    let calls = 0;
    const server = createServer((req, res) => {
      calls++;
      // The first attempt of key "answers-once" gets a 503; every other attempt hangs past the deadline.
      if (req.headers['idempotency-key'] === 'answers-once' && calls === 1) res.writeHead(503).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const forwarder = new HttpForwarder({ baseUrl, keys: new UpstreamKeyring({ envKey: 'k', store: () => Promise.reject(new Error('no store')), logger: createLogger('silent', new LogCapture()) }), retry: { ...policy, deadlineMs: 500, attemptTimeoutMs: 5_000, backoffBaseMs: 20, backoffCapMs: 20 }, metrics: createMetrics(), logger: createLogger('silent', new LogCapture()) });
    try {
      const afterA503 = await forwarder.forward({ product: 'humanizer', idempotencyKey: 'answers-once', body: '{}' });
      expect(calls).toBe(2);
      expect(afterA503).toMatchObject({ ok: false, settled: false });
      if (!afterA503.ok) expect(afterA503.error.body.code).toBe('usage_recording_unavailable');
      const neverAnswered = await forwarder.forward({ product: 'humanizer', idempotencyKey: 'never-answers', body: '{}' });
      if (!neverAnswered.ok) expect(neverAnswered.error.body.code).toBe('upstream_unreachable');
      expect(neverAnswered.ok).toBe(false);
    } finally {
      await forwarder.close();
      server.closeAllConnections();
      server.close();
    }
  });
});
