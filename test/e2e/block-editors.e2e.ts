import type { Locator, Page } from '@playwright/test';
import { test, expect, type Stack } from './fixtures.ts';
import { humanize as rewriteOffline, splitSentences } from '@redline/shared/analysis';
import { highlightedTexts, waitForToast } from './page-probes.ts';
import { expectUndoAsTheNoteSays } from './undo-probes.ts';
import { AI_SENTENCES, PAGE_TEXT } from './pages/text.ts';

// Block and Markdown editors on ProseMirror beyond more-editors.e2e.ts, from npm: BlockNote
// (its core: a Notion-like block editor on Tiptap, whose document is a tree of block
// containers) and Milkdown (CommonMark on ProseMirror, serialized to Markdown by remark). Each
// page starts with a heading, then the text every editor page starts with, then a human
// paragraph. The panel may say "Accepted" only when the editor's own model holds the
// suggestion, read back through the editor's API (BlockNote's `editor.document`, Milkdown's
// state and its `getMarkdown()`), and the document's blocks must stay as they were.
const ORIGINAL = AI_SENTENCES[0]!;
const SECOND_PARAGRAPH = 'A second paragraph, written by me on a Tuesday.';
const HEADING = 'Notes on the launch';
// The offline humanizer rewrites sentence by sentence (the heading before them changes none).
const REWRITE = splitSentences(rewriteOffline(`${PAGE_TEXT}\n\n${SECOND_PARAGRAPH}`, 'cognia').humanized_text).map((sentence) => sentence.text);
const SUGGESTION = REWRITE[0]!;
const SECOND_SUGGESTION = REWRITE[2]!;

// `markdown`: the editor serializes its model to Markdown (what a site stores), checked too.
const EDITORS: { name: string; page: string; root: string; markdown: boolean }[] = [
  { name: 'BlockNote', page: 'blocknote', root: '.bn-container .ProseMirror', markdown: false },
  { name: 'Milkdown', page: 'milkdown', root: '#editor .ProseMirror', markdown: true },
];

interface Model {
  text: string;
  blocks: string[];
  markdown: string | null;
}

/** The document as the editor's own model holds it: its text (a line per block), its blocks' types, its Markdown. */
const model = (page: Page): Promise<Model> =>
  page.evaluate(() => {
    const api = window as unknown as { editorText(): string; editorBlocks(): string[]; editorMarkdown?(): string };
    return { text: api.editorText(), blocks: api.editorBlocks(), markdown: api.editorMarkdown ? api.editorMarkdown() : null };
  });
const modelText = async (page: Page): Promise<string> => (await model(page)).text;
/** The editor's whole document as JSON (BlockNote's blocks with their ids, props and styled runs; Milkdown's ProseMirror nodes and marks). */
const modelJson = (page: Page): Promise<string> => page.evaluate(() => (window as unknown as { editorJson(): string }).editorJson());

/** What the model must hold once `from` is replaced by `to` in each pair, and nothing else. */
function replaced(before: Model, ...pairs: [string, string][]): Model {
  const swap = (text: string) => pairs.reduce((result, [from, to]) => result.replace(from, to), text);
  return { text: swap(before.text), blocks: before.blocks, markdown: before.markdown === null ? null : swap(before.markdown) };
}

async function openEditor(page: Page, editor: (typeof EDITORS)[number], pagesUrl: string, query = ''): Promise<Model> {
  await page.goto(`${pagesUrl}/${editor.page}.html${query}`);
  await expect.poll(() => page.evaluate(() => typeof (window as unknown as { editorText?: unknown }).editorText)).toBe('function');
  await expect(page.locator(editor.root)).toHaveAttribute('contenteditable', 'true');
  await page.locator(editor.root).focus();
  const before = await model(page);
  expect(before.text).toBe(`${HEADING}\n${PAGE_TEXT}\n${SECOND_PARAGRAPH}`);
  if (!query) expect(before.blocks).toEqual(['heading2', 'paragraph', 'paragraph']);
  if (editor.markdown && !query) expect(before.markdown).toContain(`${PAGE_TEXT}\n\n${SECOND_PARAGRAPH}`);
  return before;
}

