import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { test, expect, type Stack } from './fixtures.ts';
import { waitForToast } from './page-probes.ts';
import { PAGE_TEXT } from './pages/text.ts';
import { SIGNALS_NOT_PROOF, SCORE_BANDS, documentVerdict, roundedShare, scoreBand } from '../../extension/lib/verdict.ts';

// The side panel and the popup as a writer or an editor uses them (issue 16, items 1, 3, 4, 6, 7, 8).

const ORIGINAL = "In today's fast-paced digital landscape, it is important to note that artificial intelligence plays a crucial role in fostering innovation.";
const SUGGESTION = 'Today, artificial intelligence is central to fostering innovation.';
const SECOND_ORIGINAL = 'Moreover, organizations must navigate the complexities of an ever-evolving technological paradigm.';
const SECOND_SUGGESTION = 'Organizations must work through an ever-evolving technological paradigm.';

async function exactShare(panel: Page): Promise<number> {
  return Number((await panel.getByTestId('ai-percentage').textContent())!.replace('%', ''));
}

async function detect(page: Page, stack: Stack): Promise<void> {
  await stack.run(page, 'detector');
  await waitForToast(page, /labelled AI/);
}

/** Serious and critical accessibility violations of the page as it is now. */
async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id}: ${violation.help} (${violation.nodes.map((node) => `${node.target.join(' ')}${node.any[0]?.data ? ` ${JSON.stringify(node.any[0].data)}` : ''}`).join(', ')})`,
    );
}

test('item 1: a verdict in words with the exact figure one click away, banded sentences with a legend in the page’s colours', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  await page.locator('#editor').click();
  await detect(page, stack);
  const panel = await stack.openSidePanel(page);

  const exact = panel.getByTestId('ai-percentage');
  await expect(exact).toBeHidden(); // not the headline
  const share = await exactShare(panel);
  await expect(panel.getByTestId('verdict')).toHaveText(documentVerdict(share).label);
  await expect(panel.getByTestId('share')).toHaveText(`${roundedShare(share)} of the text is in sentences labelled AI.`);
  await panel.getByText('Exact figure').click();
  await expect(exact).toBeVisible();
  await expect(exact).toHaveText(/^\d+(\.\d+)?%$/);
  await expect(panel.getByTestId('signals-note')).toContainText(SIGNALS_NOT_PROOF);
  await expect(panel.getByTestId('signals-note')).toBeVisible();

  const legend = panel.getByTestId('legend');
  for (const band of SCORE_BANDS) await expect(legend).toContainText(band.label);

  // Each sentence carries its band in words, from its score, coloured as its highlight in the page.
  const items = panel.getByTestId('flagged-sentences').locator('li');
  await expect(items).toHaveCount(2);
  const pageColours = await page.evaluate(() =>
    Object.fromEntries(
      document.adoptedStyleSheets
        .flatMap((sheet) => [...sheet.cssRules])
        .filter((rule): rule is CSSStyleRule => rule instanceof CSSStyleRule && rule.selectorText.startsWith('::highlight(redline-ai'))
        .map((rule) => [rule.selectorText.replace(/^::highlight\(redline-(.*)\)$/, '$1'), rule.style.backgroundColor]),
    ),
  );
  expect(Object.keys(pageColours).sort()).toEqual(SCORE_BANDS.map((band) => band.id).sort());
  for (const item of await items.all()) {
    const score = Number((await item.locator('.score').textContent())!.replace('score ', ''));
    const chip = item.locator('.band');
    const band = scoreBand(score);
    await expect(chip).toHaveText(band.label);
    expect(await chip.getAttribute('data-band')).toBe(band.id);
    expect(await chip.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe(pageColours[band.id]);
  }
  await panel.close();
});

test('item 3: review a rewrite: described model, readable diffs, Accept all last, undo one item through the verified path, re-check before and after', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const field = page.locator('#field');
  await field.click();
  const before = await field.inputValue();
  await detect(page, stack);
  await stack.configure({ defaultModel: 'cognia' });
  await stack.run(page, 'humanizer');
  await waitForToast(page, /rewrite is ready: 2 suggestions/);
  const panel = await stack.openSidePanel(page);
  const shareBefore = await exactShare(panel);

  await expect(panel.getByTestId('model-used')).toHaveText('Rewritten by Cognia: The service’s default model.');
  await expect(panel.getByTestId('model-description')).toContainText('does not say how its models differ');
  await panel.getByLabel('Model').selectOption({ label: 'Lexi' });
  await expect(panel.getByTestId('model-description')).toContainText('Lexi: One of the service’s four models.');

  // Accept all comes after the list it applies, and is not the primary action.
  const list = panel.getByTestId('suggestions');
  const acceptAll = panel.getByRole('button', { name: 'Accept all (2)' });
  expect(await acceptAll.evaluate((button, listElement) => (listElement!.compareDocumentPosition(button) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0, await list.elementHandle())).toBe(true);
  await expect(acceptAll).not.toHaveClass(/primary/);

  // The heavy rewrite opens side by side; the light one inline; both switch.
  const [first, second] = [list.locator('li.suggestion').nth(0), list.locator('li.suggestion').nth(1)];
  await expect(first).toHaveAttribute('data-view', 'side-by-side');
  await expect(first.getByTestId('side-by-side')).toContainText(ORIGINAL.slice(0, 20));
  await expect(first.getByTestId('side-by-side').locator('ins').first()).toBeVisible();
  await expect(second).toHaveAttribute('data-view', 'inline');
  await first.getByRole('button', { name: 'Show changes inline' }).click();
  await expect(first).toHaveAttribute('data-view', 'inline');
  await first.getByRole('button', { name: 'Show before and after' }).click();
  await expect(first).toHaveAttribute('data-view', 'side-by-side');

  // Accept, undo (read back in the field), accept again.
  await first.getByRole('button', { name: 'Accept', exact: true }).click();
  await expect(first.getByTestId('decision')).toHaveText('Accepted');
  await expect.poll(() => field.inputValue()).toBe(before.replace(ORIGINAL, SUGGESTION));
  await first.getByRole('button', { name: 'Undo' }).click();
  await expect.poll(() => field.inputValue()).toBe(before);
  await expect(first.getByRole('button', { name: 'Accept', exact: true })).toBeVisible();
  await first.getByRole('button', { name: 'Accept', exact: true }).click();
  await second.getByRole('button', { name: 'Accept', exact: true }).click();
  await expect.poll(() => field.inputValue()).toBe(before.replace(ORIGINAL, SUGGESTION).replace(SECOND_ORIGINAL, SECOND_SUGGESTION));
  await expect(panel.getByTestId('decision')).toHaveText(['Accepted', 'Accepted']); // both read back

  // An accepted sentence edited since cannot be undone from the panel; the other one can.
  await field.evaluate((element: HTMLTextAreaElement, at) => element.setSelectionRange(at, at), before.indexOf(ORIGINAL) + 'Today,'.length);
  await page.keyboard.type(' truly');
  const edited = await field.inputValue();
  expect(edited).toContain('Today, truly artificial');
  await first.getByRole('button', { name: 'Undo' }).click();
  await expect(first.getByTestId('apply-problem')).toContainText('edited after it was accepted');
  await expect(first.getByRole('button', { name: 'Undo' })).toHaveCount(0);
  expect(await field.inputValue()).toBe(edited);
  await second.getByRole('button', { name: 'Undo' }).click();
  await expect.poll(() => field.inputValue()).toBe(edited.replace(SECOND_SUGGESTION, SECOND_ORIGINAL));

  // Re-check: the document and the changed sentence, before and after.
  await expect(panel.getByText('shows the score before and after, for the text and each changed sentence')).toBeVisible();
  await panel.getByTestId('recheck-after-rewrite').click();
  const comparison = panel.getByTestId('comparison');
  await expect(comparison).toBeVisible();
  const shareAfter = await exactShare(panel);
  await expect(panel.getByTestId('compare-document')).toHaveText(
    `Before: ${documentVerdict(shareBefore).label} (${roundedShare(shareBefore)}) → now: ${documentVerdict(shareAfter).label} (${roundedShare(shareAfter)})`,
  );
  const change = panel.getByTestId('compare-sentences').locator('li');
  await expect(change).toHaveCount(1);
  await expect(change.locator('.before')).toContainText(ORIGINAL);
  await expect(change.locator('.before .band')).toHaveText(/AI-like/);
  await expect(change.locator('.after')).toContainText('Today, truly artificial intelligence is central to fostering innovation.');
  await expect(change.locator('.after .band')).toHaveCount(1);
  await panel.close();
});

test('item 4: sources by page with a count, quotations marked, Mark as cited leaves a match out of the shown share', async ({ page, stack }) => {
  const quoted = 'Photosynthesis is the process by which green plants use sunlight to make food from carbon dioxide and water.';
  const copied = 'Johannes Gutenberg introduced movable type printing to Europe around the year 1440.';
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const editor = page.locator('#editor');
  await editor.evaluate((element, text) => (element.innerHTML = `<p>${text}</p>`), `My neighbour keeps three goats. “${quoted}” ${copied} We sold the goats in May.`);
  await editor.click();
  await stack.run(page, 'plagiarism');
  await waitForToast(page, /similar source/);
  const panel = await stack.openSidePanel(page);

  await expect(panel.getByTestId('source-count')).toHaveText('2 sentences with a similar source, from 2 pages.');
  const links = panel.getByTestId('source-matches').getByRole('link');
  await expect(links).toHaveText(['Photosynthesis', 'Printing press']);
  await expect(links.first()).toHaveAttribute('href', 'https://encyclopedia.example.org/photosynthesis');
  await expect(panel.getByTestId('source-meta').first()).toHaveText('encyclopedia.example.org · 1 matching sentence');
  const matches = panel.getByTestId('source-match');
  await expect(matches.nth(0).getByTestId('quoted')).toBeVisible();
  await expect(matches.nth(1).getByTestId('quoted')).toHaveCount(0);

  const upstream = Number((await panel.getByTestId('plagiarism-score').textContent())!.replace('%', ''));
  await expect(panel.getByTestId('sources-share')).toHaveText(roundedShare(upstream));
  const quotedLength = (await matches.nth(0).getByRole('button').first().textContent())!.length;
  const copiedLength = (await matches.nth(1).getByRole('button').first().textContent())!.length;
  await matches.nth(0).getByRole('button', { name: 'Mark as cited' }).click();
  await expect(matches.nth(0).getByRole('button', { name: 'Mark as cited' })).toHaveAttribute('aria-pressed', 'true');
  await expect(panel.getByTestId('sources-share')).toHaveText(roundedShare((upstream * copiedLength) / (quotedLength + copiedLength)));
  await expect(panel.getByTestId('plagiarism-score')).toHaveText(`${upstream}%`); // the checker's own figure stays

  // Kept for this check while the tab lives.
  await panel.reload();
  await expect(panel.getByTestId('source-match').nth(0).getByRole('button', { name: 'Mark as cited' })).toHaveAttribute('aria-pressed', 'true');
  await panel.close();
});

test('item 6: history of checks per document on the device, with an off switch and clear-all', async ({ page, stack }) => {
  await stack.serviceWorker.evaluate(() => (globalThis as any).chrome.storage.local.remove(['history', 'historyEnabled']));
  await page.goto(`${stack.pagesUrl}/plain.html`);
  await page.locator('#editor').click();
  await detect(page, stack);
  const panel = await stack.openSidePanel(page);
  const share = await exactShare(panel);
  const thisPage = panel.getByTestId('history-document').first();
  await expect(thisPage).toHaveAttribute('open', '');
  await expect(thisPage.locator('summary')).toContainText(`${await page.title()} · 127.0.0.1 · 1 check · this page`);
  const entry = thisPage.getByTestId('history-entry');
  await expect(entry).toHaveCount(1);
  await expect(entry.locator('td').nth(1)).toHaveText('AI writing');
  await expect(entry.locator('td').nth(2)).toHaveText(`${documentVerdict(share).label} (${roundedShare(share)} in sentences labelled AI)`);
  await expect(entry.locator('td').nth(3)).toHaveText(String(PAGE_TEXT.split(' ').length + 9));
  const stored = await stack.serviceWorker.evaluate(async () => (await (globalThis as any).chrome.storage.local.get('history')).history);
  expect(stored).toEqual([expect.objectContaining({ site: '127.0.0.1', product: 'detector', document: page.url() })]);
  expect(JSON.stringify(stored)).not.toContain('fast-paced'); // the text itself is not kept

  // Off: a further check is not recorded.
  await panel.getByLabel('Keep a history of checks on this device').uncheck();
  await stack.run(page, 'plagiarism');
  await waitForToast(page, /similar source/);
  await expect(panel.getByTestId('source-count')).toBeVisible();
  await expect(entry).toHaveCount(1);
  await panel.getByLabel('Keep a history of checks on this device').check();
  await detect(page, stack);
  await expect(thisPage.getByTestId('history-entry')).toHaveCount(2);

  await panel.getByRole('button', { name: 'Clear history' }).click();
  await expect(panel.getByTestId('history-empty')).toBeVisible();
  expect(await stack.serviceWorker.evaluate(async () => (await (globalThis as any).chrome.storage.local.get('history')).history)).toEqual([]);
  await panel.close();
});

test('item 7: the popup shows this page’s last result, runs the three checks and shows the words left', async ({ page, stack }) => {
  const token = stack.addMember('popup', 'detector=5000', 'plagiarism=4000');
  await stack.configure({}, token);
  try {
    await page.goto(`${stack.pagesUrl}/plain.html`);
    await page.locator('#editor').click();
    const tabId = await stack.tabIdOf(page);
    const popup = await stack.context.newPage();
    await popup.goto(`chrome-extension://${stack.extensionId}/popup.html?tabId=${tabId}`);
    await expect(popup.getByTestId('last-result')).toHaveText('No check on this page yet.');
    await expect(popup.getByTestId('usage')).toContainText('5,000 of 5,000 words left');

    await popup.getByRole('button', { name: 'Check for AI writing' }).click();
    await waitForToast(page, /labelled AI/);
    const words = PAGE_TEXT.split(' ').length + 9;
    await expect(popup.getByTestId('last-result')).toContainText(/AI writing: (Mostly human-written|Mixed|Mostly AI-like) \(.*\)/);
    await popup.getByRole('button', { name: 'Check sources' }).click();
    await waitForToast(page, /similar source/);
    await expect(popup.getByTestId('last-result')).toContainText('Sources:');
    await popup.getByRole('button', { name: 'Humanize' }).click();
    await waitForToast(page, /rewrite is ready/);
    await expect(popup.getByTestId('last-result')).toContainText(/Rewrite: Rewrite with \w+: \d+ suggestions?/);
    // Words left follow the checks without reopening the popup.
    await expect(popup.getByTestId('usage')).toContainText(`${(5000 - words).toLocaleString('en-US')} of 5,000 words left`);

    await popup.reload();
    await expect(popup.getByTestId('usage')).toContainText(`${(5000 - words).toLocaleString('en-US')} of 5,000 words left`);
    await expect(popup.getByTestId('usage')).toContainText(`${(4000 - words).toLocaleString('en-US')} of 4,000 words left`);
    await expect(popup.getByTestId('usage')).toContainText(/no limit · \d+ words used/);
    await popup.close();
  } finally {
    await stack.configure({}, stack.token);
  }
});

