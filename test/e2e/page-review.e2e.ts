import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { countWords } from '@redline/shared/text';
import { test, expect, type Stack } from './fixtures.ts';
import { cardText, highlightedTexts, overlayMarks, toastText, waitForToast } from './page-probes.ts';
import { ARTICLE_TITLE, CHROME_TEXTS, EDITOR_NOTE, SECTIONS } from './pages/article-text.ts';
import { AI_SENTENCES } from './pages/text.ts';
import { SCORE_BANDS, SIGNALS_NOT_PROOF } from '../../extension/lib/verdict.ts';
import { composite, contrast, parseColor } from '../../extension/lib/content/theme.ts';

// `chrome` exists only inside the extension's service worker, where these callbacks run.
declare const chrome: any;

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The tab's state as the side panel and popup read it (extension session storage). */
async function tabState(stack: Stack, page: Page): Promise<any> {
  const tabId = await stack.tabIdOf(page);
  return stack.serviceWorker.evaluate(async (id) => (await chrome.storage.session.get(`tab-${id}`))[`tab-${id}`], tabId);
}

/** The line boxes of a sentence in the contenteditable editor. */
function sentenceRects(page: Page, sentence: string): Promise<Box[]> {
  return page.evaluate((sentence) => {
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
      const at = node.data.indexOf(sentence);
      if (at < 0) continue;
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + sentence.length);
      return [...range.getClientRects()].map((rect) => ({ x: rect.x, y: rect.y, width: rect.width, height: rect.height }));
    }
    return [];
  }, sentence);
}

async function cardBox(page: Page): Promise<Box> {
  return (await page.locator('redline-card .card').boundingBox())!;
}

const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

async function hoverSentence(page: Page, sentence: string): Promise<Box[]> {
  const rects = await sentenceRects(page, sentence);
  await page.mouse.move(rects[0]!.x + 12, rects[0]!.y + rects[0]!.height / 2);
  await expect.poll(() => cardText(page)).toContain('Labelled AI by the detector');
  return rects;
}

async function checkEditor(page: Page, stack: Stack, url = 'plain.html'): Promise<void> {
  await page.goto(`${stack.pagesUrl}/${url}`);
  await page.locator('#editor').click();
  await stack.run(page, 'detector');
  await waitForToast(page, /2 sentences labelled AI/);
}

test('verdicts in words: the toast names the verdict, keeps "signals, not proof", and has a legend of the bands', async ({ page, stack }) => {
  await checkEditor(page, stack);
  const toast = await toastText(page);
  expect(toast).toMatch(/^(Mostly human-written|Mixed|Mostly AI-like): (\d+%|under 1%|over 99%) of the text is in sentences labelled AI/);
  expect(toast).toContain(SIGNALS_NOT_PROOF);
  expect(toast).not.toContain('of the characters');

  const toggle = page.locator('redline-toast').getByRole('button', { name: 'What the colours mean' });
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  const legend = page.locator('redline-toast').getByRole('list', { name: 'What the highlights mean' }).getByRole('listitem');
  await expect(legend).toHaveCount(SCORE_BANDS.length + 1);
  await expect(legend.nth(0)).toContainText('Somewhat AI-like: labelled AI, scores 0.50 to 0.69');
  await expect(legend.nth(2)).toContainText('Very AI-like: labelled AI, scores 0.85 to 1');

  // The card names the band of its sentence, with the same words as the legend.
  await hoverSentence(page, AI_SENTENCES[1]!);
  expect(await cardText(page)).toMatch(/(Somewhat AI-like|AI-like|Very AI-like)Labelled AI by the detector\. Score 0\.\d\d of 1 \(this colour: scores 0\.\d\d to [\d.]+\)/);
  await page.locator('redline-card').getByRole('button', { name: 'What the colours mean' }).click();
  await expect(page.locator('redline-card').getByRole('listitem')).toHaveCount(SCORE_BANDS.length + 1);
});

