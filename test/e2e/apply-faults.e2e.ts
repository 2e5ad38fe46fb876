import type { Page } from '@playwright/test';
import { test, expect, type Stack } from './fixtures.ts';
import { waitForToast } from './page-probes.ts';
import { humanize as rewriteOffline, splitSentences } from '@redline/shared/analysis';
import { AI_SENTENCES, PAGE_TEXT } from './pages/text.ts';

// Accepting a suggestion when things go wrong: an editor that rewrites the edit after it went
// in (rolled back), an editor that takes text only from paste (the writer's clipboard is left
// alone), and a tab that cannot answer (a time limit, not a hang; test/extension/apply-limits.test.ts
// covers a page that draws no frames).

const ORIGINAL = AI_SENTENCES[0]!;
const REWRITE = splitSentences(rewriteOffline(`${PAGE_TEXT}\n\nA second paragraph, written by me on a Tuesday.`, 'cognia').humanized_text).map((sentence) => sentence.text);
const SUGGESTION = REWRITE[0]!;

const modelText = (page: Page) => page.evaluate(() => (window as unknown as { editorText(): string }).editorText());

async function openAndHumanize(page: Page, stack: Stack, name: string, root: string): Promise<Page> {
  await page.goto(`${stack.pagesUrl}/${name}.html`);
  await expect.poll(() => page.evaluate(() => typeof (window as unknown as { editorText?: unknown }).editorText)).toBe('function');
  await page.locator(root).click();
  await stack.configure({ defaultModel: 'cognia' });
  await stack.run(page, 'humanizer');
  await waitForToast(page, /rewrite is ready: 2 suggestions/);
  return stack.openSidePanel(page);
}

test('an editor that turns the accepted text into something else: the sentence is put back and the panel says it was not applied', async ({ page, stack }) => {
  const panel = await openAndHumanize(page, stack, 'meddler', '#editor');
  const before = await modelText(page);
  // A word the suggestion brings in that the original does not have: the editor rewrites it.
  const word = SUGGESTION.split(/[^A-Za-z]+/).find((candidate) => candidate.length > 3 && !before.includes(candidate))!;
  expect(word).toBeTruthy();
  await page.evaluate((next) => (window as unknown as { meddle(word: string): void }).meddle(next), word);
  const first = panel.getByTestId('suggestions').locator('li.suggestion').first();
  await first.getByRole('button', { name: 'Accept', exact: true }).click();
  await expect(first.getByTestId('apply-problem')).toContainText('Not applied: the editor turned the suggestion into different text');
  await expect(first.getByTestId('decision')).toHaveCount(0); // still pending
  await expect.poll(() => modelText(page)).toBe(before);
  await page.waitForTimeout(500); // nothing comes back later
  expect(await modelText(page)).toBe(before);
  expect(await modelText(page)).not.toContain(word.toUpperCase());
  await panel.close();
});

test('an editor that takes text only from paste: the suggestion goes in by a synthetic paste, and the writer\'s clipboard is what it was', async ({ page, stack }) => {
  await stack.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.pagesUrl });
  const panel = await openAndHumanize(page, stack, 'pasteonly', '#editor');
  const before = await modelText(page);
  const clipboard = `The writer's own clipboard, ${Date.now()}`;
  await page.bringToFront();
  await page.evaluate((text) => navigator.clipboard.writeText(text), clipboard);
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(clipboard);

  const first = panel.getByTestId('suggestions').locator('li.suggestion').first();
  await first.getByRole('button', { name: 'Accept', exact: true }).click();
  await expect(first.getByTestId('decision')).toHaveText('Accepted');
  await expect(first).toHaveAttribute('data-strategy', 'paste');
  expect(await modelText(page)).toBe(before.replace(ORIGINAL, SUGGESTION));
  await page.bringToFront();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(clipboard);
  await panel.close();
});

test('an accept into a page that cannot answer (its main thread busy) ends within seconds, says what to do, and the late command changes nothing', async ({ page, stack }) => {
  test.setTimeout(120_000);
  const panel = await openAndHumanize(page, stack, 'slate', '[data-slate-editor]');
  const before = await modelText(page);
  // The page's main thread is busy for 25 s (the content script shares it): the command waits in its queue.
  await page.evaluate(() => void setTimeout(() => {
    const end = Date.now() + 25_000;
    while (Date.now() < end);
  }, 200));
  await page.waitForTimeout(500);
  const first = panel.getByTestId('suggestions').locator('li.suggestion').first();
  const started = Date.now();
  await first.getByRole('button', { name: 'Accept', exact: true }).click();
  await expect(first.getByTestId('apply-problem')).toContainText('Not applied', { timeout: 40_000 });
  await expect(first.getByTestId('apply-problem')).toContainText('Switch to the page');
  console.log(`busy-page accept answered in ${Date.now() - started} ms`);
  await expect(first.getByTestId('decision')).toHaveCount(0);

  // Free again, the page gets the command late and leaves the document as it was.
  await expect.poll(() => modelText(page), { timeout: 30_000 }).toBe(before);
  await page.waitForTimeout(2000);
  expect(await modelText(page)).toBe(before);
  await first.getByRole('button', { name: 'Accept', exact: true }).click();
  await expect(first.getByTestId('decision')).toHaveText('Accepted');
  await expect.poll(() => modelText(page)).toBe(before.replace(ORIGINAL, SUGGESTION));
  await panel.close();
});
