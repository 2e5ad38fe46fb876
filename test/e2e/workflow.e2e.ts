import { humanize as rewriteOffline } from '@redline/shared/analysis';
import { test, expect } from './fixtures.ts';
import { cardText, overlayMarks, waitForToast } from './page-probes.ts';
import { AI_SENTENCES, PAGE_TEXT } from './pages/text.ts';

test('the per-site switch keeps the extension off on a site', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  await page.locator('#field').click();
  await stack.configure({ disabledSites: ['127.0.0.1'] });
  await stack.run(page, 'detector');
  await waitForToast(page, /Redline is off for 127\.0\.0\.1/);
  expect(await overlayMarks(page)).toEqual([]);
  await stack.configure({ disabledSites: [] });
});

test('a long text asks first, with its word cost; cancelling sends nothing', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  await page.locator('#field').click();
  await stack.configure({ confirmAboveWords: 10 });
  const sent = async () => (await fetch(`${stack.doubleUrl}/__control/received`).then((response) => response.json())).length;
  const before = await sent();
  const words = (await page.locator('#field').inputValue()).split(/\s+/).filter(Boolean).length;
  expect(words).toBe(PAGE_TEXT.split(' ').length + 9);

  await stack.run(page, 'detector');
  await waitForToast(page, new RegExp(`This check uses ${words} words of the team's detector balance`));
  await page.locator('redline-toast').getByRole('button', { name: 'Cancel' }).click();
  expect(await sent()).toBe(before);

  await stack.run(page, 'detector');
  await waitForToast(page, new RegExp(`uses ${words} words`));
  await page.locator('redline-toast').getByRole('button', { name: 'Check' }).click();
  await waitForToast(page, /labelled AI/);
  expect(await overlayMarks(page)).toEqual(AI_SENTENCES);
  await stack.configure({ confirmAboveWords: 2000 });
});

test('moving the caret into a highlight with the keyboard shows its card', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const field = page.locator('#field');
  await field.click();
  await stack.run(page, 'detector');
  await waitForToast(page, /labelled AI/);
  await field.focus();
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('ArrowRight');
  await expect.poll(() => cardText(page)).toMatch(/Labelled AI by the detector/);
});

test('the side panel rewrites with another model and remembers it', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  await page.locator('#field').click();
  await stack.configure({ defaultModel: 'cognia' });
  await stack.run(page, 'humanizer');
  await waitForToast(page, /rewrite is ready/);
  const panel = await stack.openSidePanel(page);
  await expect(panel.getByTestId('model-used')).toContainText('Rewritten by Cognia');
  await panel.getByLabel('Model').selectOption('lexi'); // by value
  await panel.getByRole('button', { name: 'Rewrite again' }).click();
  await expect(panel.getByTestId('model-used')).toContainText('Rewritten by Lexi');
  // Two models whose rewrites of this text are the same: the panel says so, or "Rewrite again" would look broken.
  const text = await page.locator('#field').inputValue();
  const same = rewriteOffline(text, 'cognia').humanized_text === rewriteOffline(text, 'lexi').humanized_text;
  if (same) await expect(panel.getByTestId('same-rewrite')).toContainText('Lexi made the same suggestions as Cognia');
  else await expect(panel.getByTestId('same-rewrite')).toHaveCount(0);
  console.log(`cognia and lexi ${same ? 'agree' : 'differ'} on the page's text`);
  const settings = await stack.serviceWorker.evaluate(async () => (await (globalThis as any).chrome.storage.local.get('settings')).settings);
  expect(settings.defaultModel).toBe('lexi');
  await panel.close();
});

test('a busy service shows a retry countdown; the retry reuses the operation', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  await page.locator('#field').click();
  // Longer than the BFF's deadline: the BFF answers "busy" at once instead of holding the request.
  await fetch(`${stack.doubleUrl}/__control/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([{ fault: { kind: 'status', status: 429, retryAfterSeconds: 600 }, product: 'detector' }]),
  });
  await stack.run(page, 'detector');
  await waitForToast(page, /busy.*Retry in 600 s/);
  await waitForToast(page, /Retry in 599 s/);
  await page.locator('redline-toast').getByRole('button', { name: 'Retry' }).click();
  await waitForToast(page, /labelled AI/);
  const received = await fetch(`${stack.doubleUrl}/__control/received`).then((response) => response.json());
  const lastTwo = received.slice(-2);
  expect(lastTwo.map((entry: { status: number }) => entry.status)).toEqual([429, 200]);
  expect(lastTwo[0].idempotencyKey).toBe(lastTwo[1].idempotencyKey);
});