test('the card is placed below or above the sentence, never over it, and stays reachable by the pointer', async ({ page, stack }) => {
  await checkEditor(page, stack);
  const rects = await hoverSentence(page, AI_SENTENCES[1]!);
  let card = await cardBox(page);
  for (const rect of rects) expect(overlaps(card, rect)).toBe(false);
  expect(card.y).toBeGreaterThan(Math.max(...rects.map((rect) => rect.y + rect.height)) - 1); // below

  // The pointer can travel onto the card and use it.
  await page.mouse.move(card.x + 20, card.y + 10, { steps: 4 });
  await expect(page.locator('redline-card .card')).toBeVisible();

  // Near the bottom of the viewport it flips above the sentence.
  await page.mouse.move(5, 5);
  await expect.poll(() => cardText(page)).toBe('');
  await page.setViewportSize({ width: 1000, height: 500 });
  await page.evaluate(() => {
    document.body.style.paddingTop = '1000px';
    document.body.style.paddingBottom = '1000px';
  });
  await page.evaluate((sentence) => {
    const node = [...document.querySelectorAll('#editor p')].map((p) => p.firstChild as Text).find((text) => text.data.includes(sentence))!;
    const range = document.createRange();
    range.setStart(node, node.data.indexOf(sentence));
    range.setEnd(node, node.data.indexOf(sentence) + sentence.length);
    const rect = range.getBoundingClientRect();
    scrollBy(0, rect.bottom - innerHeight + 20);
  }, AI_SENTENCES[1]!);
  const low = await hoverSentence(page, AI_SENTENCES[1]!);
  card = await cardBox(page);
  for (const rect of low) expect(overlaps(card, rect)).toBe(false);
  expect(card.y + card.height).toBeLessThanOrEqual(Math.min(...low.map((rect) => rect.y)) + 1); // above
  expect(card.y).toBeGreaterThanOrEqual(0);

  // A card in use follows its sentence when the page scrolls.
  await page.locator('redline-card').getByRole('button', { name: 'What the colours mean' }).click();
  await page.evaluate(() => scrollBy(0, 150));
  const moved = await sentenceRects(page, AI_SENTENCES[1]!);
  expect(moved[0]!.y).toBeLessThan(low[0]!.y - 100);
  const top = Math.min(...moved.map((rect) => rect.y));
  await expect.poll(async () => { const box = await cardBox(page); return box.y + box.height; }).toBeLessThanOrEqual(top + 1);
  for (const rect of moved) expect(overlaps(await cardBox(page), rect)).toBe(false);
});

test('Rewrite this sentence: only the sentence is humanized, reviewed as a word diff in the card, and accepted through the verified apply', async ({ page, stack }) => {
  await checkEditor(page, stack);
  const before = await page.evaluate(() => (document.querySelector('#editor') as HTMLElement).innerText);
  const humanized = async () => ((await fetch(`${stack.doubleUrl}/__control/received`).then((response) => response.json())) as { product: string }[]).filter((entry) => entry.product === 'humanizer').length;
  const sent = await humanized();

  await hoverSentence(page, AI_SENTENCES[0]!);
  const card = page.locator('redline-card');
  await card.getByRole('button', { name: 'Rewrite this sentence' }).click();
  const suggestion = card.locator('.suggestion');
  await expect(suggestion).toBeVisible();
  await expect(suggestion.locator('ins').first()).toBeVisible();
  await expect(suggestion.locator('del').first()).toBeVisible();
  expect(await humanized()).toBe(sent + 1);
  const rewrite = (await suggestion.evaluate((box) => [...box.childNodes].filter((node) => (node as Element).localName !== 'del').map((node) => node.textContent).join(''))).trim();
  expect(rewrite).not.toBe(AI_SENTENCES[0]);
  // A sentence's rewrite is not the tab's rewrite review.
  expect((await tabState(stack, page)).checks.humanizer).toBeUndefined();

  // The card covers nothing while the pointer goes elsewhere: it stays in use until closed.
  await page.mouse.move(5, 5);
  await expect(suggestion).toBeVisible();
  await card.getByRole('button', { name: 'Accept' }).click();
  await waitForToast(page, /Sentence replaced with the rewrite/);
  const after = await page.evaluate(() => (document.querySelector('#editor') as HTMLElement).innerText);
  expect(after).toBe(before.replace(AI_SENTENCES[0]!, rewrite));
  expect(await highlightedTexts(page)).toEqual([AI_SENTENCES[1]]);

  await page.locator('#editor').focus();
  await page.keyboard.press('Control+z');
  await expect.poll(() => page.evaluate(() => (document.querySelector('#editor') as HTMLElement).innerText)).toBe(before);
});

