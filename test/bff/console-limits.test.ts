import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleClient } from './console-client.ts';
import { newOperationId, startHarness, type Harness } from './harness.ts';

// Per-member rate limits set in the console, and the last upstream quota figures on the usage
// page. Real HTTP against a started BFF and the upstream double.

const TEXT_12_WORDS = 'One two three four five six seven eight nine ten eleven twelve.';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(ledger: 'sqlite' | 'postgres'): Promise<{ h: Harness; admin: ConsoleClient }> {
  h = await startHarness({ ledger, env: { BFF_MEMBER_RATE_LIMIT: '50', BFF_MEMBER_RATE_WINDOW_SECONDS: '600' }, testerRole: 'admin' });
  return { h, admin: await ConsoleClient.signIn(h.bff.url, h.token) };
}

describe.each(['sqlite', 'postgres'] as const)('%s ledger', (ledger) => {
  it('an admin sets a member\'s own rate limit; it applies to the next request and can be cleared', async () => {
    const { h, admin } = await start(ledger);
    const token = await h.addMember('limited');
    const id = (await h.bff.ledger.listMembers()).find((member) => member.name === 'limited')!.id;
    const usage = () => h.call('/v1/usage', undefined, { token });

    expect((await admin.post(`/members/${id}/rate-limit`, { requests: 0 })).status).toBe(400);
    const set = await admin.post(`/members/${id}/rate-limit`, { requests: 3 });
    expect(set.body).toEqual({ requests: 3 });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await usage()).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    // Other members keep the default.
    for (let i = 0; i < 5; i++) expect((await h.call('/v1/usage')).status).toBe(200);

    const listed = await admin.get('/members');
    expect(listed.body).toMatchObject({ defaultRateLimit: 50, rateWindowSeconds: 600 });
    expect(listed.body.members.find((member: { id: string }) => member.id === id).rateLimit).toBe(3);

    expect((await admin.post(`/members/${id}/rate-limit`, { requests: null })).status).toBe(200);
    expect((await usage()).status).toBe(200);
    const audit = await admin.get('/audit');
    expect(audit.body.entries.filter((entry: { action: string }) => entry.action === 'rate_limit_changed').map((entry: { detail: unknown }) => entry.detail)).toEqual([
      { requests: null, windowSeconds: 600 },
      { requests: 3, windowSeconds: 600 },
    ]);
  });
});

it('the usage page shows the last remaining words the upstream reported, per product, and when', async () => {
  const { h, admin } = await start('sqlite');
  expect((await admin.get('/usage')).body.upstreamQuotas).toEqual([]);
  await h.control.setBalances('demo', { detector: 5 });
  const before = Date.now();
  const refused = await h.call('/v1/detect', { operationId: newOperationId(), text: TEXT_12_WORDS });
  expect(refused.status).toBe(402);
  const usage = await admin.get('/usage');
  expect(usage.body.upstreamQuotas).toEqual([{ product: 'detector', remainingWords: 5, seenAt: expect.any(Number) }]);
  expect(usage.body.upstreamQuotas[0].seenAt).toBeGreaterThanOrEqual(before);
});
