import { test, expect } from './fixtures.ts';
import { overlayMarks, overlayText, waitForToast } from './page-probes.ts';
import { humanize as rewriteOffline, splitSentences } from '@redline/shared/analysis';
import { AI_SENTENCES, PAGE_TEXT } from './pages/text.ts';

// A textarea whose paragraphs are apart by more than one blank line, with breaks before and
// after: captured under the captured-text rule (shared/CONTRACT.md), highlighted and edited at
// the right characters of its value, its own line breaks left as the writer typed them.

declare const chrome: any;

const SECOND = 'A second paragraph, written by me on a Tuesday.';
const VALUE = `\n\n${PAGE_TEXT}\n\n\n\n${SECOND}\n`;
const CAPTURED = `${PAGE_TEXT}\n\n${SECOND}`;
const SUGGESTION = splitSentences(rewriteOffline(CAPTURED, 'cognia').humanized_text)[0]!.text;

test('a textarea with runs of blank lines is captured canonically, highlighted and edited at the right characters', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const field = page.locator('#field');
  await field.evaluate((element: HTMLTextAreaElement, value) => (element.value = value), VALUE);
  await field.click();
  await stack.configure({ defaultModel: 'cognia' });
  await stack.run(page, 'detector');
  await waitForToast(page, /2 sentences labelled AI/);
  const tabId = await stack.tabIdOf(page);
  const sent = await stack.serviceWorker.evaluate(async (id) => (await chrome.storage.session.get(`tab-${id}`))[`tab-${id}`].checks.detector.text, tabId);
  expect(sent).toBe(CAPTURED);
  // The mirror shows the value as it is, and the marks sit on exactly the AI sentences.
  expect(await overlayText(page)).toBe(VALUE);
  expect(await overlayMarks(page)).toEqual(AI_SENTENCES);
  await page.evaluate(() => document.querySelector('redline-toast')?.remove());

  await stack.run(page, 'humanizer');
  await waitForToast(page, /rewrite is ready/);
  const panel = await stack.openSidePanel(page);
  const first = panel.getByTestId('suggestions').locator('li.suggestion').first();
  await first.getByRole('button', { name: 'Accept', exact: true }).click();
  await expect(first.getByTestId('decision')).toHaveText('Accepted');
  expect(await field.inputValue()).toBe(VALUE.replace(AI_SENTENCES[0]!, SUGGESTION));
  await page.bringToFront();
  await field.focus();
  await page.keyboard.press('Control+z');
  await expect.poll(() => field.inputValue()).toBe(VALUE);
  await panel.close();
});
