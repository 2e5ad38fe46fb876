import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConsoleClient } from './console-client.ts';
import { startHarness, type Harness } from './harness.ts';

// Every refused console sign-in is an audit entry, and signing in needs no session: without a
// limit a stranger wrote entries without end, pushing the administrators' own actions out of
// the Audit log page (its newest 200) and growing the database. Refusals are limited per
// address, as the OAuth consent page's are; successful sign-ins are not counted. A member's
// own extension links are limited too: each is an entry, and any member can make them.

let h: Harness;
let admin: ConsoleClient;
let member: ConsoleClient;

beforeAll(async () => {
  h = await startHarness({ testerRole: 'admin' });
  admin = await ConsoleClient.signIn(h.bff.url, h.token);
  member = await ConsoleClient.signIn(h.bff.url, await h.addMember('linker'));
});
afterAll(() => h.close());

const signIn = (path: '/sign-in' | '/sign-in/link', body: unknown) =>
  fetch(`${h.bff.url}/console/api${path}`, { method: 'POST', headers: { 'content-type': 'application/json', origin: h.bff.url }, body: JSON.stringify(body) });

it('refused sign-ins from one address are limited, and stop writing to the audit log', async () => {
  // A successful sign-in does not count.
  for (let i = 0; i < 3; i++) expect((await signIn('/sign-in', { token: h.token })).status).toBe(200);
  for (let i = 0; i < 10; i++) expect((await signIn(i % 2 ? '/sign-in' : '/sign-in/link', i % 2 ? { token: `rl_${'x'.repeat(43)}` } : { code: 'not-a-code' })).status).toBe(401);
  const limited = await signIn('/sign-in', { token: `rl_${'y'.repeat(43)}` });
  expect(limited.status).toBe(429);
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(await limited.json()).toEqual({
    error: { code: 'too_many_requests', message: 'Too many refused sign-ins from this address. Try again in 15 minutes; a whole member token or an unused sign-in link signs in meanwhile.' },
  });
  for (let i = 0; i < 200; i++) expect((await signIn('/sign-in/link', { code: 'not-a-code' })).status).toBe(429);
  // A stranger at the same address (a NAT, a proxy) cannot lock the team out: a whole token or
  // an unused link still signs in.
  expect((await signIn('/sign-in', { token: h.token })).status).toBe(200);
  const linked = (await h.bff.ledger.listMembers()).find((candidate) => candidate.name === 'linker')!;
  const link = await admin.post(`/members/${linked.id}/link`);
  expect(link.status).toBe(201);
  expect((await signIn('/sign-in/link', { code: new URL(link.body.url).hash.replace('#link=', '') })).status).toBe(200);
  const entries = (await admin.get('/audit')).body.entries as { action: string }[];
  expect(entries.filter((entry) => entry.action === 'sign_in_refused')).toHaveLength(10);
  expect(entries.filter((entry) => entry.action === 'sign_in')).toHaveLength(7);
  // The session signed in before goes on working.
  expect((await admin.get('/session')).status).toBe(200);
});

it("a member's own extension links are limited per member; an administrator's links for members are not", async () => {
  const linker = (await h.bff.ledger.listMembers()).find((candidate) => candidate.name === 'linker')!;
  for (let i = 0; i < 10; i++) expect((await member.post('/me/extension-link')).status).toBe(201);
  const limited = await member.post('/me/extension-link');
  expect(limited.status).toBe(429);
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(limited.body).toEqual({
    error: { code: 'too_many_requests', message: 'You made 10 extension sign-in links within the hour. Use one of them (each works once, for 24 hours), or wait an hour.' },
  });
  for (let i = 0; i < 12; i++) expect((await admin.post(`/members/${linker.id}/extension-link`)).status).toBe(201);
  const entries = (await admin.get('/audit')).body.entries as { action: string }[];
  expect(entries.filter((entry) => entry.action === 'extension_link_created')).toHaveLength(22);
});

it('refusals from one IPv6 network (a /56, as one host or site holds) count as one address behind BFF_TRUST_PROXY', async () => {
  const proxied = await startHarness({ env: { BFF_TRUST_PROXY: 'loopback' } });
  try {
    // A stranger with a /64 picks a new source address for every try.
    const from = (i: number) =>
      fetch(`${proxied.bff.url}/console/api/sign-in/link`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: proxied.bff.url, 'x-forwarded-for': `2001:db8:1:2::${(i + 1).toString(16)}` },
        body: JSON.stringify({ code: 'not-a-code' }),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) statuses.push((await from(i)).status);
    expect(statuses).toEqual([...Array<number>(10).fill(401), ...Array<number>(5).fill(429)]);
    // Another network is not limited by it.
    const other = await fetch(`${proxied.bff.url}/console/api/sign-in/link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: proxied.bff.url, 'x-forwarded-for': '2001:db8:9::1' },
      body: JSON.stringify({ code: 'not-a-code' }),
    });
    expect(other.status).toBe(401);
  } finally {
    await proxied.close();
  }
});