test('Reject keeps the sentence; the card closes with its close button', async ({ page, stack }) => {
  await checkEditor(page, stack);
  const before = await page.evaluate(() => (document.querySelector('#editor') as HTMLElement).innerText);
  await hoverSentence(page, AI_SENTENCES[1]!);
  const card = page.locator('redline-card');
  await card.getByRole('button', { name: 'Rewrite this sentence' }).click();
  await card.getByRole('button', { name: 'Reject' }).click();
  await expect(card.locator('.status')).toHaveText('Rejected: the sentence stays as it is.');
  await card.getByRole('button', { name: 'Close' }).click();
  await expect.poll(() => cardText(page)).toBe('');
  expect(await page.evaluate(() => (document.querySelector('#editor') as HTMLElement).innerText)).toBe(before);
});

test('Ignore: the highlight goes, the count follows, and the choice is remembered for this document', async ({ page, stack }) => {
  await checkEditor(page, stack);
  await hoverSentence(page, AI_SENTENCES[0]!);
  await page.locator('redline-card').getByRole('button', { name: 'Ignore' }).click();
  await waitForToast(page, /Ignored on this page/);
  expect(await highlightedTexts(page)).toEqual([AI_SENTENCES[1]]);
  const ignoredIndex = (await tabState(stack, page)).checks.detector.ignored;
  expect(ignoredIndex).toHaveLength(1);
  const panel = await stack.openSidePanel(page);
  await expect(panel.locator(`[data-product="detector"][data-index="${ignoredIndex[0]}"]`)).toContainText('(ignored on this page)');
  await panel.close();

  // Undo brings it back; ignoring again sticks.
  await page.locator('redline-toast').getByRole('button', { name: 'Undo' }).click();
  await expect.poll(() => highlightedTexts(page)).toEqual(AI_SENTENCES);
  await expect.poll(async () => (await tabState(stack, page)).checks.detector.ignored).toEqual([]);
  await hoverSentence(page, AI_SENTENCES[0]!);
  await page.locator('redline-card').getByRole('button', { name: 'Ignore' }).click();
  await waitForToast(page, /Ignored on this page/);

  // Checked again after a reload: still left out, and said so.
  await page.reload();
  await page.locator('#editor').click();
  await stack.run(page, 'detector');
  const toast = await waitForToast(page, /1 sentence labelled AI is highlighted · 1 ignored on this page/);
  expect(toast).toContain('labelled AI');
  expect(await highlightedTexts(page)).toEqual([AI_SENTENCES[1]]);
  expect((await tabState(stack, page)).checks.detector.ignored).toEqual(ignoredIndex);

  // Nothing but a hash of the sentence is kept.
  const stored = await stack.serviceWorker.evaluate(async () => JSON.stringify(await chrome.storage.local.get('ignoredSentences')));
  expect(stored).not.toContain('digital landscape');
  await stack.serviceWorker.evaluate(() => chrome.storage.local.remove('ignoredSentences'));
});

test('Show in panel asks the side panel for that item', async ({ page, stack }) => {
  await checkEditor(page, stack);
  await hoverSentence(page, AI_SENTENCES[1]!);
  const index = (await tabState(stack, page)).checks.detector.response.result.data.details.chunks.findIndex((chunk: { text: string }) => chunk.text === AI_SENTENCES[1]);
  await page.locator('redline-card').getByRole('button', { name: 'Show in panel' }).click();
  await expect.poll(async () => (await tabState(stack, page)).focus).toMatchObject({ product: 'detector', index });
  // The panel scrolls to that item and puts the focus on it.
  const panel = await stack.openSidePanel(page);
  const item = panel.locator(`[data-product="detector"][data-index="${index}"]`);
  await expect(item).toHaveClass(/focused/);
  await expect(item.locator('button')).toBeFocused();
  await expect(item).toContainText(AI_SENTENCES[1]!);
  await panel.close();
});

