import type { Frame, Page } from '@playwright/test';
import { test, expect, type Stack } from './fixtures.ts';
import { humanize as rewriteOffline, splitSentences } from '@redline/shared/analysis';
import { highlightedTexts, nbsp, rawModel, waitForToast } from './page-probes.ts';
import { AI_SENTENCES, FORMATTED_TEXT, PAGE_TEXT } from './pages/text.ts';

// Editors from npm beyond the README's table, probed from outside: SCEditor (its body in an iframe
// it writes, XHTML and BBCode), wysihtml (an iframe, its own undo history, the textarea synced on
// a timer), Simditor (its own undo history), react-contenteditable (React state, re-rendered), Quill 2's
// table module (text in a table cell), ContentTools (a model of its own, copied from the DOM on keys and blur) and HugeRTE
// (TinyMCE 6's fork, its API on its own global). The panel may say
// "Accepted" only when the editor's own value (what the page saves) holds the suggestion, and
// nothing else changed; otherwise it must say it did not go in, and the value is as it was.

interface NewEditor {
  name: string;
  /** The page and its query (`?bbcode`); `?formatted` is added for the formatted tests. */
  page: string;
  query?: string;
  /** The editable root, in the page's one iframe when `inFrame`. */
  root: string;
  inFrame?: boolean;
  /** The root is editable only once clicked (ContentTools makes the clicked paragraph editable). */
  click?: boolean;
  /** Whether the page has the formatted text (a BBCode value is not compared as HTML). */
  formatted: boolean;
  bold?: string;
  italic?: string;
  /** Its undo takes an accept back with the writer's typing since their last word, and the panel says so (wysihtml). */
  undoWithTyping?: true;
}

const EDITORS: NewEditor[] = [
  { name: 'SCEditor (XHTML)', page: 'sceditor', root: 'body', inFrame: true, formatted: true, bold: 'strong, b' },
  { name: 'SCEditor (BBCode)', page: 'sceditor', query: 'bbcode', root: 'body', inFrame: true, formatted: false },
  // wysihtml keeps an undo step at each word's end: Ctrl+Z after an accept takes the writer's last word with it.
  { name: 'wysihtml', page: 'wysihtml', root: 'body', inFrame: true, formatted: true, bold: 'strong, b', undoWithTyping: true },
  { name: 'Simditor', page: 'simditor', root: '.simditor-body', formatted: true, bold: 'strong, b' },
  { name: 'react-contenteditable', page: 'react-contenteditable', root: '.editable', formatted: true },
  // Quill 2's own table module: the AI-like text in a table cell.
  { name: 'Quill 2 (table)', page: 'quill-table', root: '.ql-editor', formatted: true },
  { name: 'ContentTools', page: 'contenttools', root: '[data-editable] > p >> nth=0', click: true, formatted: true, bold: 'strong, b' },
  // HugeRTE, TinyMCE 6's MIT fork: its body in an about:srcdoc iframe, its API on `hugerte`.
  { name: 'HugeRTE', page: 'hugerte', root: 'body', inFrame: true, formatted: true },
];

const ORIGINAL = AI_SENTENCES[0]!;
const SECOND_PARAGRAPH = 'A second paragraph, written by me on a Tuesday.';
const REWRITE = splitSentences(rewriteOffline(`${PAGE_TEXT}\n\n${SECOND_PARAGRAPH}`, 'cognia').humanized_text).map((sentence) => sentence.text);
const SUGGESTION = REWRITE[0]!;
const SENTENCES = splitSentences(FORMATTED_TEXT).map((sentence) => sentence.text);
const REWRITTEN = splitSentences(rewriteOffline(FORMATTED_TEXT, 'huma_v2').humanized_text).map((sentence) => sentence.text);
const TYPED = ' Typed by me.';

const modelText = (page: Page): Promise<string> =>
  page.evaluate(async () => ((await (window as unknown as { editorText(): string | Promise<string> }).editorText()) ?? '').replace(/\u00a0/g, ' '));
const changes = (page: Page) => page.evaluate(() => (window as unknown as { editorChanges(): number }).editorChanges());
const editorFrame = (page: Page, editor: NewEditor): Frame | undefined => (editor.inFrame ? page.frames().find((frame) => frame !== page.mainFrame()) : page.mainFrame());

/** Opens the editor's page (formatted or not), the editor started; the frame that holds its root. */
async function open(page: Page, stack: { pagesUrl: string }, editor: NewEditor, formatted = false): Promise<Frame> {
  const query = [editor.query, formatted ? 'formatted' : undefined].filter(Boolean).join('&');
  await page.goto(`${stack.pagesUrl}/${editor.page}.html${query ? `?${query}` : ''}`);
  await expect.poll(() => page.evaluate(() => typeof (window as unknown as { editorText?: unknown }).editorText)).toBe('function');
  await expect.poll(() => editorFrame(page, editor)?.locator(editor.root).count() ?? 0).toBe(1);
  const frame = editorFrame(page, editor)!;
  await expect.poll(() => modelText(page)).toContain(formatted ? SENTENCES[2]! : ORIGINAL);
  return frame;
}

