import { test, expect } from './fixtures.ts';
import { TYPED, modelText } from './outside-probe.ts';
import { humanize as rewriteOffline, splitSentences } from '@redline/shared/analysis';
import { highlightedTexts, overlayMarks, waitForToast } from './page-probes.ts';
import { AI_SENTENCES, PAGE_TEXT } from './pages/text.ts';

// Editors from npm the other suites do not cover, probed from outside (2026-11-28): a Lit 3 web
// component holding a textarea in its shadow root (its value a reactive property, re-rendered
// every 200 ms), Quill 2 mounted inside a shadow root, Remirror 3 (ProseMirror under its own
// manager, without React) and Yoopta-Editor 6 (a block editor on Slate, one Slate editor per
// block, one history of its own). One test each, to keep the suite's time: check, highlights,
// an accept read back in the editor's own value and Ctrl+Z right after it back to the text before,
// then a second accept and the writer's typing right after it. "Accepted" is held only with the
// value holding the suggestion. A third outside probe (2026-11-29) added a Svelte 5
// contenteditable bound with `bind:innerHTML`, a SolidJS textarea whose value is a signal
// (solid-js/html, no compiler), Froala Editor 5 (its own undo stack of HTML snapshots) and an
// Angular 21 textarea with `[(ngModel)]` (JIT-compiled in the page, zoneless): their values read
// back are the framework's state or the editor's API, not the DOM.

interface OutsideEditor {
  name: string;
  page: string;
  /** The editable element (Playwright's CSS locators pierce open shadow roots). */
  root: string;
  /** A textarea, whose highlights are the mirrored overlay's marks. */
  field?: true;
  /** The text the writer's typing follows after Ctrl+End (Yoopta: the end of the block in focus). */
  typedAfter: string;
}

const EDITORS: OutsideEditor[] = [
  { name: 'Lit component (textarea in its shadow root)', page: 'lit-field', root: 'draft-field textarea', field: true, typedAfter: 'Tuesday.' },
  { name: 'Quill 2 in a shadow root', page: 'quill-shadow', root: '#host .ql-editor', typedAfter: 'Tuesday.' },
  { name: 'Remirror', page: 'remirror', root: '.remirror-editor', typedAfter: 'Tuesday.' },
  { name: 'Yoopta-Editor', page: 'yoopta', root: '[data-yoopta-block-id="one"] [data-slate-editor]', typedAfter: 'paradigm.' },
  { name: 'Svelte 5 contenteditable (bind:innerHTML)', page: 'svelte-rich', root: '#rich', typedAfter: 'Tuesday.' },
  { name: 'SolidJS signal textarea', page: 'solid-field', root: '#field', field: true, typedAfter: 'Tuesday.' },
  { name: 'Froala Editor', page: 'froala', root: '.fr-element', typedAfter: 'Tuesday.' },
  { name: 'Angular [(ngModel)] textarea', page: 'angular-field', root: '#field', field: true, typedAfter: 'Tuesday.' },
];

const ORIGINAL = AI_SENTENCES[0]!;
const SECOND_PARAGRAPH = 'A second paragraph, written by me on a Tuesday.';
const REWRITE = splitSentences(rewriteOffline(`${PAGE_TEXT}\n\n${SECOND_PARAGRAPH}`, 'cognia').humanized_text).map((sentence) => sentence.text);
const SUGGESTION = REWRITE[0]!;
const SECOND_SUGGESTION = REWRITE[2]!;