/** The detector's check: the two AI-like sentences highlighted. */
async function checkHighlightsBoth(page: Page, stack: Stack): Promise<void> {
  await stack.run(page, 'detector');
  expect(await waitForToast(page, /labelled AI|nothing|no text|cannot|can't/i)).toContain('2 sentences labelled AI are highlighted');
  expect(await highlightedTexts(page)).toEqual(AI_SENTENCES);
}

/** The humanizer's suggestions (model cognia), in the side panel. */
async function suggestions(page: Page, stack: Stack, ready = /rewrite is ready/): Promise<Page> {
  await stack.configure({ defaultModel: 'cognia' });
  await stack.run(page, 'humanizer');
  await waitForToast(page, ready);
  return stack.openSidePanel(page);
}

/**
 * Accepts one suggestion. Whatever the panel says, the model must agree with it: unchanged
 * (`unchanged` still true) when it says the edit did not apply, and it must say "Accepted".
 */
async function accept(item: Locator, unchanged: () => Promise<void>): Promise<void> {
  await item.getByRole('button', { name: 'Accept', exact: true }).click();
  await expect(item.getByTestId('decision').or(item.getByTestId('apply-problem'))).toBeVisible({ timeout: 15_000 });
  if (!(await item.getByTestId('decision').count())) await unchanged();
  await expect(item.getByTestId('decision')).toHaveText('Accepted');
}

for (const editor of EDITORS) {
  test(`${editor.name}: check, highlights, and an accept lands in the editor's model; undo restores it`, async ({ page, stack }) => {
    const before = await openEditor(page, editor, stack.pagesUrl);
    const json = await modelJson(page);

    await checkHighlightsBoth(page, stack);
    // Highlights are drawn over the editor's DOM without changing its model.
    expect(await model(page)).toEqual(before);

    const panel = await suggestions(page, stack);
    const first = panel.getByTestId('suggestions').locator('li.suggestion').first();
    await expect(first).toContainText('fast-paced digital landscape');
    await accept(first, async () => expect(await model(page)).toEqual(before));
    await expect.poll(() => model(page)).toEqual(replaced(before, [ORIGINAL, SUGGESTION]));

    // One accept is one undo step of the editor's own history.
    await page.bringToFront();
    await page.locator(editor.root).focus();
    await page.keyboard.press('Control+z');
    await expect.poll(() => model(page)).toEqual(before);
    expect(await modelJson(page)).toBe(json);
    await panel.close();
  });

  test(`${editor.name}: accept all lands both in the model, then undo steps as the panel says`, async ({ page, stack }) => {
    const before = await openEditor(page, editor, stack.pagesUrl);
    const panel = await suggestions(page, stack, /rewrite is ready: 2 suggestions/);
    await panel.getByRole('button', { name: 'Accept all (2)' }).click();
    await expect(panel.getByTestId('decision')).toHaveText(['Accepted', 'Accepted'], { timeout: 20_000 });
    await expect.poll(() => model(page)).toEqual(replaced(before, [ORIGINAL, SUGGESTION], [AI_SENTENCES[1]!, SECOND_SUGGESTION]));
    await expectUndoAsTheNoteSays(page, page.mainFrame(), editor.root, panel, before.text, modelText);
    expect(await model(page)).toEqual(before);
    await panel.close();
  });

  test(`${editor.name}: a check with the caret in another block covers the document, and the accept goes into its sentence's block`, async ({ page, stack }) => {
    const before = await openEditor(page, editor, stack.pagesUrl);
    // The caret at the end of the last paragraph, not in the AI-like one.
    await page.locator(`${editor.root} p`, { hasText: SECOND_PARAGRAPH }).click();
    await page.keyboard.press('End');
    await checkHighlightsBoth(page, stack);

    const panel = await suggestions(page, stack);
    const item = panel.getByTestId('suggestions').locator('li.suggestion', { hasText: 'ever-evolving' });
    await item.getByRole('button', { name: 'Accept', exact: true }).click();
    await expect(item.getByTestId('decision')).toHaveText('Accepted', { timeout: 15_000 });
    await expect.poll(() => model(page)).toEqual(replaced(before, [AI_SENTENCES[1]!, SECOND_SUGGESTION]));
    // Typing after the accept goes where the writer's caret is and into the model.
    await page.bringToFront();
    await page.locator(`${editor.root} p`, { hasText: SECOND_PARAGRAPH }).click();
    await page.keyboard.press('End');
    await page.keyboard.type(' Still mine.');
    await expect.poll(() => modelText(page)).toBe(replaced(before, [AI_SENTENCES[1]!, SECOND_SUGGESTION], [SECOND_PARAGRAPH, `${SECOND_PARAGRAPH} Still mine.`]).text);
    await panel.close();
  });
}

// The AI-like text in a bullet list item, its first sentence with a bold run inside: the
// highlight spans the run, the accept replaces the sentence's changed words and nothing else
// (the list item stays a list item, the next sentence and block are untouched), and undo brings
// back the document exactly, bold run included: one step per changed part, as the panel says
// (formatting separates the parts, edit-regions.ts).
const BOLD = 'crucial role';
for (const editor of EDITORS) {
  test(`${editor.name}: a sentence with a bold run in a list item is highlighted, rewritten in the model, and undone exactly`, async ({ page, stack }) => {
    const before = await openEditor(page, editor, stack.pagesUrl, '?rich');
    expect(before.blocks).toEqual(['heading2', editor.page === 'milkdown' ? 'bullet_list' : 'bulletListItem', 'paragraph']);
    const json = await modelJson(page);
    expect(json).toMatch(/"(bold|strong)"/); // BlockNote's style, Milkdown's mark
    const markdownOriginal = ORIGINAL.replace(BOLD, `**${BOLD}**`);
    if (editor.markdown) expect(before.markdown).toContain(markdownOriginal);

    await checkHighlightsBoth(page, stack);

    const panel = await suggestions(page, stack);
    const item = panel.getByTestId('suggestions').locator('li.suggestion', { hasText: 'fast-paced digital landscape' });
    await accept(item, async () => expect(await modelJson(page)).toBe(json));
    const expected = replaced(before, [ORIGINAL, SUGGESTION]);
    if (expected.markdown !== null) expected.markdown = before.markdown!.replace(markdownOriginal, SUGGESTION);
    // The bold run's words are all replaced; the new words that took their place may keep its bold
    // (Milkdown gives "central **to**", BlockNote plain text): the words are compared, and that
    // nothing but them changed.
    const unbolded = (m: Awaited<ReturnType<typeof model>>) => ({ ...m, markdown: m.markdown?.replaceAll('**', '') ?? null });
    await expect.poll(async () => unbolded(await model(page))).toEqual(unbolded(expected));

    await expect(panel.getByTestId('undo-note')).toContainText('undo there takes a step per part');
    await page.bringToFront();
    await page.locator(editor.root).focus();
    // At most one step per changed part: "In today's … note that", "plays a", "crucial role in".
    for (let presses = 0; presses < 3 && (await modelJson(page)) !== json; presses++) {
      await page.keyboard.press('Control+z');
      await page.waitForTimeout(200);
    }
    await expect.poll(() => modelJson(page)).toBe(json);
    expect(await model(page)).toEqual(before);
    await panel.close();
  });
}