test('keyboard: the caret opens the card, Alt+Enter goes into it, Tab goes round, Escape returns to the text', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const field = page.locator('#field');
  await field.click();
  await stack.run(page, 'detector');
  await waitForToast(page, /2 sentences labelled AI/);
  const inside = (await field.inputValue()).indexOf('Moreover') + 5;
  await field.evaluate((element: HTMLTextAreaElement, at) => element.setSelectionRange(at, at), inside);
  await page.keyboard.press('ArrowRight');
  await expect.poll(() => cardText(page)).toContain('Alt+Enter: act on this sentence');

  const focused = () => page.evaluate(() => document.querySelector('redline-card')?.shadowRoot?.activeElement?.textContent ?? `outside: ${document.activeElement?.id}`);
  await page.keyboard.press('Alt+Enter');
  expect(await focused()).toBe('Rewrite this sentence');
  expect(await field.inputValue()).not.toContain('\n\n\n'); // Alt+Enter did not type into the field
  await page.keyboard.press('Tab');
  expect(await focused()).toBe('Ignore');
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Shift+Tab');
  expect(await focused()).toBe('×'); // round to the last... the close button comes first in the card
  await page.keyboard.press('Escape');
  expect(await focused()).toBe('outside: field');
  expect(await field.evaluate((element: HTMLTextAreaElement) => element.selectionStart)).toBe(inside + 1);
  await expect.poll(() => cardText(page)).toBe('');

  // Closed stays closed while the caret rests in that sentence; Alt+Enter opens it again.
  await page.keyboard.press('ArrowRight');
  await page.waitForTimeout(300);
  expect(await cardText(page)).toBe('');
  // The whole action by keyboard: Ignore.
  await page.keyboard.press('Alt+Enter');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await waitForToast(page, /Ignored on this page/);
  expect(await overlayMarks(page)).toEqual([AI_SENTENCES[0]]);
  expect(await focused()).toBe('outside: field');
  await stack.serviceWorker.evaluate(() => chrome.storage.local.remove('ignoredSentences'));
});

test('Check this page: a long article\'s main text (Readability, loaded on demand) is checked and highlighted without changing the page', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/article.html`);
  const html = await page.evaluate(() => document.body.innerHTML);
  // The popup's way in: a message naming the tab (the command and the context menu call the same function).
  const popup = await stack.context.newPage();
  await popup.goto(`chrome-extension://${stack.extensionId}/popup.html`);
  const tabId = await stack.tabIdOf(page);
  await popup.evaluate((tabId) => chrome.runtime.sendMessage({ type: 'check-page', tabId }), tabId);
  await popup.close();

  const confirm = await waitForToast(page, /Check the main text of “Five founding texts, read again”/);
  const words = Number(/\(([\d,]+) words\)/.exec(confirm)![1]!.replace(/,/g, ''));
  expect(words).toBeGreaterThan(3500);
  await page.locator('redline-toast').getByRole('button', { name: 'Check' }).click();
  const toast = await waitForToast(page, /Checked the main text/);
  expect(toast).toContain(`Checked the main text of “${ARTICLE_TITLE}” (${words.toLocaleString('en-US')} words)`);
  expect(toast).toMatch(/(Mostly human-written|Mixed|Mostly AI-like): /);

  const state = await tabState(stack, page);
  const check = state.checks.detector;
  expect(check).toMatchObject({ status: 'done', scope: 'page', title: ARTICLE_TITLE, words });
  expect(countWords(check.text)).toBe(words);
  expect(check.text.startsWith(EDITOR_NOTE)).toBe(true);
  for (const section of SECTIONS) for (const paragraph of section.paragraphs) expect(check.text).toContain(paragraph);
  for (const chrome of Object.values(CHROME_TEXTS)) expect(check.text).not.toContain(chrome.slice(0, 30));
  expect(check.text).not.toContain('By the Reading Room editors');

  // Highlights are on the page's own text, exactly the sentences the detector labelled AI.
  const labelled = check.response.result.data.details.chunks.filter((chunk: { type: string }) => chunk.type === 'AI').map((chunk: { text: string }) => chunk.text);
  expect(labelled).toEqual(expect.arrayContaining(AI_SENTENCES));
  const drawn = await highlightedTexts(page);
  expect(drawn.length).toBeGreaterThan(0);
  for (const text of drawn) expect(labelled).toContain(text);
  expect(drawn).toContain(AI_SENTENCES[0]);
  expect(await page.evaluate(() => document.body.innerHTML)).toBe(html);

  // The page cannot find the on-demand files under the extension's fixed id (fingerprinting),
  // though the content script has just loaded one of them through its per-session URL.
  const probe = (url: string) => page.evaluate((url) => fetch(url).then((response) => response.status, () => 'refused'), url);
  for (const file of ['article.js', 'word-diff.js', 'apply.js']) expect(await probe(`chrome-extension://${stack.extensionId}/${file}`)).toBe('refused');

  // Its card works on a page that is read, not edited: the rewrite can be copied, not accepted.
  await page.setViewportSize({ width: 1100, height: 720 });
  await page.locator('redline-toast').getByRole('button', { name: 'What the colours mean' }).click();
  await hoverSentence(page, AI_SENTENCES[0]!);
  // The README's picture of the page with highlights, the card and the legend (docs/page-review.png).
  await expect.poll(() => page.locator('redline-card .card').evaluate((card) => getComputedStyle(card).opacity)).toBe('1');
  await page.screenshot({ path: 'test-results/page-review.png' });
  await page.locator('redline-card').getByRole('button', { name: 'Rewrite this sentence' }).click();
  await expect(page.locator('redline-card .suggestion')).toBeVisible();
  await expect(page.locator('redline-card').getByRole('button', { name: 'Copy' })).toBeVisible();
  await expect(page.locator('redline-card').getByRole('button', { name: 'Accept' })).toHaveCount(0);
});

