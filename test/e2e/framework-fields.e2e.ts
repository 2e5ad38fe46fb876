import type { Page } from '@playwright/test';
import { humanize as rewriteOffline, splitSentences } from '@redline/shared/analysis';
import { test, expect, type Stack } from './fixtures.ts';
import { highlightedTexts, overlayMarks, waitForToast } from './page-probes.ts';
import { AI_SENTENCES, PAGE_TEXT } from './pages/text.ts';

// Fields whose value is a framework's state, beyond React's (controlled-fields.e2e.ts): a Vue 3
// `v-model` textarea and a Vue component wrapping a contenteditable that syncs on `input`
// (pages/vue-fields.ts), a Svelte 5 `bind:value` textarea (pages/svelte-field.svelte, compiled by
// Svelte's compiler) and a Preact textarea whose value is a signal (pages/preact-signals.ts). Each
// page re-renders on a 200 ms clock. An accept is in the framework's state (what the page would
// save), stays through its renders and the writer's typing, and Ctrl+Z does what the panel says.

interface FrameworkField {
  name: string;
  page: string;
  /** The field's element. */
  field: string;
  /** The page's function that reads the framework's state as text. */
  state: 'editorText' | 'richText';
  /** The panel's note on Accept all, and the Ctrl+Z presses that undo it (one per suggestion in a contenteditable). */
  acceptAllNote: string;
  acceptAllSteps: number;
}

const FIELD_NOTE = 'Accept all is one undo step.';
const EACH_NOTE = 'After Accept all, undo once per accepted suggestion';
const FIELDS: FrameworkField[] = [
  { name: 'Vue 3 v-model textarea', page: 'vue-fields', field: '#field', state: 'editorText', acceptAllNote: FIELD_NOTE, acceptAllSteps: 1 },
  { name: 'Vue 3 contenteditable component', page: 'vue-fields', field: '#rich', state: 'richText', acceptAllNote: EACH_NOTE, acceptAllSteps: 2 },
  { name: 'Svelte 5 bind:value textarea', page: 'svelte-fields', field: '#field', state: 'editorText', acceptAllNote: FIELD_NOTE, acceptAllSteps: 1 },
  { name: 'Preact signal textarea', page: 'preact-signals', field: '#field', state: 'editorText', acceptAllNote: FIELD_NOTE, acceptAllSteps: 1 },
];

const REWRITE = splitSentences(rewriteOffline(`${PAGE_TEXT}\n\nA second paragraph, written by me on a Tuesday.`, 'cognia').humanized_text).map((sentence) => sentence.text);
const [ORIGINAL, SECOND_ORIGINAL] = AI_SENTENCES as [string, string];
const [SUGGESTION, SECOND_SUGGESTION] = [REWRITE[0]!, REWRITE[2]!];
const TYPED = ' More.';

const stateText = (page: Page, field: FrameworkField) =>
  page.evaluate((name) => ((window as unknown as Record<string, () => string>)[name]!() ?? '').replace(/\u00a0/g, ' '), field.state);
/** What the element shows: a textarea's value, a contenteditable's paragraphs one a line. */
const shownText = (page: Page, field: FrameworkField) =>
  page.locator(field.field).evaluate((element) =>
    element instanceof HTMLTextAreaElement ? element.value : [...element.children].map((block) => block.textContent ?? '').join('\n').replace(/\u00a0/g, ' '),
  );

async function open(page: Page, stack: Stack, field: FrameworkField): Promise<string> {
  await page.goto(`${stack.pagesUrl}/${field.page}.html`);
  await expect.poll(() => page.evaluate((name) => typeof (window as unknown as Record<string, unknown>)[name], field.state)).toBe('function');
  await expect.poll(() => stateText(page, field)).toContain(ORIGINAL);
  await page.locator(field.field).click();
  await page.keyboard.press('Control+End');
  return stateText(page, field);
}

async function humanize(page: Page, stack: Stack): Promise<Page> {
  await stack.configure({ defaultModel: 'cognia' });
  await stack.run(page, 'humanizer');
  await waitForToast(page, /rewrite is ready: 2 suggestions/);
  return stack.openSidePanel(page);
}

