import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@redline/bff/config';
import { startHarness, type Harness } from './harness.ts';

// Behind a reverse proxy every connection comes from the proxy. With BFF_TRUST_PROXY naming
// it, the per-address OAuth limits count each client by the address the proxy forwards
// (X-Forwarded-For), and the audit log records that address; without it, X-Forwarded-For is
// ignored, so a client cannot escape its limit by writing the header itself.

/** A registration (limited to 20 an hour per address) that claims to come from `forwardedFor`. */
const register = (h: Harness, forwardedFor: string) =>
  fetch(`${h.bff.url}/register`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor }, body: '{}' });

async function useUpRegistrations(h: Harness, forwardedFor: (i: number) => string) {
  for (let i = 0; i < 20; i++) expect((await register(h, forwardedFor(i))).status).not.toBe(429);
}

describe('BFF_TRUST_PROXY=loopback (a proxy on this host)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ offline: true, env: { BFF_TRUST_PROXY: 'loopback' } });
  });
  afterAll(() => h.close());

  it('each forwarded client address has a limit of its own', async () => {
    await useUpRegistrations(h, () => '203.0.113.1');
    expect((await register(h, '203.0.113.1')).status).toBe(429);
    expect((await register(h, '203.0.113.2')).status).not.toBe(429);
    // The proxy appends the peer it saw: the address just before the trusted proxy counts.
    expect((await register(h, '198.51.100.7, 203.0.113.1')).status).toBe(429);
  });

  it('the audit log records the forwarded client address', async () => {
    const refused = await fetch(`${h.bff.url}/console/api/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: h.bff.url, 'x-forwarded-for': '203.0.113.9' },
      body: JSON.stringify({ token: 'rl_' + 'x'.repeat(43) }),
    });
    expect(refused.status).toBe(401);
    const [entry] = await (await h.bff.ledger.consoleStore()).auditLog(1);
    expect(entry).toMatchObject({ action: 'sign_in_refused', address: '203.0.113.9' });
  });
});

describe('without BFF_TRUST_PROXY', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ offline: true });
  });
  afterAll(() => h.close());

  it('X-Forwarded-For is ignored: a client writing it itself stays within its own limit', async () => {
    await useUpRegistrations(h, (i) => `203.0.113.${i + 1}`);
    expect((await register(h, '203.0.113.200')).status).toBe(429);
  });
});

it('BFF_TRUST_PROXY takes hops or addresses, and refuses "true" and what is not an address', () => {
  expect(loadConfig({ BFF_TRUST_PROXY: '1' }).trustProxy).toBe(1);
  expect(loadConfig({ BFF_TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toEqual(['loopback', '10.0.0.0/8']);
  expect(loadConfig({}).trustProxy).toBe(false);
  expect(() => loadConfig({ BFF_TRUST_PROXY: 'true' })).toThrow(ConfigError);
  expect(() => loadConfig({ BFF_TRUST_PROXY: 'proxy.example' })).toThrow(/BFF_TRUST_PROXY/);
});