for (const editor of EDITORS) {
  test(`${editor.name}: check, highlights, accept in its own value, Ctrl+Z right after it, another accept and typing after it`, async ({ page, stack }) => {
    await page.goto(`${stack.pagesUrl}/${editor.page}.html`);
    await expect.poll(() => page.evaluate(() => typeof (window as unknown as { editorText?: unknown }).editorText)).toBe('function');
    await expect.poll(() => modelText(page)).toContain(ORIGINAL);
    await page.locator(editor.root).focus();
    const before = await modelText(page);
    expect(before).toContain(SECOND_PARAGRAPH);

    await stack.run(page, 'detector');
    const toast = await waitForToast(page, /labelled AI|nothing|no text|cannot|can't|Click into/i);
    console.log(`${editor.name} detector toast: ${toast}`);
    expect(toast).toContain('2 sentences labelled AI are highlighted');
    expect(editor.field ? await overlayMarks(page) : await highlightedTexts(page)).toEqual(AI_SENTENCES);
    expect(await modelText(page)).toBe(before);

    await stack.configure({ defaultModel: 'cognia' });
    await stack.run(page, 'humanizer');
    await waitForToast(page, /rewrite is ready/);
    const panel = await stack.openSidePanel(page);
    const first = panel.getByTestId('suggestions').locator('li.suggestion').first();
    await first.getByRole('button', { name: 'Accept', exact: true }).click();
    await expect(first.getByTestId('decision').or(first.getByTestId('apply-problem'))).toBeVisible({ timeout: 20_000 });
    const said = (await first.getByTestId('decision').count()) ? await first.getByTestId('decision').innerText() : `not applied: ${await first.getByTestId('apply-problem').innerText()}`;
    const held = await modelText(page);
    console.log(`${editor.name}: panel: ${said}; model at once: ${JSON.stringify(held)}`);
    // Never "Accepted" with a value that does not hold it; and never a value changed otherwise.
    if (said !== 'Accepted') expect(held).toBe(before);
    expect(said).toBe('Accepted');
    const accepted = before.replace(ORIGINAL, SUGGESTION);
    await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(accepted);

    // As the panel's note says: Ctrl+Z right after the accept brings the sentence back, exactly.
    await expect(panel.getByTestId('undo-note')).toContainText('undo (Ctrl/Cmd+Z) in the editor right after an accept brings that sentence back');
    await page.bringToFront();
    await page.locator(editor.root).focus();
    await page.keyboard.press('Control+z');
    await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(before);

    // The second suggestion accepted, and the writer's typing right after it lands in the value with it.
    const second = panel.getByTestId('suggestions').locator('li.suggestion').nth(1);
    await second.getByRole('button', { name: 'Accept', exact: true }).click();
    await expect(second.getByTestId('decision')).toHaveText('Accepted', { timeout: 20_000 });
    const acceptedSecond = before.replace(AI_SENTENCES[1]!, SECOND_SUGGESTION);
    await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(acceptedSecond);
    await page.bringToFront();
    await page.locator(editor.root).focus();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(TYPED, { delay: 20 });
    await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(acceptedSecond.replace(editor.typedAfter, `${editor.typedAfter}${TYPED}`));
    await panel.close();
  });
}

// Yoopta-Editor is a block editor: each block a Slate editor of its own.
// A check from one block covers them all (a check from the first block had left the second's AI
// sentence unread), and an accept of a sentence in another block goes into that block.
test('Yoopta-Editor: a check from one block covers every block; an accept in the other block, Ctrl+Z after it', async ({ page, stack }) => {
  const third = 'Furthermore, it is essential to leverage innovative solutions in order to optimize organizational outcomes.';
  await page.goto(`${stack.pagesUrl}/yoopta.html`);
  await expect.poll(() => page.evaluate(() => typeof (window as unknown as { editorText?: unknown }).editorText)).toBe('function');
  await page.locator('[data-yoopta-block-id="two"] [data-slate-editor]').click();
  await page.keyboard.press('End');
  await page.keyboard.type(` ${third}`);
  const before = `${PAGE_TEXT}\n${SECOND_PARAGRAPH} ${third}`;
  await expect.poll(() => modelText(page)).toBe(before);
  await page.locator('[data-yoopta-block-id="one"] [data-slate-editor]').focus();

  await stack.run(page, 'detector');
  const toast = await waitForToast(page, /labelled AI|nothing|no text|cannot|can't|Click into/i);
  expect(toast).toContain('3 sentences labelled AI are highlighted');
  expect(await highlightedTexts(page)).toEqual([...AI_SENTENCES, third]);

  await stack.configure({ defaultModel: 'cognia' });
  await stack.run(page, 'humanizer');
  await waitForToast(page, /rewrite is ready/);
  const rewrite = splitSentences(rewriteOffline(`${PAGE_TEXT}\n\n${SECOND_PARAGRAPH} ${third}`, 'cognia').humanized_text).map((sentence) => sentence.text);
  const panel = await stack.openSidePanel(page);
  const last = panel.getByTestId('suggestions').locator('li.suggestion').nth(2);
  await last.getByRole('button', { name: 'Accept', exact: true }).click();
  await expect(last.getByTestId('decision')).toHaveText('Accepted', { timeout: 10_000 });
  await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(before.replace(third, rewrite[4]!));
  await page.bringToFront();
  await page.locator('[data-yoopta-block-id="two"] [data-slate-editor]').focus();
  await page.keyboard.press('Control+z');
  await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(before);
  await panel.close();
});