/** Puts the writer in the editor: a click where the editor makes its text editable on one (ContentTools), else focus. */
async function enter(frame: Frame, editor: NewEditor): Promise<void> {
  if (editor.click) await frame.locator(editor.root).click();
  else await frame.locator(editor.root).focus();
}

/**
 * The caret at the end of the editor's last paragraph, a frame later, as after a writer's click
 * there; the text it follows (in ContentTools, where only the clicked paragraph is editable, the
 * end of that paragraph).
 */
async function caretAtEnd(frame: Frame, editor: NewEditor): Promise<string> {
  return frame.locator(editor.root).evaluate(async (root) => {
    const last = root.lastElementChild ?? root;
    const range = root.ownerDocument.createRange();
    range.selectNodeContents(last);
    range.collapse(false);
    const selection = root.ownerDocument.getSelection()!;
    selection.removeAllRanges();
    selection.addRange(range);
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    return (last.textContent ?? '').trim().slice(-20);
  });
}

/** Waits for the panel's answer on a suggestion: its decision, or the problem it shows. */
async function panelSays(item: ReturnType<Page['locator']>): Promise<string> {
  await expect(item.getByTestId('decision').or(item.getByTestId('apply-problem'))).toBeVisible({ timeout: 20_000 });
  return (await item.getByTestId('decision').count()) ? item.getByTestId('decision').innerText() : `not applied: ${await item.getByTestId('apply-problem').innerText()}`;
}

/** Cognia's rewrite of the page, its panel opened, and its first suggestion accepted: the panel and that suggestion's item. */
async function acceptFirstSuggestion(page: Page, stack: Stack, frame: Frame) {
  await stack.configure({ defaultModel: 'cognia' });
  await stack.run(page, 'humanizer');
  await waitForToast(frame, /rewrite is ready/);
  const panel = await stack.openSidePanel(page);
  const first = panel.getByTestId('suggestions').locator('li.suggestion').first();
  await first.getByRole('button', { name: 'Accept', exact: true }).click();
  return { panel, first };
}

