import type { Page } from '@playwright/test';
import { productTally, upstreamControl } from '../upstream/client.ts';
import { test, expect, type Stack } from './fixtures.ts';
import { highlightedTexts, waitForToast } from './page-probes.ts';
import { AI_SENTENCES } from './pages/text.ts';

// Chromium stops an extension's service worker when it sees fit (idle, over its time limits),
// also while the worker waits on a check at the BFF. Here it is stopped (DevTools protocol)
// while the upstream double holds the check: the writer is told, may try again (Retry, or a
// reload of the page as one would after an update), and the team is charged for one check.

declare const chrome: any;

const HOLD_MS = 6_000;

/**
 * Sets the extension's service worker running or stopped, as Chromium does on its own, and
 * waits until it is. Playwright keeps the same Worker across a restart (its evaluate waits for
 * the new one), so `stack.serviceWorker` stays usable.
 */
async function setServiceWorker(stack: Stack, wanted: 'running' | 'stopped'): Promise<void> {
  const scopeURL = `chrome-extension://${stack.extensionId}/`;
  const blank = await stack.context.newPage();
  const cdp = await stack.context.newCDPSession(blank);
  const reached = new Promise<void>((resolve) =>
    cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
      if (versions.some((version: { scriptURL: string; runningStatus: string }) => version.scriptURL.startsWith(scopeURL) && version.runningStatus === wanted)) resolve();
    }),
  );
  await cdp.send('ServiceWorker.enable');
  if (wanted === 'stopped') await cdp.send('ServiceWorker.stopAllWorkers');
  else await cdp.send('ServiceWorker.startWorker', { scopeURL });
  await reached;
  await cdp.detach();
  await blank.close();
}

/** Starts a check and stops the service worker while the upstream holds it; returns what the writer is told. */
async function stopMidCheck(stack: Stack, page: Page): Promise<string> {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  await page.locator('#editor').click();
  await upstreamControl(stack.doubleUrl).addFaults([{ fault: { kind: 'delay', delayMs: HOLD_MS }, product: 'detector' }]);
  const before = await productTally(stack.doubleUrl, 'detector');
  await stack.run(page, 'detector');
  await expect.poll(async () => (await productTally(stack.doubleUrl, 'detector')).received).toBe(before.received + 1);
  await setServiceWorker(stack, 'stopped');
  return waitForToast(page, /stopped|restarted/);
}

/** The words one check of the page's text costs, from the check recorded in the tab. */
const wordsCharged = async (stack: Stack, page: Page) =>
  stack.serviceWorker.evaluate(async (id) => (await chrome.storage.session.get(`tab-${id}`))[`tab-${id}`].checks.detector.response.wordsCharged as number, await stack.tabIdOf(page));

/** When the tab's last detector check was answered. */
const finishedAt = async (stack: Stack, page: Page) =>
  stack.serviceWorker.evaluate(async (id) => (await chrome.storage.session.get(`tab-${id}`))[`tab-${id}`].checks.detector.finishedAt as number, await stack.tabIdOf(page));

test.afterEach(async ({ stack }) => {
  await upstreamControl(stack.doubleUrl).clearFaults();
  await setServiceWorker(stack, 'running');
});

test('a check whose service worker is stopped: the writer is told, Retry shows the result, charged once', async ({ page, stack }) => {
  const before = await productTally(stack.doubleUrl, 'detector');
  const told = await stopMidCheck(stack, page);
  expect(told).toMatch(/^The extension stopped mid-check\. Retry: charged once\.Retry/);

  await page.locator('redline-toast').getByRole('button', { name: 'Retry' }).click();
  await waitForToast(page, /2 sentences labelled AI/);

  expect(await highlightedTexts(page)).toEqual(AI_SENTENCES);
  const after = await productTally(stack.doubleUrl, 'detector');
  expect(after.received - before.received).toBe(1);
  expect(after.charged - before.charged).toBeGreaterThan(0);
  expect(after.charged - before.charged).toBe(await wordsCharged(stack, page));
});

test('a check whose service worker is stopped, checked again after reloading the page: charged once', async ({ page, stack }) => {
  const before = await productTally(stack.doubleUrl, 'detector');
  await stopMidCheck(stack, page);

  await page.reload();
  await page.locator('#editor').click();
  await setServiceWorker(stack, 'running');
  // Nothing waits for that check's answer any more: the side panel says so rather than "checking" for ever.
  const panel = await stack.openSidePanel(page);
  await expect(panel.getByText(/The extension stopped during this check/)).toBeVisible();
  await panel.close();
  await stack.run(page, 'detector');
  await waitForToast(page, /2 sentences labelled AI/);
  // The reloaded page asked under an id of its own and was answered under the first try's: the
  // same text asked again from it is that check once more, answered by the BFF, not run again.
  const firstAnswered = await finishedAt(stack, page);
  await stack.run(page, 'detector');
  await expect.poll(() => finishedAt(stack, page)).toBeGreaterThan(firstAnswered);
  await waitForToast(page, /2 sentences labelled AI/);

  const after = await productTally(stack.doubleUrl, 'detector');
  expect(after.received - before.received).toBe(1);
  expect(after.charged - before.charged).toBeGreaterThan(0);
  expect(after.charged - before.charged).toBe(await wordsCharged(stack, page));
});
