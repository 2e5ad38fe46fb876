import { productTally } from '../upstream/client.ts';
import { startFaultRelay, type FaultRelay } from '../fault-relay.ts';
import { test, expect } from './fixtures.ts';
import { highlightedTexts, waitForToast } from './page-probes.ts';
import { AI_SENTENCES } from './pages/text.ts';

// The built extension talking to the real BFF through a relay that loses an answer on the way
// (bff-client-faults.test.ts holds the client to each fault; this holds Chromium's own fetch in
// the extension's service worker to the same): the writer sees the result, not an error, and
// the team is charged for one check.

let relay: FaultRelay;

test.beforeEach(async ({ stack }) => {
  relay = await startFaultRelay(stack.bffUrl);
  await stack.configure({ bffUrl: relay.url });
});
test.afterEach(async ({ stack }) => {
  await stack.configure({ bffUrl: stack.bffUrl });
  await relay.close();
});

for (const fault of ['drop-answer', 'gateway-502'] as const) {
  test(`a check whose answer is lost on the way (${fault}) shows its result and is charged once`, async ({ page, stack }) => {
    await page.goto(`${stack.pagesUrl}/plain.html`);
    await page.locator('#editor').click();
    relay.fail('/v1/detect', fault);
    const before = await productTally(stack.doubleUrl, 'detector');

    await stack.run(page, 'detector');
    await waitForToast(page, /2 sentences labelled AI/);

    expect(await highlightedTexts(page)).toEqual(AI_SENTENCES);
    const detects = relay.seen.filter((request) => request.path === '/v1/detect').map((request) => request.fault);
    expect(detects[0]).toBe(fault);
    expect(detects.at(-1)).toBe('pass');
    // One call reached the upstream (the repeat after a dropped answer is the BFF's replay), and it was charged.
    const after = await productTally(stack.doubleUrl, 'detector');
    expect(after.received - before.received).toBe(1);
    expect(after.charged - before.charged).toBeGreaterThan(0);
  });
}
