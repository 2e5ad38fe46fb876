import { OWN_CHROME_EXTENSION_ORIGIN } from '../../shared/src/bff-api.ts';
import { test, expect } from './fixtures.ts';
import { overlayMarks, waitForToast } from './page-probes.ts';
import { AI_SENTENCES } from './pages/text.ts';

test('the extension built here has the id the BFF allows by default', async ({ stack }) => {
  expect(`chrome-extension://${stack.extensionId}`).toBe(OWN_CHROME_EXTENSION_ORIGIN);
});

test('popup: connection status and usage', async ({ stack }) => {
  const popup = await stack.context.newPage();
  await popup.goto(`chrome-extension://${stack.extensionId}/popup.html`);
  await expect(popup.getByTestId('connection')).toHaveText(/Connected as e2e · analysis service/);
  await expect(popup.getByTestId('usage').locator('tr')).toHaveCount(3);
  await expect(popup.getByTestId('usage')).toContainText('AI detector');
  await popup.close();
});

test('options: plain words first, the technical settings under Advanced, which validates input and tests the connection', async ({ stack }) => {
  const options = await stack.context.newPage();
  await options.goto(`chrome-extension://${stack.extensionId}/options.html`);
  await expect(options.getByRole('heading', { name: "Your team's Redline server" })).toBeVisible();
  await expect(options.getByRole('button', { name: "Sign in with your team's server" })).toBeVisible();
  // Developer words and choices that break highlighting are not on the page people see.
  expect(await options.locator('main').evaluate((main) => (main as HTMLElement).innerText)).not.toContain('BFF'); // what is shown, Advanced closed
  await expect(options.getByLabel('Detector version')).toHaveCount(0);
  await expect(options.getByLabel('Member token')).toBeHidden();

  await options.getByText('Advanced', { exact: true }).click();
  const advanced = options.locator('details');
  await expect(options.getByTestId('origin')).toHaveText(`BFF_ALLOWED_ORIGINS=chrome-extension://${stack.extensionId}`);
  await options.getByLabel('Member token').fill('not a token');
  await expect(options.getByText('A member token looks like rl_')).toBeVisible();
  await expect(advanced.getByRole('button', { name: 'Save' })).toBeDisabled();
  await options.getByLabel('Member token').fill(stack.token);
  await options.getByLabel('Server address').fill(stack.bffUrl);
  await options.getByRole('button', { name: 'Test connection' }).click();
  await expect(options.getByTestId('test-result')).toHaveText(/Connected as e2e/);
  await options.getByLabel('Server address').fill('http://127.0.0.1:9');
  await options.getByRole('button', { name: 'Test connection' }).click();
  // A server that does not answer is asked again for a few seconds: the page says it is asking, and waits.
  await expect(options.getByText('Asking the server…')).toBeVisible();
  await expect(options.getByRole('button', { name: 'Test connection' })).toBeDisabled();
  await expect(options.getByTestId('test-result')).toHaveText(/Can't reach your team's Redline server/);
  await expect(options.getByText('Asking the server…')).toBeHidden();
  await options.getByLabel('Server address').fill(stack.bffUrl);
  // A well-formed token the server does not know is not kept.
  await options.getByLabel('Member token').fill(`rl_${'A'.repeat(43)}`);
  await advanced.getByRole('button', { name: 'Save' }).click();
  await expect(advanced.getByText(/^Not saved: .*unknown or revoked/)).toBeVisible();
  await options.getByLabel('Member token').fill(stack.token);
  await advanced.getByRole('button', { name: 'Save' }).click();
  await expect(advanced.getByText('Saved.')).toBeVisible();
  await expect(options.getByTestId('account')).toContainText('with a member token');
  await options.close();
});

test('highlights stay aligned with a field inside a scrolling container and on resize', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const inner = page.locator('#inner');
  await inner.scrollIntoViewIfNeeded();
  await inner.click();
  await stack.run(page, 'detector');
  await waitForToast(page, /labelled AI/);
  expect(await overlayMarks(page)).toEqual(AI_SENTENCES);

  const aligned = async () => {
    const field = (await inner.boundingBox())!;
    const mirror = await page.evaluate(() => {
      const rect = document.querySelector('redline-overlay')!.shadowRoot!.querySelector('.mirror')!.getBoundingClientRect();
      return { x: rect.x, y: rect.y };
    });
    return Math.abs(mirror.x - field.x) < 1 && Math.abs(mirror.y - field.y) < 1;
  };
  expect(await aligned()).toBe(true);
  await page.locator('#scroller').evaluate((element) => (element.scrollTop += 60));
  await expect.poll(aligned).toBe(true);
  await page.setViewportSize({ width: 900, height: 700 });
  await expect.poll(aligned).toBe(true);
  // Scrolling the field moves the mirror's text with it (the mirror follows with a transform).
  const markTop = () => page.evaluate(() => document.querySelector('redline-overlay')!.shadowRoot!.querySelector('mark')!.getBoundingClientRect().top);
  const before = await markTop();
  await inner.evaluate((element) => (element.scrollTop = 40));
  const scrolled = await inner.evaluate((element) => element.scrollTop);
  expect(scrolled).toBeGreaterThan(0);
  await expect.poll(async () => Math.round(before - (await markTop()))).toBe(scrolled);
});