/** Presses Ctrl+Z in the field until the state is `want` or `most` presses were made; the presses made. */
async function undoUntil(page: Page, field: FrameworkField, want: string, most: number): Promise<number> {
  await page.bringToFront();
  await page.locator(field.field).focus();
  let presses = 0;
  while ((await stateText(page, field)) !== want && presses < most) {
    await page.keyboard.press('Control+z');
    presses++;
    await page.waitForTimeout(400);
  }
  return presses;
}

for (const field of FIELDS) {
  test(`${field.name}: check highlights the AI sentences; an accepted suggestion is in the framework's state, stays through its renders and the writer's typing`, async ({ page, stack }) => {
    const before = await open(page, stack, field);
    await stack.run(page, 'detector');
    expect(await waitForToast(page, /labelled AI|nothing|no text|cannot|can't|Click into/i)).toContain('2 sentences labelled AI are highlighted');
    expect(field.field === '#field' ? await overlayMarks(page) : await highlightedTexts(page)).toEqual(AI_SENTENCES);
    expect(await stateText(page, field)).toBe(before);

    const panel = await humanize(page, stack);
    const first = panel.getByTestId('suggestions').locator('li.suggestion').first();
    await first.getByRole('button', { name: 'Accept', exact: true }).click();
    await expect(first.getByTestId('decision')).toHaveText('Accepted', { timeout: 15_000 });
    const expected = before.replace(ORIGINAL, SUGGESTION);
    expect(await stateText(page, field)).toBe(expected);
    await page.waitForTimeout(600); // three of the clock's renders
    expect(await stateText(page, field)).toBe(expected);
    expect(await shownText(page, field)).toBe(expected);

    // The writer goes on typing at the end: the framework's next state is built on the accepted text.
    await page.bringToFront();
    await page.locator(field.field).focus();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(TYPED, { delay: 20 });
    await page.waitForTimeout(400);
    expect(await stateText(page, field)).toBe(`${expected}${TYPED}`);
    expect(await shownText(page, field)).toBe(`${expected}${TYPED}`);
    await panel.close();
  });

  test(`${field.name}: Ctrl+Z right after an accept brings the sentence back in the framework's state, as the panel says`, async ({ page, stack }) => {
    const before = await open(page, stack, field);
    const panel = await humanize(page, stack);
    await expect(panel.getByTestId('undo-note')).toContainText('undo (Ctrl/Cmd+Z) in the editor right after an accept brings that sentence back');
    const first = panel.getByTestId('suggestions').locator('li.suggestion').first();
    await first.getByRole('button', { name: 'Accept', exact: true }).click();
    await expect(first.getByTestId('decision')).toHaveText('Accepted', { timeout: 15_000 });
    expect(await stateText(page, field)).toBe(before.replace(ORIGINAL, SUGGESTION));
    expect(await undoUntil(page, field, before, 3)).toBe(1);
    await page.waitForTimeout(400);
    expect(await stateText(page, field)).toBe(before);
    expect(await shownText(page, field)).toBe(before);
    await panel.close();
  });

  test(`${field.name}: Accept all reaches the framework's state and stays, and Ctrl+Z takes it back in the steps the panel says`, async ({ page, stack }) => {
    const before = await open(page, stack, field);
    const panel = await humanize(page, stack);
    await expect(panel.getByTestId('undo-note')).toContainText(field.acceptAllNote);
    await panel.getByRole('button', { name: 'Accept all (2)' }).click();
    await expect(panel.getByTestId('decision')).toHaveText(['Accepted', 'Accepted'], { timeout: 15_000 });
    const expected = before.replace(ORIGINAL, SUGGESTION).replace(SECOND_ORIGINAL, SECOND_SUGGESTION);
    expect(await stateText(page, field)).toBe(expected);
    await page.waitForTimeout(600);
    expect(await stateText(page, field)).toBe(expected);
    expect(await shownText(page, field)).toBe(expected);
    expect(await undoUntil(page, field, before, 4)).toBe(field.acceptAllSteps);
    await page.waitForTimeout(400);
    expect(await stateText(page, field)).toBe(before);
    expect(await shownText(page, field)).toBe(before);
    await panel.close();
  });
}
