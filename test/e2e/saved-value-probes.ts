import type { Page } from '@playwright/test';
import { humanize as rewriteOffline, splitSentences } from '@redline/shared/analysis';
import { test, expect, type Stack } from './fixtures.ts';
import { ORIGINAL, SECOND_ORIGINAL, SUGGESTION, SECOND_SUGGESTION, TYPED, accept, modelText } from './outside-probe.ts';
import { highlightedTexts, waitForToast } from './page-probes.ts';
import { AI_SENTENCES, FORMATTED_TEXT } from './pages/text.ts';
import { expectUndoAsTheNoteSays } from './undo-probes.ts';
import { acceptEdited } from './formatted-page.ts';

// The outside probes that read each editor back from what the app would save (never the DOM
// alone), per editor: check, highlights, one accept in the saved value, Ctrl+Z right after it back
// to the saved value as it was, another accept and the writer's typing after it; on the formatted
// page (a bold run and a link in the first AI sentence, an italic opener and a bold run in the
// second) the same, with the formatting held in the saved HTML or Markdown; Accept all and its
// undo; and an edited suggestion whose change runs out of a bold run. Each editor's page defines
// `editorText()` (the saved value as text) and the probes below.

export interface SavedValueEditor {
  name: string;
  page: string;
  root: string;
  /** Where the last paragraph ends in the model's text, for typing after the second accept (default: the text's end). */
  typedAt?: (text: string) => number;
  /**
   * Milliseconds between focusing the editor and the writer's keys, for an editor that puts its
   * own stale selection back a moment after it takes the focus (default: none).
   */
  focusSettles?: number;
}


interface Probes {
  /** What the app would save: the field, state or listener's value (HTML or Markdown). */
  editorHtml(): string;
  /** The editor's own serialization of its document now (getSemanticHTML, getHTML, getMarkdown, Lexical's HTML export). */
  editorSerialized(): string;
  /** The editor model's own text (no-break spaces as they are). */
  editorModelText(): string;
}
const probe = (page: Page, name: keyof Probes): Promise<string> => page.evaluate((name) => (window as unknown as Probes)[name](), name);
const rawSaved = (page: Page) => probe(page, 'editorHtml');
/**
 * What the app would save, for matching formatting: no-break spaces as spaces (Quill 2.0's
 * getSemanticHTML writes every space as `&nbsp;`), Lexical's text spans left out.
 */
const savedValue = (page: Page): Promise<string> => rawSaved(page).then((value) => value.replace(/&nbsp;|\u00a0/g, ' ').replace(/<\/?span[^>]*>/g, ''));

/** The app's value is what the editor would serialize now (the app heard every change), and the model gained no no-break space. */
async function expectInSync(page: Page): Promise<void> {
  await expect.poll(async () => (await rawSaved(page)) === (await probe(page, 'editorSerialized')), { timeout: 3000 }).toBe(true);
  expect(await probe(page, 'editorModelText')).not.toContain('\u00a0');
}

/** Opens the editor's page once its value holds `sentence`, focuses the editor and returns the value. */
async function open(page: Page, stack: Stack, editor: SavedValueEditor, query: string, sentence: string): Promise<string> {
  await page.goto(`${stack.pagesUrl}/${editor.page}.html${query}`);
  await expect.poll(() => page.evaluate(() => typeof (window as unknown as { editorText?: unknown }).editorText)).toBe('function');
  await expect.poll(() => modelText(page)).toContain(sentence);
  await expect.poll(() => page.locator(editor.root).count()).toBe(1);
  await page.locator(editor.root).focus();
  return modelText(page);
}

async function humanize(page: Page, stack: Stack, model: 'cognia' | 'huma_v2'): Promise<Page> {
  await stack.configure({ defaultModel: model });
  await stack.run(page, 'humanizer');
  await waitForToast(page, /rewrite is ready: 2 suggestions/);
  return stack.openSidePanel(page);
}

async function focusEditor(page: Page, editor: SavedValueEditor): Promise<void> {
  await page.locator(editor.root).focus();
  if (editor.focusSettles) await page.waitForTimeout(editor.focusSettles);
}

/** Ctrl+Z until the model's text is `before` (at most 8 presses, each given time to land); the presses it took. */
async function undoUntil(page: Page, editor: SavedValueEditor, before: string): Promise<number> {
  await page.bringToFront();
  await focusEditor(page, editor);
  const restored = () => expect.poll(() => modelText(page), { timeout: 1500 }).toBe(before).then(() => true, () => false);
  let presses = 0;
  while (presses < 8 && !(presses > 0 && (await restored()))) {
    await page.keyboard.press('Control+z');
    presses++;
  }
  return presses;
}

/** Types TYPED at the end of the last paragraph and waits for the model to hold it there. */
async function typeAtEnd(page: Page, editor: SavedValueEditor, text: string): Promise<void> {
  await page.bringToFront();
  await focusEditor(page, editor);
  await page.keyboard.press('Control+End');
  await page.keyboard.type(TYPED, { delay: 20 });
  const at = editor.typedAt ? editor.typedAt(text) : text.length;
  await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(text.slice(0, at) + TYPED + text.slice(at));
  await expect.poll(() => savedValue(page), { timeout: 3000 }).toContain(`Tuesday.${TYPED}`);
}

