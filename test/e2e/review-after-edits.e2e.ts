import type { Page } from '@playwright/test';
import { test, expect } from './fixtures.ts';
import { waitForToast } from './page-probes.ts';

// The review after the writer's own edits in the page. They take an accepted suggestion back
// with the editor's own undo (Ctrl+Z), as the panel's note tells them to: the panel no longer
// says "Accepted" and the suggestion can be accepted again. They change what is around a
// suggestion (delete the full stop before it): the suggestion no longer fits and is withdrawn.
const EDITORS = [
  { name: 'textarea', page: 'plain', root: '#field', read: (page: Page) => page.locator('#field').inputValue() },
  { name: 'Tiptap', page: 'tiptap', root: '.ProseMirror', read: (page: Page) => page.evaluate(() => (window as unknown as { editorText(): string }).editorText()) },
];

for (const editor of EDITORS) {
  test(`${editor.name}: an accept undone in the editor is pending again in the panel and its export`, async ({ page, stack }) => {
    await page.goto(`${stack.pagesUrl}/${editor.page}.html`);
    await page.locator(editor.root).click();
    const before = await editor.read(page);
    await stack.configure({ defaultModel: 'cognia' });
    await stack.run(page, 'humanizer');
    await waitForToast(page, /rewrite is ready: 2 suggestions/);
    const panel = await stack.openSidePanel(page);
    const first = panel.getByTestId('suggestions').locator('li.suggestion').first();

    await first.getByRole('button', { name: 'Accept', exact: true }).click();
    await expect(first.getByTestId('decision')).toHaveText('Accepted');
    const accepted = await editor.read(page);
    expect(accepted).not.toBe(before);

    await page.bringToFront();
    await page.locator(editor.root).focus();
    await page.keyboard.press('Control+z');
    await expect.poll(() => editor.read(page)).toBe(before);
    await expect(first.getByTestId('decision')).toHaveCount(0, { timeout: 10_000 });
    await expect(first.getByTestId('apply-problem')).toContainText('Undone in the editor');
    const listed = await panel.evaluate(() => document.querySelector('[data-testid=suggestions]')?.textContent ?? '');
    expect(listed).not.toContain('Accepted');

    // Accepted again: it stays accepted (a later reload of the panel's state does not undo it).
    await first.getByRole('button', { name: 'Accept', exact: true }).click();
    await expect(first.getByTestId('decision')).toHaveText('Accepted');
    await expect.poll(() => editor.read(page)).toBe(accepted);
    await page.waitForTimeout(1500);
    await expect(first.getByTestId('decision')).toHaveText('Accepted');
    await panel.close();
  });
}

test('textarea: Accept all undone with one Ctrl+Z puts every suggestion back to pending', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const field = page.locator('#field');
  await field.click();
  const before = await field.inputValue();
  await stack.configure({ defaultModel: 'cognia' });
  await stack.run(page, 'humanizer');
  await waitForToast(page, /rewrite is ready: 2 suggestions/);
  const panel = await stack.openSidePanel(page);
  await panel.getByRole('button', { name: 'Accept all (2)' }).click();
  await expect(panel.getByTestId('decision')).toHaveText(['Accepted', 'Accepted'], { timeout: 20_000 });
  await page.bringToFront();
  await field.focus();
  await page.keyboard.press('Control+z');
  await expect.poll(() => field.inputValue()).toBe(before);
  await expect(panel.getByTestId('decision')).toHaveCount(0, { timeout: 10_000 });
  await expect(panel.getByRole('button', { name: 'Accept all (2)' })).toBeVisible();
  await panel.close();
});

test('textarea: a suggestion whose sentence the writer joined to the one before (full stop deleted) is withdrawn, not applied mid-sentence', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const field = page.locator('#field');
  await field.click();
  const before = await field.inputValue();
  await stack.configure({ defaultModel: 'cognia' });
  await stack.run(page, 'humanizer');
  await waitForToast(page, /rewrite is ready: 2 suggestions/);
  const panel = await stack.openSidePanel(page);
  // The full stop and space before the last sentence ("… kinda closed. Moreover, …") go.
  const at = before.indexOf('. Moreover');
  expect(at).toBeGreaterThan(0);
  await page.bringToFront();
  await field.evaluate((element: HTMLTextAreaElement, end) => element.setSelectionRange(end, end), at + 2);
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Backspace');
  const joined = await field.inputValue();
  expect(joined).toContain('kinda closedMoreover');
  await panel.getByRole('button', { name: /Accept all/ }).click();
  const second = panel.getByTestId('suggestions').locator('li.suggestion').nth(1);
  await expect(second.getByTestId('decision')).toHaveText(/Withdrawn/, { timeout: 20_000 });
  expect(await field.inputValue()).toContain('kinda closedMoreover');
  await panel.close();
});
