import type { Page } from 'puppeteer-core';
import { humanize, splitSentences } from '@redline/shared/analysis';
import { AI_SENTENCES, PAGE_TEXT } from '../pages/text.ts';
import { ARTICLE_TITLE } from '../pages/article-text.ts';
import { startBff } from '../backend.ts';
import { test, expect, type FirefoxStack } from './fixtures.ts';
import { cardText, highlightedTexts, overlayMarks, textOf, toastText, waitForToast } from './probes.ts';

// The same product checks as the Chromium suite, in Debian's Firefox ESR with the Firefox build.

const ORIGINAL = AI_SENTENCES[0]!;
// The double rewrites with the shared humanizer: the first suggestion is cognia's rewrite of the first sentence.
const SUGGESTION = splitSentences(humanize(PAGE_TEXT, 'cognia').humanized_text)[0]!.text;

async function open(tab: Page, firefox: FirefoxStack, name: string, focus: string): Promise<void> {
  await tab.goto(`${firefox.pagesUrl}/${name}.html`);
  await tab.bringToFront();
  await tab.waitForSelector(focus);
  await tab.click(focus);
}

test('textarea: the AI-labelled sentences are marked in a mirror over the field, the field untouched', async ({ tab, firefox }) => {
  await open(tab, firefox, 'plain', '#field');
  const before = await tab.$eval('#field', (field) => ({ value: (field as HTMLTextAreaElement).value, html: field.outerHTML }));

  await firefox.run(tab, 'detector');
  await waitForToast(tab, /2 sentences labelled AI/);
  expect(await overlayMarks(tab)).toEqual(AI_SENTENCES);
  expect(await toastText(tab)).toContain('signals, not proof');
  expect(await tab.$eval('#field', (field) => ({ value: (field as HTMLTextAreaElement).value, html: field.outerHTML }))).toEqual(before);

  const mark = await tab.evaluate(() => {
    const rect = document.querySelector('redline-overlay')!.shadowRoot!.querySelector('mark')!.getClientRects()[0]!;
    return { x: rect.x + 20, y: rect.y + rect.height / 2 };
  });
  await tab.mouse.move(mark.x, mark.y);
  await expect.poll(() => cardText(tab)).toMatch(/Labelled AI by the detector.*Score 0\.\d\d.*signals, not proof/);
});

test('Check this page: Readability comes in on demand, and the article is checked and highlighted without changing the page', async ({ tab, firefox }) => {
  await tab.goto(`${firefox.pagesUrl}/article.html`);
  await tab.bringToFront();
  const html = await tab.evaluate(() => document.body.innerHTML);
  await firefox.checkPage(tab);
  await waitForToast(tab, /Check the main text of/);
  await tab.evaluate(() => (document.querySelector('redline-toast')!.shadowRoot!.querySelector('button.primary') as HTMLButtonElement).click());
  const toast = await waitForToast(tab, /Checked the main text/);
  expect(toast).toContain(`Checked the main text of “${ARTICLE_TITLE}” (4,059 words)`);
  expect(await highlightedTexts(tab)).toEqual(expect.arrayContaining(AI_SENTENCES));
  expect(await tab.evaluate(() => document.body.innerHTML)).toBe(html);
});

test('contenteditable: CSS highlights cover exactly the AI-labelled sentences; the DOM is unchanged', async ({ tab, firefox }) => {
  await open(tab, firefox, 'plain', '#editor');
  const html = await tab.$eval('#editor', (editor) => editor.innerHTML);
  await firefox.run(tab, 'detector');
  await waitForToast(tab, /2 sentences labelled AI/);
  expect(await highlightedTexts(tab)).toEqual(AI_SENTENCES);
  expect(await tab.$eval('#editor', (editor) => editor.innerHTML)).toBe(html);
});

test('Tiptap: CSS highlights cover exactly the AI-labelled sentences; the editor model is unchanged', async ({ tab, firefox }) => {
  await open(tab, firefox, 'tiptap', '.ProseMirror');
  const text = () => tab.evaluate(() => (window as unknown as { editorText(): string }).editorText());
  const before = await text();
  await firefox.run(tab, 'detector');
  await waitForToast(tab, /2 sentences labelled AI/);
  expect(await highlightedTexts(tab)).toEqual(AI_SENTENCES);
  expect(await text()).toBe(before);
});

