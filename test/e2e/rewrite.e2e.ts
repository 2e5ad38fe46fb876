import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { test, expect, type Stack } from './fixtures.ts';
import { cardText, highlightedTexts, waitForToast } from './page-probes.ts';

const ORIGINAL = "In today's fast-paced digital landscape, it is important to note that artificial intelligence plays a crucial role in fostering innovation.";
const SUGGESTION = 'Today, artificial intelligence is central to fostering innovation.';

// Each editor: how to focus it and read its own model's text.
const EDITORS = [
  { name: 'textarea', page: 'plain', focus: '#field', text: () => (document.querySelector('#field') as HTMLTextAreaElement).value },
  { name: 'contenteditable', page: 'plain', focus: '#editor', text: () => (document.querySelector('#editor') as HTMLElement).innerText },
  { name: 'tiptap', page: 'tiptap', focus: '.ProseMirror', text: () => (window as unknown as { editorText(): string }).editorText() },
  { name: 'codemirror', page: 'codemirror', focus: '.cm-content', text: () => (window as unknown as { editorText(): string }).editorText() },
  { name: 'quill', page: 'quill', focus: '.ql-editor', text: () => (window as unknown as { editorText(): string }).editorText() },
  { name: 'lexical', page: 'lexical', focus: '#editor', text: () => (window as unknown as { editorText(): string }).editorText() },
];

async function humanize(page: Page, stack: Stack, count: RegExp): Promise<Page> {
  await stack.configure({ defaultModel: 'cognia' });
  await stack.run(page, 'humanizer');
  await waitForToast(page, count);
  return stack.openSidePanel(page);
}

for (const editor of EDITORS) {
  test(`${editor.name}: an accepted sentence goes into the editor's model, and undo restores the original`, async ({ page, stack }) => {
    await page.goto(`${stack.pagesUrl}/${editor.page}.html`);
    await page.locator(editor.focus).click();
    const before = await page.evaluate(editor.text);
    expect(before).toContain(ORIGINAL);

    const panel = await humanize(page, stack, /rewrite is ready: 2 suggestions/);
    const first = panel.getByTestId('suggestions').locator('li.suggestion').first();
    await expect(first.locator('ins').first()).toBeVisible(); // the word-level diff
    await expect(first.locator('ins').first()).toContainText('Today');
    await first.getByRole('button', { name: 'Accept', exact: true }).click();
    await expect(first.getByTestId('decision')).toHaveText('Accepted');
    console.log(`strategy ${editor.name}: ${await first.getAttribute('data-strategy')}`);

    const expected = before.replace(ORIGINAL, SUGGESTION);
    await expect.poll(() => page.evaluate(editor.text)).toBe(expected);
    if (editor.name !== 'textarea') expect(await page.locator(editor.focus).innerText()).toContain(SUGGESTION);

    await page.bringToFront();
    await page.locator(editor.focus).focus();
    await page.keyboard.press('Control+z');
    await expect.poll(() => page.evaluate(editor.text)).toBe(before);
    await panel.close();
  });
}

test('a suggestion whose sentence changed since the rewrite is withdrawn, never applied elsewhere', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const field = page.locator('#field');
  await field.click();
  const panel = await humanize(page, stack, /2 suggestions/);
  await field.evaluate((element: HTMLTextAreaElement) => {
    const at = element.value.indexOf('fast-paced') + 'fast-paced'.length;
    element.setSelectionRange(at, at);
  });
  await page.keyboard.type(' very');
  const edited = await field.inputValue();
  const first = panel.getByTestId('suggestions').locator('li.suggestion').first();
  await expect(first.getByTestId('decision')).toHaveText(/Withdrawn/); // the page told the panel
  expect(await field.inputValue()).toBe(edited);
  const second = panel.getByTestId('suggestions').locator('li.suggestion').nth(1);
  await second.getByRole('button', { name: 'Accept', exact: true }).click();
  await expect(second.getByTestId('decision')).toHaveText('Accepted');
  expect(await field.inputValue()).toContain('must work through an ever-evolving');
  expect(await field.inputValue()).toContain('fast-paced very digital');
  await panel.close();
});

