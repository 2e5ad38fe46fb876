import type { Frame, Page } from '@playwright/test';
import { expect, type Stack } from './fixtures.ts';
import { FORMATTED_HTML } from './pages/text.ts';
import type { FormattedEditor } from './pages/formatted-editors.ts';
import { textsArg, textsWithin } from './page-probes.ts';

// Reading a formatted editor's page in Chromium (formatting.e2e.ts, accept-boundaries.e2e.ts).

// TinyMCE (classic): the editable body is in an about:srcdoc iframe.
const tinymceFrame = (page: Page) => page.frames().find((frame) => frame !== page.mainFrame() && frame.url().startsWith('about:'));
const frameOf = (editor: FormattedEditor, page: Page): Frame | undefined => (editor.inFrame ? tinymceFrame(page) : page.mainFrame());

/** Opens the editor's page with FORMATTED_HTML loaded, its link drawn; the frame that holds the editor. */
export async function openFormatted(page: Page, stack: Stack, editor: FormattedEditor): Promise<Frame> {
  await page.goto(`${stack.pagesUrl}/${editor.page}.html?formatted`);
  await expect.poll(() => frameOf(editor, page)?.locator(editor.root).count() ?? 0).toBe(1);
  const frame = frameOf(editor, page)!;
  if (editor.page === 'plain') await frame.locator(editor.root).evaluate((element, html) => (element.innerHTML = html), FORMATTED_HTML);
  else await expect.poll(() => page.evaluate(() => typeof (window as unknown as { editorText?: unknown }).editorText)).toBe('function');
  await expect.poll(() => textsOf(frame, editor.root, 'a')).toEqual(['fostering innovation']);
  return frame;
}

/** The model's text as it is, no-break spaces and all. */
export const rawModelText = (page: Page): Promise<string | undefined> =>
  page.evaluate(async () => (window as unknown as { editorText?(): string | Promise<string> }).editorText?.());

/** The editor's own model's text; a bare contenteditable's as the writer sees it (a no-break space is a space). */
export const modelText = (page: Page, frame: Frame, root: string): Promise<string> =>
  rawModelText(page).then(async (text) => (text ?? (await frame.locator(root).evaluate((element) => (element as HTMLElement).innerText))).replace(/\u00a0/g, ' '));

/**
 * The text of every element matching `selector` inside the editor. Not text: Plate's spacers by
 * an inline element (a link), a no-break space in a non-editable span of font size 0 before the
 * element and at its end, which its view draws for the caret.
 */
export const textsOf = (frame: Frame, root: string, selector: string): Promise<string[]> => frame.locator(root).evaluate(textsWithin, textsArg(selector));

/** The text of the extension's toast in the editor's frame. */
export const frameToast = (frame: Frame) => frame.evaluate(() => document.querySelector('redline-toast')?.shadowRoot?.querySelector('.toast')?.textContent ?? '');

/** Edits suggestion `position` (0-based) to `text`, accepts it, and waits for the panel to settle: its decision, or the problem it shows. */
export async function acceptEdited(panel: Page, position: number, text: string): Promise<string> {
  const item = panel.getByTestId('suggestions').locator(':scope > li').nth(position);
  await item.getByRole('button', { name: 'Edit', exact: true }).click();
  await item.getByRole('textbox', { name: 'Edit the suggestion' }).fill(text);
  await item.getByRole('button', { name: 'Accept edited' }).click();
  await expect
    .poll(async () => (await item.getAttribute('data-decision')) !== 'pending' || (await item.getByTestId('apply-problem').count()) > 0, { timeout: 30_000 })
    .toBe(true);
  const decision = await item.getAttribute('data-decision');
  if (decision !== 'pending') return decision!;
  return `pending: ${await item.getByTestId('apply-problem').textContent()}`;
}

/** Runs the humanizer (huma_v2) on the formatted page and opens the side panel with its two suggestions. */
export async function suggestionsInPanel(page: Page, stack: Stack, frame: Frame): Promise<Page> {
  await stack.configure({ defaultModel: 'huma_v2' });
  await stack.run(page, 'humanizer');
  await expect.poll(() => frameToast(frame), { timeout: 15_000 }).toMatch(/rewrite is ready: 2 suggestions/);
  const panel = await stack.openSidePanel(page);
  await expect(panel.getByTestId('suggestions').locator(':scope > li')).toHaveCount(2);
  return panel;
}