test("the sidebar explains the result, lists the flagged sentences, and one click selects a sentence in the page", async ({ tab, firefox }) => {
  await open(tab, firefox, 'plain', '#editor');
  await firefox.run(tab, 'detector');
  await waitForToast(tab, /labelled AI/);

  const sidebar = await firefox.openSidebar(tab);
  await sidebar.waitForSelector('[data-testid=ai-percentage]');
  expect(await textOf(sidebar, '[data-testid=ai-percentage]')).toMatch(/^\d+(\.\d+)?%$/);
  expect(await textOf(sidebar, 'body')).toContain('not an average of the sentence scores');
  const items = await sidebar.$$('[data-testid=flagged-sentences] button');
  expect(items).toHaveLength(2);
  expect(await items[1]!.evaluate((button) => button.textContent)).toContain(AI_SENTENCES[1]);
  await items[1]!.click();
  await expect.poll(() => tab.evaluate(() => getSelection()?.toString())).toBe(AI_SENTENCES[1]);
  await sidebar.close();
});

const EDITORS = [
  { name: 'textarea', page: 'plain', focus: '#field', text: () => (document.querySelector('#field') as HTMLTextAreaElement).value },
  { name: 'Tiptap', page: 'tiptap', focus: '.ProseMirror', text: () => (window as unknown as { editorText(): string }).editorText() },
];

for (const editor of EDITORS) {
  test(`${editor.name}: a rewrite accepted from the sidebar goes into the editor, and undo restores the original`, async ({ tab, firefox }) => {
    await open(tab, firefox, editor.page, editor.focus);
    const before = await tab.evaluate(editor.text);
    expect(before).toContain(ORIGINAL);

    await firefox.configure({ defaultModel: 'cognia' });
    await firefox.run(tab, 'humanizer');
    await waitForToast(tab, /rewrite is ready: 2 suggestions/);
    const sidebar = await firefox.openSidebar(tab);
    const first = '[data-testid=suggestions] li.suggestion:first-of-type';
    await sidebar.waitForSelector(first);
    expect(await sidebar.$eval(first, (item) => item.querySelector('ins') !== null)).toBe(true); // the word-level diff
    expect(await textOf(sidebar, first)).toContain(SUGGESTION.split(' ')[0]!);
    await sidebar.locator(`${first} ::-p-aria([name="Accept"][role="button"])`).click();
    // The sidebar is opened here as a tab, which hides the page; a real sidebar sits beside a
    // visible page. A hidden page runs no animation frames, and a rich editor's apply waits
    // for one, so the page comes back to the front as it would be.
    await tab.bringToFront();
    await expect.poll(() => textOf(sidebar, `${first} [data-testid=decision]`)).toBe('Accepted');
    await expect.poll(() => tab.evaluate(editor.text)).toBe(before.replace(ORIGINAL, SUGGESTION));

    await tab.bringToFront();
    await tab.focus(editor.focus);
    await tab.keyboard.down('Control');
    await tab.keyboard.press('z');
    await tab.keyboard.up('Control');
    await expect.poll(() => tab.evaluate(editor.text)).toBe(before);
    await sidebar.close();
  });
}

test('options: shows the origin the BFF must allow, and the connection works with it allowed', async ({ firefox }) => {
  const options = await firefox.openExtensionPage('options.html');
  await options.waitForSelector('[data-testid=origin]');
  expect(await textOf(options, '[data-testid=origin]')).toBe(`BFF_ALLOWED_ORIGINS=${firefox.origin}`);
  expect(await textOf(options, '[data-testid=origin-note]')).toContain('Firefox picks this origin for each profile');

  await options.locator('#token').fill(firefox.token);
  await options.locator('#bff-url').fill(firefox.bffUrl);
  await options.locator('::-p-text(Test connection)').click();
  await expect.poll(() => textOf(options, '[data-testid=test-result]')).toMatch(/Connected as e2e/);
  await options.locator('::-p-text(Save)').click();
  await expect.poll(() => textOf(options, 'body')).toContain('Saved.');
  await options.close();
});

test('options: a BFF that does not allow this origin is named as such, with the value to add', async ({ firefox }) => {
  // A BFF as `npm start` runs it: it allows only the Chrome build by default.
  const bff = await startBff({});
  try {
    const options = await firefox.openExtensionPage('options.html');
    await options.waitForSelector('#token');
    await options.locator('#token').fill(bff.addMember('firefox-user'));
    await options.locator('#bff-url').fill(bff.url);
    await options.locator('::-p-text(Test connection)').click();
    // Firefox skips CORS for the add-on (it has host access) and sends its Origin on POST: the
    // BFF's own refusal comes through, naming the origin.
    await expect
      .poll(() => textOf(options, '[data-testid=test-result]'))
      .toBe(`Origin ${firefox.origin} is not allowed. Add the extension's exact origin to BFF_ALLOWED_ORIGINS.`);
    await options.close();
  } finally {
    await bff.stop();
  }
});
