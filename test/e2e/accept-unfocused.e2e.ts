import type { CDPSession, Page } from '@playwright/test';
import { test, expect, type Stack } from './fixtures.ts';
import { humanize as rewriteOffline, splitSentences } from '@redline/shared/analysis';
import { FORMATTED_TEXT, PAGE_TEXT } from './pages/text.ts';
import { waitForToast } from './page-probes.ts';
import { FORMATTED_EDITORS } from './pages/formatted-editors.ts';
import { frameToast, modelText, openFormatted } from './formatted-page.ts';

// In Chrome the side panel takes the window's focus from the page: the writer clicks Accept
// there, and the editor's page has no focus while the suggestion goes in. Playwright emulates
// focus for every page (each page thinks it has it), which hid this case from the other tests;
// here the emulation is off for the editor's page, and the panel is the page in front. Editors
// that follow the selection only while focused (Draft.js, Slate, Lexical) must still take the
// suggestion at the sentence, in their own model.
const SENTENCES = splitSentences(FORMATTED_TEXT).map((sentence) => sentence.text);
const REWRITTEN = splitSentences(rewriteOffline(FORMATTED_TEXT, 'huma_v2').humanized_text).map((sentence) => sentence.text);

/** The side panel in front, the page behind it without focus (its focus emulation off, and checked). */
async function openPanelOverUnfocusedPage(page: Page, stack: Stack): Promise<{ panel: Page; cdp: CDPSession }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: false });
  const panel = await stack.openSidePanel(page);
  await panel.bringToFront();
  await expect.poll(() => page.evaluate(() => document.hasFocus())).toBe(false);
  return { panel, cdp };
}

for (const editor of FORMATTED_EDITORS) {
  test(`${editor.name}: an accept from the panel while the editor's page has no focus goes into the editor's model`, async ({ page, stack }) => {
    const frame = await openFormatted(page, stack, editor);
    await frame.locator(editor.focus ?? editor.root).first().focus();
    const before = await modelText(page, frame, editor.root);
    expect(before).toContain(SENTENCES[0]);
    expect(before).toContain(SENTENCES[2]);

    await stack.configure({ defaultModel: 'huma_v2' });
    await stack.run(page, 'humanizer');
    await expect.poll(() => frameToast(frame), { timeout: 15_000 }).toMatch(/rewrite is ready: 2 suggestions/);

    const { panel, cdp } = await openPanelOverUnfocusedPage(page, stack);

    await panel.getByRole('button', { name: 'Accept all (2)' }).click();
    await expect(panel.getByTestId('decision')).toHaveText(['Accepted', 'Accepted'], { timeout: 30_000 });
    const expected = before.replace(SENTENCES[0]!, REWRITTEN[0]!).replace(SENTENCES[2]!, REWRITTEN[2]!);
    await expect.poll(() => modelText(page, frame, editor.root)).toBe(expected);
    await page.waitForTimeout(500);
    expect(await modelText(page, frame, editor.root)).toBe(expected);
    // The accept did not take the focus away from the panel the writer is working in.
    expect(await page.evaluate(() => document.hasFocus())).toBe(false);
    await panel.close();
    await cdp.detach();
  });
}

test("textarea: an accept from the panel while the page has no focus changes the field's value", async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const field = page.locator('#field');
  await field.click();
  const before = await field.inputValue();
  await stack.configure({ defaultModel: 'huma_v2' });
  await stack.run(page, 'humanizer');
  await waitForToast(page, /rewrite is ready: 2 suggestions/);

  const { panel, cdp } = await openPanelOverUnfocusedPage(page, stack);

  await panel.getByRole('button', { name: 'Accept all (2)' }).click();
  await expect(panel.getByTestId('decision')).toHaveText(['Accepted', 'Accepted'], { timeout: 30_000 });
  const sentences = splitSentences(PAGE_TEXT).map((sentence) => sentence.text);
  const rewritten = splitSentences(rewriteOffline(PAGE_TEXT, 'huma_v2').humanized_text).map((sentence) => sentence.text);
  const expected = sentences.reduce((text, sentence, i) => text.replace(sentence, rewritten[i]!), before);
  expect(expected).not.toBe(before);
  await expect.poll(() => field.inputValue()).toBe(expected);
  expect(await page.evaluate(() => document.hasFocus())).toBe(false);
  await panel.close();
  await cdp.detach();
});
