import { productTally } from '../../upstream/client.ts';
import { startFaultRelay, type FaultRelay } from '../../fault-relay.ts';
import { AI_SENTENCES } from '../pages/text.ts';
import { highlightedTexts, waitForToast } from '../page-probes.ts';
import { test, expect } from './fixtures.ts';

// lost-answers.e2e.ts in Firefox ESR: the add-on's background page fetches through a relay
// that loses the first answer; the writer sees the result and the team is charged once.

let relay: FaultRelay;

test.beforeEach(async ({ firefox }) => {
  relay = await startFaultRelay(firefox.bffUrl);
  await firefox.configure({ bffUrl: relay.url });
});
test.afterEach(async ({ firefox }) => {
  await firefox.configure({ bffUrl: firefox.bffUrl });
  await relay.close();
});

for (const fault of ['drop-answer', 'cut-body'] as const) {
  test(`Firefox: a check whose answer is lost on the way (${fault}) shows its result and is charged once`, async ({ tab, firefox }) => {
    await tab.goto(`${firefox.pagesUrl}/plain.html`);
    await tab.bringToFront();
    await tab.waitForSelector('#editor');
    await tab.click('#editor');
    relay.fail('/v1/detect', fault);
    const before = await productTally(firefox.doubleUrl, 'detector');

    await firefox.run(tab, 'detector');
    await waitForToast(tab, /2 sentences labelled AI/);

    expect(await highlightedTexts(tab)).toEqual(AI_SENTENCES);
    const detects = relay.seen.filter((request) => request.path === '/v1/detect').map((request) => request.fault);
    expect(detects[0]).toBe(fault);
    expect(detects.at(-1)).toBe('pass');
    const after = await productTally(firefox.doubleUrl, 'detector');
    expect(after.received - before.received).toBe(1);
    expect(after.charged - before.charged).toBeGreaterThan(0);
  });
}