test('item 8: no serious or critical accessibility violations in the side panel (all sections) and the popup', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const editor = page.locator('#editor');
  await editor.evaluate((element, text) => (element.innerHTML = `<p>${text}</p>`), `${PAGE_TEXT} “Photosynthesis is the process by which green plants use sunlight to make food from carbon dioxide and water.”`);
  await editor.click();
  await detect(page, stack);
  await stack.run(page, 'plagiarism');
  await waitForToast(page, /similar source/);
  await stack.configure({ defaultModel: 'cognia' });
  await stack.run(page, 'humanizer');
  await waitForToast(page, /rewrite is ready/);
  const panel = await stack.openSidePanel(page);
  await expect(panel.getByTestId('suggestions').locator('li.suggestion').first()).toBeVisible();
  await panel.getByText('Exact figure').click();
  expect(await seriousViolations(panel)).toEqual([]);
  await panel.getByTestId('suggestions').getByRole('button', { name: 'Accept', exact: true }).first().click();
  await panel.getByTestId('recheck-after-rewrite').click();
  await expect(panel.getByTestId('comparison')).toBeVisible();
  expect(await seriousViolations(panel)).toEqual([]);
  await panel.emulateMedia({ colorScheme: 'dark' });
  expect(await seriousViolations(panel)).toEqual([]);
  await panel.close();

  const popup = await stack.context.newPage();
  await popup.goto(`chrome-extension://${stack.extensionId}/popup.html?tabId=${await stack.tabIdOf(page)}`);
  await expect(popup.getByTestId('usage')).toBeVisible();
  await expect(popup.getByTestId('last-result')).toContainText('AI writing');
  expect(await seriousViolations(popup)).toEqual([]);
  await popup.emulateMedia({ colorScheme: 'dark' });
  expect(await seriousViolations(popup)).toEqual([]);
  await popup.close();

  // The options page, with its Advanced settings open.
  const options = await stack.context.newPage();
  await options.goto(`chrome-extension://${stack.extensionId}/options.html`);
  const advanced = options.locator('summary', { hasText: 'Advanced' });
  await expect(advanced).toBeVisible();
  expect(await seriousViolations(options)).toEqual([]);
  await advanced.click();
  await expect(options.getByRole('button', { name: 'Test connection' })).toBeVisible();
  expect(await seriousViolations(options)).toEqual([]);
  await options.emulateMedia({ colorScheme: 'dark' });
  expect(await seriousViolations(options)).toEqual([]);
  await options.close();
});

