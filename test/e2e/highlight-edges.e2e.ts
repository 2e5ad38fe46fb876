import { test, expect } from './fixtures.ts';
import { highlightedTexts, waitForToast, caretAfterText } from './page-probes.ts';
import { AI_SENTENCES } from './pages/text.ts';

// While a burst of typing lasts the extension does not redraw: the browser moves the live ranges
// with the text. A range does not grow when text goes in at its end, but it does when text goes in
// at its start: what the writer types just before a highlighted sentence must not be painted as
// part of it, not even until they pause.

const [, second] = AI_SENTENCES as [string, string];

test('contenteditable: typing just before a highlighted sentence never highlights the typed text, during the burst or after it', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const editor = page.locator('#editor');
  await editor.click();
  await stack.run(page, 'detector');
  await waitForToast(page, /2 sentences labelled AI/);
  await editor.evaluate(caretAfterText, 'kinda closed. ');

  // The extension's updates, seen from the page (its User Timing measures share the page's timeline).
  await page.evaluate(() => {
    (window as unknown as { redlineUpdates: number }).redlineUpdates = 0;
    new PerformanceObserver((list) => {
      (window as unknown as { redlineUpdates: number }).redlineUpdates += list.getEntriesByName('redline:update').length;
    }).observe({ type: 'measure' });
  });
  await page.keyboard.type('Well', { delay: 20 });
  // Within the burst (typing pauses for 250 ms before it is followed): the highlight is the sentence
  // alone, kept so without an update (the range's start moved past the typed text as it went in).
  const during = await highlightedTexts(page);
  expect(await page.evaluate(() => (window as unknown as { redlineUpdates: number }).redlineUpdates)).toBe(0);
  expect(during.join('\n')).not.toContain('Well');
  expect(during).toEqual(AI_SENTENCES);

  await expect.poll(() => highlightedTexts(page)).toEqual(AI_SENTENCES);
  // The pause is followed by an update (what the page sees of the extension's work is not nothing).
  await expect.poll(() => page.evaluate(() => (window as unknown as { redlineUpdates: number }).redlineUpdates)).toBeGreaterThan(0);
  expect(await page.evaluate(() => document.querySelector('#editor')!.textContent)).toContain(`closed. Well${second}`);
});