test('keyboard on a page that is read: a sentence revealed from the side panel opens its card, and Alt+Enter goes into it', async ({ page, stack }) => {
  await stack.configure({ confirmAboveWords: 100_000 });
  await page.goto(`${stack.pagesUrl}/article.html`);
  await stack.serviceWorker.evaluate((tabId) => (globalThis as any).redlineCheckPageInTab(tabId), await stack.tabIdOf(page));
  await waitForToast(page, /Checked the main text/);
  const panel = await stack.openSidePanel(page);
  await panel.getByTestId('flagged-sentences').getByRole('button').first().click();
  await panel.close();
  await page.bringToFront();
  await expect.poll(() => cardText(page)).toContain('Alt+Enter: act on this sentence');
  await page.keyboard.press('Alt+Enter');
  expect(await page.evaluate(() => document.querySelector('redline-card')?.shadowRoot?.activeElement?.textContent)).toBe('Rewrite this sentence');
  await page.keyboard.press('Escape');
  await expect.poll(() => cardText(page)).toBe('');
  await stack.configure({ confirmAboveWords: 2000 });
});

test('a page with no main text to find says so', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/unreachable.html`);
  await stack.serviceWorker.evaluate((tabId) => (globalThis as any).redlineCheckPageInTab(tabId), await stack.tabIdOf(page));
  await waitForToast(page, /could not find the main text of this page/);
});

test('themes: dark pages get the dark highlight colours, the card follows the colour scheme and reduced motion', async ({ page, stack }) => {
  await checkEditor(page, stack, 'dark.html');
  const rules = await page.evaluate(() => [...document.adoptedStyleSheets].flatMap((sheet) => [...sheet.cssRules].map((rule) => rule.cssText)).join('\n'));
  const text = parseColor(await page.locator('#editor').evaluate((element) => getComputedStyle(element).color))!;
  const background = parseColor('#121212')!;
  const rgb = (hex: string) => `rgb(${parseColor(hex)!.slice(0, 3).join(', ')})`;
  for (const band of SCORE_BANDS) {
    expect(rules).toContain(rgb(band.underline.dark));
    // The page's own light text stays readable over the tint.
    expect(contrast(text, composite(parseColor(band.dark)!, background))).toBeGreaterThanOrEqual(4.5);
  }
  expect(rules).not.toContain(rgb(SCORE_BANDS[2].underline.light));

  await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
  await hoverSentence(page, AI_SENTENCES[1]!);
  const card = page.locator('redline-card .card');
  expect(await card.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe('rgb(31, 31, 36)');
  expect(await card.evaluate((element) => getComputedStyle(element).transitionDuration)).toBe('0s');
  await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });
  expect(await card.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe('rgb(255, 255, 255)');
  expect(await card.evaluate((element) => getComputedStyle(element).transitionDuration)).not.toBe('0s');
});

for (const colorScheme of ['light', 'dark'] as const) {
  test(`axe: no serious or critical violations with the card and legend open (${colorScheme})`, async ({ page, stack }) => {
    await page.emulateMedia({ colorScheme });
    await checkEditor(page, stack);
    await page.locator('redline-toast').getByRole('button', { name: 'What the colours mean' }).click();
    await hoverSentence(page, AI_SENTENCES[1]!);
    await page.locator('redline-card').getByRole('button', { name: 'What the colours mean' }).click();
    await page.locator('redline-card').getByRole('button', { name: 'Rewrite this sentence' }).click();
    await expect(page.locator('redline-card .suggestion')).toBeVisible();
    const results = await new AxeBuilder({ page }).analyze();
    const severe = results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
    expect(severe.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`)).toEqual([]);
    // axe looked inside the card's shadow root.
    expect(JSON.stringify(results.passes)).toContain('redline-card');
  });
}