test('review aids flag a rewrite that changes a number and a link, and an edit re-checks them', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const field = page.locator('#field');
  await field.fill('Moreover, it is important to note that sales grew 25% in 2024 according to https://reports.example.com/q4 and the team.');
  await field.click();
  await fetch(`${stack.doubleUrl}/__control/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([{ fault: { kind: 'alter-facts' }, product: 'humanizer' }]),
  });
  const panel = await humanize(page, stack, /1 suggestion/);
  const flags = panel.getByTestId('flags');
  await expect(flags).toContainText('Link “https://reports.example.com/q4” is changed or dropped.');
  await expect(flags).toContainText('Number or date “25%” is changed or dropped.');
  await expect(flags).toContainText('Number or date “2024” is changed or dropped.');

  const suggestion = panel.getByTestId('suggestions').locator('li.suggestion').first();
  await suggestion.getByRole('button', { name: 'Edit' }).click();
  await suggestion.getByRole('textbox').fill('Note that sales grew 25% in 2024 according to https://reports.example.com/q4 and the team.');
  await expect(panel.getByTestId('flags')).toHaveCount(0);
  await suggestion.getByRole('button', { name: 'Accept edited' }).click();
  await expect.poll(() => field.inputValue()).toBe('Note that sales grew 25% in 2024 according to https://reports.example.com/q4 and the team.');
  await panel.close();
});

test('sources: distinct highlights, a card, links that open safely, and one exported review of everything', async ({ page, stack }) => {
  const copied = 'Photosynthesis is the process by which green plants use sunlight to make food from carbon dioxide and water.';
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const editor = page.locator('#editor');
  await editor.evaluate((element, text) => (element.innerHTML = `<p>${text}</p>`), `My neighbour keeps three goats. ${copied} Moreover, organizations must navigate the complexities of an ever-evolving technological paradigm.`);
  await editor.click();

  await stack.run(page, 'plagiarism');
  await waitForToast(page, /1 sentence with a similar source/);
  expect(await highlightedTexts(page, ['redline-source'])).toEqual([copied]);
  await stack.run(page, 'detector');
  await waitForToast(page, /labelled AI/);
  expect(await highlightedTexts(page, ['redline-source'])).toEqual([copied]); // both kinds stay
  expect((await highlightedTexts(page)).length).toBeGreaterThan(0);

  const box = await page.evaluate((sentence) => {
    const node = document.querySelector('#editor p')!.firstChild as Text;
    const range = document.createRange();
    const at = node.data.indexOf(sentence);
    range.setStart(node, at + 5);
    range.setEnd(node, at + 6);
    const rect = range.getBoundingClientRect();
    return { x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 };
  }, copied);
  await page.mouse.move(box.x, box.y);
  await expect.poll(() => cardText(page)).toMatch(/Similar source \(\d+% similar\).*encyclopedia\.example\.org/);

  await stack.configure({ defaultModel: 'cognia' });
  await stack.run(page, 'humanizer');
  await waitForToast(page, /rewrite is ready/);

  const panel = await stack.openSidePanel(page);
  await expect(panel.getByTestId('plagiarism-score')).toBeVisible();
  await expect(panel.getByText('No match is not proof of originality', { exact: false })).toBeVisible();
  const link = panel.getByTestId('source-matches').getByRole('link');
  await expect(link).toHaveAttribute('href', 'https://encyclopedia.example.org/photosynthesis');
  await expect(link).toHaveAttribute('target', '_blank');
  await expect(link).toHaveAttribute('rel', /noopener/);

  const suggestions = panel.getByTestId('suggestions').locator('li.suggestion');
  await suggestions.first().getByRole('button', { name: 'Reject' }).click();

  const [download] = await Promise.all([panel.waitForEvent('download'), panel.getByRole('button', { name: 'Export JSON' }).click()]);
  const report = JSON.parse(readFileSync((await download.path())!, 'utf8'));
  const flaggedInPanel = await panel.getByTestId('flagged-sentences').locator('.sentence').allInnerTexts();
  expect(report.offsets).toBe('unicode-code-points');
  expect(report.ai.flagged.map((item: { text: string }) => item.text)).toEqual(flaggedInPanel);
  for (const item of report.ai.flagged) expect([...report.ai.text].slice(item.start, item.end).join('')).toBe(item.text);
  expect(report.sources.matches).toEqual([
    expect.objectContaining({ sentence: copied, link: 'https://encyclopedia.example.org/photosynthesis', start: 32, end: 32 + copied.length }),
  ]);
  expect(report.rewrite.suggestions[0].decision).toBe('rejected');
  expect(report.rewrite.suggestions.length).toBe(await suggestions.count());

  const [html] = await Promise.all([panel.waitForEvent('download'), panel.getByRole('button', { name: 'Export HTML' }).click()]);
  const htmlText = readFileSync((await html.path())!, 'utf8');
  expect(htmlText).toContain(copied);
  expect(htmlText).toContain('rejected');
  await panel.close();
});

const SECOND_ORIGINAL = 'Moreover, organizations must navigate the complexities of an ever-evolving technological paradigm.';
const SECOND_SUGGESTION = 'Organizations must work through an ever-evolving technological paradigm.';

test('accept all in a textarea is one edit: a single undo restores the original', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const field = page.locator('#field');
  await field.click();
  const before = await field.inputValue();
  const panel = await humanize(page, stack, /2 suggestions/);
  await panel.getByRole('button', { name: 'Accept all (2)' }).click();
  await expect(panel.getByTestId('decision')).toHaveText(['Accepted', 'Accepted']);
  await expect.poll(() => field.inputValue()).toBe(before.replace(ORIGINAL, SUGGESTION).replace(SECOND_ORIGINAL, SECOND_SUGGESTION));
  await page.bringToFront();
  await field.focus();
  await page.keyboard.press('Control+z');
  await expect.poll(() => field.inputValue()).toBe(before);
  await panel.close();
});

test('accept all in a rich editor applies every suggestion to its model', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/tiptap.html`);
  await page.locator('.ProseMirror').click();
  const text = () => page.evaluate(() => (window as unknown as { editorText(): string }).editorText());
  const before = await text();
  const panel = await humanize(page, stack, /2 suggestions/);
  await panel.getByRole('button', { name: 'Accept all (2)' }).click();
  await expect(panel.getByTestId('decision')).toHaveText(['Accepted', 'Accepted']);
  await expect.poll(text).toBe(before.replace(ORIGINAL, SUGGESTION).replace(SECOND_ORIGINAL, SECOND_SUGGESTION));
  await panel.close();
});
