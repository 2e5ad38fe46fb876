import { test, expect } from './fixtures.ts';
import { cardText, waitForToast } from './page-probes.ts';

// The page Redline works in may be hostile. Its cards and toasts live in the page's DOM (open
// shadow roots, which these tests read too), so the page's own script can reach their buttons:
// a click it makes must not answer the word-cost question, rewrite a sentence (text sent and
// words charged) or put a rewrite into the editor. Only the writer's clicks and keys count.

const received = async (doubleUrl: string) => (await fetch(`${doubleUrl}/__control/received`).then((response) => response.json())) as { product: string }[];

/** The page's own script pressing a button of Redline's, as any script on the page could. */
function pressFromPage(page: import('@playwright/test').Page, host: 'redline-toast' | 'redline-card', label: string) {
  return page.evaluate(
    ([host, label]) => {
      const button = [...(document.querySelector(host)?.shadowRoot?.querySelectorAll('button') ?? [])].find((candidate) => candidate.textContent === label);
      if (!button) return false;
      button.click();
      button.dispatchEvent(new MouseEvent('click', { bubbles: true, composed: true }));
      return true;
    },
    [host, label] as const,
  );
}

test('a page cannot answer the word-cost question for the writer', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  await page.locator('#field').click();
  await stack.configure({ confirmAboveWords: 10 });
  try {
    const before = (await received(stack.doubleUrl)).length;
    await stack.run(page, 'detector');
    await waitForToast(page, /This check uses \d+ words of the team's detector balance/);
    expect(await pressFromPage(page, 'redline-toast', 'Check')).toBe(true);
    await page.waitForTimeout(1500);
    expect((await received(stack.doubleUrl)).length).toBe(before);
    await waitForToast(page, /This check uses \d+ words/);
    // The writer's own click still works.
    await page.locator('redline-toast').getByRole('button', { name: 'Check', exact: true }).click();
    await waitForToast(page, /labelled AI/);
    expect((await received(stack.doubleUrl)).length).toBe(before + 1);
  } finally {
    await stack.configure({ confirmAboveWords: 2000 });
  }
});

test('a page cannot rewrite a sentence from its card, nor accept the rewrite', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const field = page.locator('#field');
  await field.click();
  await stack.run(page, 'detector');
  await waitForToast(page, /labelled AI/);
  await field.focus();
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('ArrowRight');
  await expect.poll(() => cardText(page)).toMatch(/Rewrite this sentence/);
  const text = await field.inputValue();
  const before = (await received(stack.doubleUrl)).filter((request) => request.product === 'humanizer').length;

  expect(await pressFromPage(page, 'redline-card', 'Rewrite this sentence')).toBe(true);
  await page.waitForTimeout(1500);
  expect((await received(stack.doubleUrl)).filter((request) => request.product === 'humanizer').length).toBe(before);
  expect(await field.inputValue()).toBe(text);

  // The writer asks for the rewrite; the page presses Accept before the writer does.
  await page.locator('redline-card').getByRole('button', { name: 'Rewrite this sentence' }).click();
  await expect.poll(() => cardText(page)).toMatch(/Accept/);
  expect(await pressFromPage(page, 'redline-card', 'Accept')).toBe(true);
  await page.waitForTimeout(1000);
  expect(await field.inputValue()).toBe(text);
  await page.locator('redline-card').getByRole('button', { name: 'Accept' }).click();
  await expect.poll(() => field.inputValue()).not.toBe(text);
});
