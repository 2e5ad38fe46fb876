import { execFileSync } from 'node:child_process';
import type { Page } from 'puppeteer-core';
import { humanize, splitSentences } from '@redline/shared/analysis';
import { AI_SENTENCES, PAGE_TEXT } from '../pages/text.ts';
import { ARTICLE_TITLE } from '../pages/article-text.ts';
import { startBff } from '../backend.ts';
import { test, expect, type FirefoxStack } from './fixtures.ts';
import { cardText, highlightedTexts, overlayMarks, textOf, toastText, waitForToast } from '../page-probes.ts';

// The same product checks as the Chromium suite, in Debian's Firefox ESR with the Firefox build.

// `browser` exists only in the add-on's pages, where these callbacks run.
declare const browser: any;

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
  // A real click: one made by the page's own script is not the writer's, and does nothing.
  const check = await tab.evaluateHandle(() => document.querySelector('redline-toast')!.shadowRoot!.querySelector('button.primary') as HTMLButtonElement);
  await check.click();
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

const modelText = () => (window as unknown as { editorText(): string }).editorText();
const clickIn = (selector: string) => (tab: Page) => tab.click(selector);

const EDITORS: { name: string; page: string; ready: string; focus(tab: Page): Promise<void>; text(): string }[] = [
  { name: 'textarea', page: 'plain', ready: '#field', focus: clickIn('#field'), text: () => (document.querySelector('#field') as HTMLTextAreaElement).value },
  { name: 'Tiptap', page: 'tiptap', ready: '.ProseMirror', focus: clickIn('.ProseMirror'), text: modelText },
  { name: 'Slate', page: 'slate', ready: '[data-slate-editor]', focus: clickIn('[data-slate-editor]'), text: modelText },
  // Firefox has no EditContext: Monaco's input is its hidden textarea; the model is reached through its global.
  { name: 'Monaco', page: 'monaco', ready: '.monaco-editor .view-lines', focus: clickIn('.monaco-editor .view-lines'), text: modelText },
];

for (const editor of EDITORS) {
  test(`${editor.name}: a rewrite accepted from the sidebar goes into the editor, and undo restores the original`, async ({ tab, firefox }) => {
    await tab.goto(`${firefox.pagesUrl}/${editor.page}.html`);
    await tab.bringToFront();
    await tab.waitForSelector(editor.ready);
    await editor.focus(tab);
    // The check reads the focused field: the click must have focused it first (Monaco takes a
    // moment in Firefox; once a check ran before, and found nothing to check).
    await tab.waitForFunction(() => document.activeElement !== null && document.activeElement !== document.body, { timeout: 5_000 });
    const before = await tab.evaluate(editor.text);
    expect(before).toContain(ORIGINAL);

    await firefox.configure({ defaultModel: 'cognia' });
    await firefox.run(tab, 'humanizer');
    await waitForToast(tab, /rewrite is ready: 2 suggestions/);
    const sidebar = await firefox.openSidebar(tab);
    const first = '[data-testid=suggestions] li.suggestion:first-of-type';
    const accept = `${first} ::-p-aria([name="Accept"][role="button"])`;
    await sidebar.waitForSelector(first);
    expect(await sidebar.$eval(first, (item) => item.querySelector('ins') !== null)).toBe(true); // the word-level diff
    expect(await textOf(sidebar, first)).toContain(SUGGESTION.split(' ')[0]!);
    // The sidebar is opened here as a tab, which hides the page (a real sidebar sits beside a
    // visible one). Firefox still draws a hidden page's frames (throttled), so the accept goes in.
    expect(await tab.evaluate(() => document.visibilityState)).toBe('hidden');
    await sidebar.locator(accept).click();
    await expect.poll(() => textOf(sidebar, `${first} [data-testid=decision]`)).toBe('Accepted');
    await expect.poll(() => tab.evaluate(editor.text)).toBe(before.replace(ORIGINAL, SUGGESTION));

    await tab.bringToFront();
    await editor.focus(tab);
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

  await options.locator('summary').click(); // Advanced
  await options.locator('#token').fill(firefox.token);
  await options.locator('#bff-url').fill(firefox.bffUrl);
  await options.locator('::-p-text(Test connection)').click();
  await expect.poll(() => textOf(options, '[data-testid=test-result]')).toMatch(/Connected as e2e/);
  await options.locator('details button[type=submit]').click();
  await expect.poll(() => textOf(options, 'body')).toContain('Saved.');
  await options.close();
});

test('options: a BFF that does not allow this origin is named as such, with the value to add', async ({ firefox }) => {
  // A BFF as `npm start` runs it: it allows only the Chrome build by default.
  const bff = await startBff({});
  try {
    const options = await firefox.openExtensionPage('options.html');
    await options.waitForSelector('summary');
    await options.locator('summary').click(); // Advanced
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

test('sign in with a one-time extension link: the Firefox redirect URL registers, a check works, sign-out ends it', async ({ tab, firefox }) => {
  firefox.addMember('firefox-link');
  const output = execFileSync(process.execPath, ['--import', 'tsx', 'bff/src/cli.ts', 'extension-link', 'firefox-link'], {
    env: { ...process.env, BFF_DATA_DIR: firefox.dataDir, BFF_PORT: new URL(firefox.bffUrl).port },
    encoding: 'utf8',
  });
  const link = /(http:\/\/\S+\/connect#code=\S+)/.exec(output)![1]!;
  const options = await firefox.openExtensionPage('options.html');
  try {
    await options.waitForSelector('#sign-in-link');
    await options.locator('#sign-in-link').fill(link);
    await options.locator('form button[type=submit].primary').click();
    await expect.poll(() => textOf(options, '[data-testid=account]')).toBe(`Signed in as firefox-link at ${new URL(firefox.bffUrl).host}.`);
    // The client registered with Firefox's own redirect URL for the add-on.
    const redirect = await options.evaluate(() => browser.identity.getRedirectURL());
    expect(redirect).toMatch(/^https:\/\/[0-9a-f]+\.extensions\.allizom\.org\/$/);

    await open(tab, firefox, 'plain', '#field');
    await firefox.run(tab, 'detector');
    await waitForToast(tab, /2 sentences labelled AI/);

    await options.bringToFront();
    await options.locator('::-p-text(Sign out)').click();
    await expect.poll(() => textOf(options, '[data-testid=account-note]')).toBe('Signed out.');
    await tab.bringToFront();
    await firefox.run(tab, 'detector');
    await waitForToast(tab, /Sign in to your team's Redline server/);
  } finally {
    await options.close();
    await firefox.configure({ bffUrl: firefox.bffUrl });
  }
});