// The formatted page: the accepts change only the words the rewrites change, in the saved value
// too; the link, the bold runs and the italic opener's neighbours stay on their words there, and
// undo brings the saved value back exactly.
const SENTENCES = splitSentences(FORMATTED_TEXT).map((sentence) => sentence.text);
const REWRITTEN = splitSentences(rewriteOffline(FORMATTED_TEXT, 'huma_v2').humanized_text).map((sentence) => sentence.text);
const LINKED = /(<a [^>]*>fostering innovation<\/a>|\[fostering innovation\]\(https:\/\/example\.com\/innovation\))/;
const BOLD = (words: string) => new RegExp(`(<strong>${words}</strong>|<b>${words}</b>|<b><strong[^>]*>${words}</strong></b>|\\*\\*${words}\\*\\*)`);

// The writer's own edit of the first suggestion, whose changed words begin inside the bold run and
// run out of it ("artificial **intelligence** plays a crucial role in" → "artificial minds shape"):
// the saved value holds exactly the sentence as edited with balanced markup, or is as it was.
const STRADDLING = SENTENCES[0]!.replace('intelligence plays a crucial role in', 'minds shape');

/** The saved-value probes' tests, for each of `editors`. */
export function savedValueTests(editors: SavedValueEditor[]): void {
  for (const editor of editors) {
    test(`${editor.name}: check, highlights, accept in the saved value, Ctrl+Z right after it, another accept and typing after it`, async ({ page, stack }) => {
      const before = await open(page, stack, editor, '', ORIGINAL);
      // The document as the editor itself serializes it: the app's value once it has heard a change.
      const savedBefore = await probe(page, 'editorSerialized');
      await stack.run(page, 'detector');
      expect(await waitForToast(page, /labelled AI|nothing|no text|cannot|can't|Click into/i)).toContain('2 sentences labelled AI are highlighted');
      await expect.poll(() => highlightedTexts(page)).toEqual(AI_SENTENCES);
      expect(await modelText(page)).toBe(before);

      const panel = await humanize(page, stack, 'cognia');
      const said = await accept(panel, 0);
      console.log(`${editor.name}: panel: ${said}; model: ${JSON.stringify(await modelText(page))}; saved: ${JSON.stringify(await rawSaved(page))}`);
      if (said !== 'Accepted') expect(await modelText(page)).toBe(before);
      expect(said).toBe('Accepted');
      await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(before.replace(ORIGINAL, SUGGESTION));
      await expect.poll(() => savedValue(page), { timeout: 3000 }).toContain(SUGGESTION);
      expect(await savedValue(page)).not.toContain(ORIGINAL);
      await expectInSync(page);

      expect(await undoUntil(page, editor, before)).toBe(1);
      await expect.poll(() => rawSaved(page), { timeout: 3000 }).toBe(savedBefore);

      expect(await accept(panel, 1)).toBe('Accepted');
      const acceptedSecond = before.replace(SECOND_ORIGINAL, SECOND_SUGGESTION);
      await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(acceptedSecond);
      await expect.poll(() => savedValue(page), { timeout: 3000 }).toContain(SECOND_SUGGESTION);
      await expectInSync(page);
      await typeAtEnd(page, editor, acceptedSecond);
      await expectInSync(page);
      await panel.close();
    });
  }

  for (const editor of editors) {
    test(`${editor.name} (formatted): each accept keeps the link and bold runs in the saved value, undo brings it back exactly, typing after an accept`, async ({ page, stack }) => {
      const before = await open(page, stack, editor, '?formatted', SENTENCES[0]!);
      const savedBefore = await probe(page, 'editorSerialized');
      expect(await savedValue(page)).toMatch(LINKED);
      expect(await savedValue(page)).toMatch(BOLD('artificial intelligence'));
      const panel = await humanize(page, stack, 'huma_v2');

      const said = await accept(panel, 0);
      const first = before.replace(SENTENCES[0]!, REWRITTEN[0]!);
      console.log(`${editor.name} (formatted): panel: ${said}; saved: ${JSON.stringify(await rawSaved(page))}`);
      if (said !== 'Accepted') expect(await modelText(page)).toBe(before);
      expect(said).toBe('Accepted');
      await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(first);
      await page.waitForTimeout(300);
      expect(await modelText(page)).toBe(first);
      expect(await savedValue(page)).toMatch(LINKED);
      expect(await savedValue(page)).toMatch(BOLD('artificial intelligence'));
      await expectInSync(page);

      const presses = await undoUntil(page, editor, before);
      console.log(`${editor.name} (formatted): ${presses} undo steps`);
      expect(await modelText(page)).toBe(before);
      await expect.poll(() => rawSaved(page), { timeout: 3000 }).toBe(savedBefore);

      expect(await accept(panel, 1)).toBe('Accepted');
      const second = before.replace(SENTENCES[2]!, REWRITTEN[2]!);
      await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(second);
      expect(await savedValue(page)).toMatch(BOLD('comprehensive tools'));
      expect(await savedValue(page)).toMatch(LINKED);
      await expectInSync(page);
      await typeAtEnd(page, editor, second);
      await expectInSync(page);
      await panel.close();
    });
  }

  for (const editor of editors) {
    test(`${editor.name}: Accept all goes into the saved value, and undo takes it back in as many steps as the panel says`, async ({ page, stack }) => {
      const before = await open(page, stack, editor, '', ORIGINAL);
      const savedBefore = await probe(page, 'editorSerialized');
      const panel = await humanize(page, stack, 'cognia');
      await panel.getByRole('button', { name: 'Accept all (2)' }).click();
      await expect(panel.getByTestId('decision').or(panel.getByTestId('apply-problem'))).toHaveCount(2, { timeout: 30_000 });
      await expect(panel.getByTestId('decision')).toHaveText(['Accepted', 'Accepted']);
      await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(before.replace(ORIGINAL, SUGGESTION).replace(SECOND_ORIGINAL, SECOND_SUGGESTION));
      await expectInSync(page);
      await expectUndoAsTheNoteSays(page, page.mainFrame(), editor.root, panel, before, modelText);
      await expect.poll(() => rawSaved(page), { timeout: 3000 }).toBe(savedBefore);
      await panel.close();
    });
  }

  for (const editor of editors) {
    test(`${editor.name} (formatted): an edited suggestion whose change runs out of a bold run goes in whole, the link kept, or nothing changes`, async ({ page, stack }) => {
      const before = await open(page, stack, editor, '?formatted', SENTENCES[0]!);
      const savedBefore = await probe(page, 'editorSerialized');
      const panel = await humanize(page, stack, 'huma_v2');
      const said = await acceptEdited(panel, 0, STRADDLING);
      await page.waitForTimeout(500);
      const saved = await savedValue(page);
      console.log(`${editor.name} (straddling): ${said}; saved: ${JSON.stringify(saved)}`);
      if (said === 'accepted') {
        expect(await modelText(page)).toBe(before.replace(SENTENCES[0]!, STRADDLING));
        expect(saved).toMatch(LINKED);
        expect(saved).not.toContain('intelligence');
        // Every `**` opens and closes a run: none is left alone, to be shown as text.
        expect((saved.match(/\*\*/g) ?? []).length % 2).toBe(0);
        await expectInSync(page);
        expect(await undoUntil(page, editor, before)).toBeLessThanOrEqual(3);
        await expect.poll(() => rawSaved(page), { timeout: 3000 }).toBe(savedBefore);
      } else {
        expect(await modelText(page)).toBe(before);
        expect(await rawSaved(page)).toBe(savedBefore);
      }
      await panel.close();
    });
  }
}

const setLocked = (page: Page, locked: boolean) => page.evaluate((locked) => (window as unknown as Record<string, () => void>)[locked ? 'refuseEdits' : 'allowEdits']!(), locked);

/**
 * The page locks the editor (read-only, through its API or the app's binding) between the
 * rewrite and the accept: the panel never says Accepted and neither the model nor the saved value
 * changes; unlocked, the accept lands in both, and Ctrl+Z takes it back. Each page defines
 * `refuseEdits()` and `allowEdits()`.
 */
export function lockedEditorTests(editors: SavedValueEditor[]): void {
  for (const editor of editors) {
    test(`${editor.name} locked between the rewrite and the accept: never Accepted, the saved value unchanged; unlocked, the accept lands and Ctrl+Z takes it back`, async ({ page, stack }) => {
      const before = await open(page, stack, editor, '', ORIGINAL);
      const savedBefore = await rawSaved(page);
      const panel = await humanize(page, stack, 'cognia');
      await setLocked(page, true);
      const said = await accept(panel, 0);
      console.log(`${editor.name} (locked): panel: ${said}; model: ${JSON.stringify(await modelText(page))}`);
      expect(said).not.toBe('Accepted');
      expect(said).toContain('read-only');
      await page.waitForTimeout(300);
      expect(await modelText(page)).toBe(before);
      expect(await rawSaved(page)).toBe(savedBefore);

      await setLocked(page, false);
      await page.bringToFront();
      await page.locator(editor.root).focus();
      const first = panel.getByTestId('suggestions').locator('li.suggestion').first();
      await first.getByRole('button', { name: 'Accept', exact: true }).click();
      await expect(first.getByTestId('decision')).toHaveText('Accepted', { timeout: 20_000 });
      await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(before.replace(ORIGINAL, SUGGESTION));
      await expect.poll(() => savedValue(page), { timeout: 3000 }).toContain(SUGGESTION);
      await expectInSync(page);
      expect(await undoUntil(page, editor, before)).toBe(1);
      await panel.close();
    });
  }
}
