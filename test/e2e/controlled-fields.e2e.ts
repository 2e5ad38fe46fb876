import type { Page } from '@playwright/test';
import { humanize as rewriteOffline, splitSentences } from '@redline/shared/analysis';
import { test, expect, type Stack } from './fixtures.ts';
import { waitForToast } from './page-probes.ts';
import { AI_SENTENCES, PAGE_TEXT } from './pages/text.ts';

// A textarea that a React app controls (pages/react-fields.ts): its value is React state, set
// from onChange, and every render (a clock re-renders every 200 ms) writes the state back. An
// accept that changed the element's value without the input event React listens for would be
// shown for a moment and then written over, while the panel said "Accepted"; the state is the
// model an accept must reach.

const REWRITE = splitSentences(rewriteOffline(`${PAGE_TEXT}\n\nA second paragraph, written by me on a Tuesday.`, 'cognia').humanized_text).map((sentence) => sentence.text);
const [ORIGINAL, SECOND_ORIGINAL] = AI_SENTENCES as [string, string];
const [SUGGESTION, SECOND_SUGGESTION] = [REWRITE[0]!, REWRITE[2]!];

const reactState = (page: Page) => page.evaluate(() => (window as unknown as { editorText(): string }).editorText());

async function humanizeField(page: Page, stack: Stack): Promise<Page> {
  await page.goto(`${stack.pagesUrl}/react-fields.html`);
  await expect.poll(() => page.evaluate(() => typeof (window as unknown as { editorText?: unknown }).editorText)).toBe('function');
  await page.locator('#field').click();
  await page.keyboard.press('Control+End');
  await stack.configure({ defaultModel: 'cognia' });
  await stack.run(page, 'humanizer');
  await waitForToast(page, /rewrite is ready: 2 suggestions/);
  return stack.openSidePanel(page);
}

test('React controlled textarea: an accepted suggestion is in React state and stays through its renders and the writer typing', async ({ page, stack }) => {
  const panel = await humanizeField(page, stack);
  const before = await reactState(page);
  expect(before).toContain(ORIGINAL);
  const first = panel.getByTestId('suggestions').locator('li.suggestion').first();
  await first.getByRole('button', { name: 'Accept', exact: true }).click();
  await expect(first.getByTestId('decision')).toHaveText('Accepted', { timeout: 15_000 });
  const expected = before.replace(ORIGINAL, SUGGESTION);
  await page.waitForTimeout(600); // three of the clock's renders
  expect(await reactState(page)).toBe(expected);
  expect(await page.locator('#field').inputValue()).toBe(expected);
  // The writer goes on typing at the end: React's next state is built on the accepted text.
  await page.locator('#field').focus();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(' More.', { delay: 20 });
  await page.waitForTimeout(300);
  expect(await reactState(page)).toBe(`${expected} More.`);
  expect(await page.locator('#field').inputValue()).toBe(`${expected} More.`);
  await panel.close();
});

test('React controlled textarea: Accept all reaches React state, and Ctrl+Z takes it back', async ({ page, stack }) => {
  const panel = await humanizeField(page, stack);
  const before = await reactState(page);
  await panel.getByRole('button', { name: 'Accept all (2)' }).click();
  await expect(panel.getByTestId('decision')).toHaveText(['Accepted', 'Accepted'], { timeout: 15_000 });
  const expected = before.replace(ORIGINAL, SUGGESTION).replace(SECOND_ORIGINAL, SECOND_SUGGESTION);
  await page.waitForTimeout(600);
  expect(await reactState(page)).toBe(expected);
  expect(await page.locator('#field').inputValue()).toBe(expected);
  await page.bringToFront();
  await page.locator('#field').focus();
  await page.keyboard.press('Control+z');
  await expect.poll(() => reactState(page)).toBe(before);
  await page.waitForTimeout(400);
  expect(await page.locator('#field').inputValue()).toBe(before);
  await panel.close();
});