for (const editor of EDITORS) {
  test(`${editor.name}: check, highlights, accept lands in the editor's value exactly, and Ctrl+Z restores it`, async ({ page, stack }) => {
    const frame = await open(page, stack, editor);
    await enter(frame, editor);
    const before = await modelText(page);
    expect(before).toContain(ORIGINAL);

    await stack.run(page, 'detector');
    const toast = await waitForToast(frame, /labelled AI|nothing|no text|cannot|can't|Click into/i);
    console.log(`${editor.name} detector toast: ${toast}`);
    expect(toast).toContain('2 sentences labelled AI are highlighted');
    expect(await highlightedTexts(frame)).toEqual(AI_SENTENCES);
    expect(await modelText(page)).toBe(before);

    const { panel, first } = await acceptFirstSuggestion(page, stack, frame);
    const said = await panelSays(first);
    const held = await modelText(page);
    console.log(`${editor.name}: panel: ${said}; model at once: ${JSON.stringify(held)}`);
    // Accepted only with the value holding exactly the suggestion, the rest as it was; else the value as it was.
    expect(said).toBe('Accepted');
    await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(before.replace(ORIGINAL, SUGGESTION));

    await page.bringToFront();
    await enter(frame, editor);
    await page.keyboard.press('Control+z');
    await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(before);
    await panel.close();
  });

  if (editor.formatted)
    test(`${editor.name}: accept all on the formatted text keeps the bold, the link and no italic spread, and undo brings it back`, async ({ page, stack }) => {
      const bold = editor.bold ?? 'strong';
      const italic = editor.italic ?? 'em, i';
      const frame = await open(page, stack, editor, true);
      await enter(frame, editor);
      const before = await modelText(page);
      const rawBefore = await rawModel(page);
      expect(before).toContain(SENTENCES[0]);

      await stack.configure({ defaultModel: 'huma_v2' });
      await stack.run(page, 'humanizer');
      await waitForToast(frame, /rewrite is ready: 2 suggestions/);
      const panel = await stack.openSidePanel(page);
      await panel.getByRole('button', { name: 'Accept all (2)' }).click();
      const items = panel.getByTestId('suggestions').locator(':scope > li');
      const said = [await panelSays(items.nth(0)), await panelSays(items.nth(1))];
      console.log(`${editor.name}: panel: ${JSON.stringify(said)}; model at once: ${JSON.stringify(await modelText(page))}`);
      expect(said).toEqual(['Accepted', 'Accepted']);
      const expected = before.replace(SENTENCES[0]!, REWRITTEN[0]!).replace(SENTENCES[2]!, REWRITTEN[2]!);
      await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(expected);
      const html = String(await page.evaluate(() => (window as unknown as { editorHtml(): string }).editorHtml()));
      console.log(`${editor.name}: ${html}`);
      const inValue = (selector: string) =>
        page.evaluate(([html, selector]) => {
          const element = document.createElement('div');
          element.innerHTML = html;
          return [...element.querySelectorAll(selector)].map((run) => run.textContent ?? '');
        }, [html, selector] as const);
      expect(await inValue('a')).toEqual(['fostering innovation']);
      expect(await inValue(bold)).toEqual(['artificial intelligence', 'comprehensive tools']);
      const italicLeft = (await inValue(italic)).filter((run) => run.trim() !== '');
      for (const text of italicLeft) expect(REWRITTEN[2]!).toContain(text.trim());
      expect(nbsp(await rawModel(page))).toBe(nbsp(rawBefore));

      await page.bringToFront();
      await enter(frame, editor);
      let presses = 0;
      while ((await modelText(page)) !== before && presses < 8) {
        await page.keyboard.press('Control+z');
        presses++;
        await page.waitForTimeout(300);
      }
      console.log(`${editor.name}: ${presses} undo steps for Accept all`);
      expect(await modelText(page)).toBe(before);
      await panel.close();
    });

  test(`${editor.name}: after the writer typed, an accept fires the page's change event, and Ctrl+Z after it does what the panel says`, async ({ page, stack }) => {
    const frame = await open(page, stack, editor);
    await enter(frame, editor);
    const before = await modelText(page);
    const end = await caretAtEnd(frame, editor);
    await page.keyboard.type(TYPED, { delay: 20 });
    await page.waitForTimeout(1600);
    const typed = await modelText(page);
    expect(typed).toBe(before.replace(end, `${end}${TYPED}`));
    // ContentTools' documented autosave is a passive save on a timer: one now, and one after the accept.
    await page.evaluate(() => (window as unknown as { autosave?(): void }).autosave?.());
    const changesAfterTyping = await changes(page);

    const { panel, first } = await acceptFirstSuggestion(page, stack, frame);
    const said = await panelSays(first);
    console.log(`${editor.name}: panel: ${said}; model at once: ${JSON.stringify(await modelText(page))}`);
    expect(said).toBe('Accepted');
    const accepted = typed.replace(ORIGINAL, SUGGESTION);
    await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(accepted);
    await page.waitForTimeout(2000);
    await page.evaluate(() => (window as unknown as { autosave?(): void }).autosave?.());
    const changesAfterAccept = await changes(page);
    console.log(`${editor.name}: change events: ${changesAfterTyping} after typing, ${changesAfterAccept} after the accept`);
    expect(changesAfterAccept).toBeGreaterThan(changesAfterTyping);

    if (editor.undoWithTyping) {
      // As the panel says: Ctrl+Z takes the accept back with the word typed since the writer's last space, redo both.
      await expect(panel.getByTestId('undo-note')).toContainText('together with what you typed since your last space, and redo brings both back');
      await page.bringToFront();
      await enter(frame, editor);
      await page.keyboard.press('Control+z');
      await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(typed.replace(TYPED, ' Typed by '));
      await page.keyboard.press('Control+y');
      await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(accepted);
      await panel.close();
      return;
    }
    await expect(panel.getByTestId('undo-note')).toContainText('undo (Ctrl/Cmd+Z) in the editor right after an accept brings that sentence back');
    await page.bringToFront();
    await enter(frame, editor);
    const steps: string[] = [];
    for (let press = 1; press <= 6; press++) {
      await page.keyboard.press('Control+z');
      await page.waitForTimeout(400);
      const text = await modelText(page);
      const state = text === typed ? 'typed' : text === accepted ? 'accepted' : !text.includes(TYPED) ? 'typing undone' : 'other';
      steps.push(state);
      console.log(`${editor.name}: Ctrl+Z ${press}: ${state}${state === 'other' || state === 'typing undone' ? `: ${JSON.stringify(text)}` : ''}`);
      if (state === 'typed' || state === 'typing undone') break;
    }
    expect(steps.at(-1)).toBe('typed');
    await panel.close();
  });

  test(`${editor.name}: the writer's typing right after an accept goes into the value with it`, async ({ page, stack }) => {
    const frame = await open(page, stack, editor);
    await enter(frame, editor);
    const before = await modelText(page);
    const { panel, first } = await acceptFirstSuggestion(page, stack, frame);
    expect(await panelSays(first)).toBe('Accepted');
    await page.bringToFront();
    await enter(frame, editor);
    const end = await caretAtEnd(frame, editor);
    await page.keyboard.type(TYPED, { delay: 20 });
    await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(before.replace(ORIGINAL, SUGGESTION).replace(end, `${end}${TYPED}`));
    await panel.close();
  });
}
