import type { Page } from '@playwright/test';
import { test, expect } from './fixtures.ts';
import { humanize as rewriteOffline, splitSentences } from '@redline/shared/analysis';
import { highlightedTexts, waitForToast } from './page-probes.ts';
import { AI_SENTENCES, PAGE_TEXT } from './pages/text.ts';

// Editors beyond the README's ten, from npm: the panel may say "Accepted" only when the
// editor's own model (not its DOM) holds the suggestion; otherwise it must say it did not go in.
const ORIGINAL = AI_SENTENCES[0]!;
const SECOND_PARAGRAPH = 'A second paragraph, written by me on a Tuesday.';
const SUGGESTION = splitSentences(rewriteOffline(`${PAGE_TEXT}\n\n${SECOND_PARAGRAPH}`, 'cognia').humanized_text).map((s) => s.text)[0]!;

// `highlights`: whether the AI sentences are drawn in it. Ace draws its own lines over a hidden
// textarea; no highlight shows there yet (README, Editors), though accepting works.
// `undo`: whether the editor's own Ctrl+Z takes an accepted rewrite back (Editor.js has no
// history of its own; the browser's undo of its block is what a writer gets there).
const EDITORS = [
  { name: 'Trix', page: 'trix', root: 'trix-editor', highlights: true, undo: true },
  { name: 'Ace', page: 'ace', root: '.ace_text-input', highlights: false, undo: true },
  { name: 'Draft.js', page: 'draft', root: '.public-DraftEditor-content', highlights: true, undo: true },
  { name: 'Editor.js', page: 'editorjs', root: '.ce-paragraph >> nth=0', highlights: true, undo: true },
  // EasyMDE (CodeMirror 5): next commit.
  { name: 'Jodit', page: 'jodit', root: '.jodit-wysiwyg', highlights: true, undo: true },
];

/** The document as the editor's own model holds it (Editor.js reads it back asynchronously). */
const modelText = (page: Page) => page.evaluate(() => (window as unknown as { editorText(): string | Promise<string> }).editorText());

for (const editor of EDITORS) {
  test(`${editor.name}: check, highlights, and Accept is reported only when the model holds it`, async ({ page, stack }) => {
    await page.goto(`${stack.pagesUrl}/${editor.page}.html`);
    await expect.poll(() => page.evaluate(() => typeof (window as unknown as { editorText?: unknown }).editorText)).toBe('function');
    await page.locator(editor.root).focus();
    const before = await modelText(page);
    expect(before).toContain(ORIGINAL);

    await stack.run(page, 'detector');
    const toast = await waitForToast(page, /labelled AI|nothing|no text|cannot|can't/i);
    console.log(`${editor.name} detector toast: ${toast}`);
    console.log(`${editor.name} highlights: ${JSON.stringify(await highlightedTexts(page))}`);
    if (editor.highlights) {
      expect(toast).toContain('2 sentences labelled AI are highlighted');
      expect(await highlightedTexts(page)).toEqual(AI_SENTENCES);
    } else {
      // Nothing is drawn, and the toast does not claim otherwise.
      expect(toast).toContain('2 sentences labelled AI: this editor shows its text over a hidden field, so they cannot be highlighted here');
    }

    await stack.configure({ defaultModel: 'cognia' });
    await stack.run(page, 'humanizer');
    await waitForToast(page, /rewrite is ready/);
    const panel = await stack.openSidePanel(page);
    const first = panel.getByTestId('suggestions').locator('li.suggestion').first();
    await first.getByRole('button', { name: 'Accept', exact: true }).click();
    await expect(first.getByTestId('decision').or(first.getByTestId('apply-problem'))).toBeVisible({ timeout: 15_000 });
    const decided = await first.getByTestId('decision').count();
    console.log(`${editor.name}: ${decided ? await first.getByTestId('decision').innerText() : await first.getByTestId('apply-problem').innerText()}`);
    if (decided) {
      await expect(first.getByTestId('decision')).toHaveText('Accepted');
      await expect.poll(() => modelText(page)).toBe(before.replace(ORIGINAL, SUGGESTION));
      await page.bringToFront();
      if (editor.undo) {
        await page.locator(editor.root).focus();
        await page.keyboard.press('Control+z');
        await expect.poll(() => modelText(page)).toBe(before);
      }
    } else {
      expect(await modelText(page)).toBe(before);
    }
    await panel.close();
  });
}