test('item 8: a whole review by keyboard: check, move through the suggestions, accept one, undo it', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const field = page.locator('#field');
  await field.focus();
  const before = await field.inputValue();
  await stack.configure({ defaultModel: 'cognia' });
  const panel = await stack.openSidePanel(page);
  const focused = () => panel.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent?.trim()}`);

  await panel.keyboard.press('Tab');
  expect(await focused()).toBe('BUTTON Check for AI writing');
  await panel.keyboard.press('Enter');
  await expect(panel.getByTestId('verdict')).toBeVisible();
  await panel.keyboard.press('Tab');
  expect(await focused()).toBe('BUTTON Humanize');
  await panel.keyboard.press('Enter');
  const suggestions = panel.getByTestId('suggestions').locator('li.suggestion');
  await expect(suggestions).toHaveCount(2);

  // Tab through the panel: every suggestion's actions are reached, in order.
  const visited: string[] = [];
  for (let presses = 0; presses < 60; presses++) {
    await panel.keyboard.press('Tab');
    const where = await panel.evaluate(() => {
      const item = document.activeElement?.closest('li.suggestion');
      return item ? `${item.getAttribute('data-index')} ${document.activeElement!.textContent!.trim()}` : '';
    });
    if (where) visited.push(where);
    if (where === '1 Reject') break;
  }
  expect(visited).toEqual(['0 Show changes inline', '0 Accept', '0 Edit', '0 Reject', '1 Show before and after', '1 Accept', '1 Edit', '1 Reject']);

  // Back to the first suggestion's Accept, accept it, and undo it: focus follows the item.
  for (let presses = 0; presses < 6; presses++) await panel.keyboard.press('Shift+Tab');
  expect(await focused()).toBe('BUTTON Accept');
  await panel.keyboard.press('Enter');
  await expect(suggestions.first().getByTestId('decision')).toHaveText('Accepted');
  await expect.poll(() => field.inputValue()).toBe(before.replace(ORIGINAL, SUGGESTION));
  await expect.poll(focused).toBe('BUTTON Undo');
  await panel.keyboard.press('Enter');
  await expect.poll(() => field.inputValue()).toBe(before);
  await expect.poll(focused).toBe('BUTTON Accept');
  await panel.close();
});
