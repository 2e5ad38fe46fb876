import { test, expect } from './fixtures.ts';
import { humanize as rewriteOffline, splitSentences } from '@redline/shared/analysis';
import { FORMATTED_TEXT } from './pages/text.ts';
import { FORMATTED_EDITORS } from './pages/formatted-editors.ts';
import { frameToast, modelText, openFormatted, rawModelText } from './formatted-page.ts';

// CKEditor 4 (classic, iframe): its own undo manager keeps snapshots of the HTML, taken on the
// writer's keys, and its `change` event is what apps (autosave, ckeditor4-react's onChange) read.
// An accept goes in through its API, between two of its undo images (editor-api.content.ts). After
// the writer's own typing, one accept and Ctrl+Z: the undo must take back the accept, not the
// writer's typing.
const editor = FORMATTED_EDITORS.find((entry) => entry.name === 'CKEditor 4')!;
const SENTENCES = splitSentences(FORMATTED_TEXT).map((sentence) => sentence.text);
const REWRITTEN = splitSentences(rewriteOffline(FORMATTED_TEXT, 'huma_v2').humanized_text).map((sentence) => sentence.text);
const TYPED = ' Typed by me.';

test('CKEditor 4: an accept after the writer typed is one undo step that keeps their typing, and CKEditor hears of it', async ({ page, stack }) => {
  const frame = await openFormatted(page, stack, editor);
  await page.evaluate(() => {
    const w = window as unknown as { ckeditor: { on(event: string, listener: () => void): void }; ckChanges: number };
    w.ckChanges = 0;
    w.ckeditor.on('change', () => w.ckChanges++);
  });
  // The writer types at the end of the second paragraph.
  await frame.locator(editor.root).focus();
  await frame.evaluate(() => {
    const last = document.body.lastElementChild!;
    const range = document.createRange();
    range.selectNodeContents(last);
    range.collapse(false);
    getSelection()!.removeAllRanges();
    getSelection()!.addRange(range);
  });
  await page.keyboard.type(TYPED, { delay: 20 });
  await page.waitForTimeout(1200);
  const typed = await modelText(page, frame, editor.root);
  expect(typed).toContain(`Tuesday.${TYPED}`);
  const changesAfterTyping = await page.evaluate(() => (window as unknown as { ckChanges: number }).ckChanges);

  await stack.configure({ defaultModel: 'huma_v2' });
  await stack.run(page, 'humanizer');
  await expect.poll(() => frameToast(frame), { timeout: 15_000 }).toMatch(/rewrite is ready: 2 suggestions/);
  const panel = await stack.openSidePanel(page);
  const first = panel.getByTestId('suggestions').locator(':scope > li').first();
  await first.getByRole('button', { name: 'Accept', exact: true }).click();
  await expect(first.getByTestId('decision')).toHaveText('Accepted', { timeout: 20_000 });
  const accepted = typed.replace(SENTENCES[0]!, REWRITTEN[0]!);
  await expect.poll(() => modelText(page, frame, editor.root)).toBe(accepted);
  await page.waitForTimeout(1000);
  const changesAfterAccept = await page.evaluate(() => (window as unknown as { ckChanges: number }).ckChanges);
  const raw = await rawModelText(page);
  console.log(`CKEditor 4: change events: ${changesAfterTyping} after typing, ${changesAfterAccept} after the accept; raw model after accept: ${JSON.stringify(raw)}`);
  console.log(`CKEditor 4: html after accept: ${await page.evaluate(() => (window as unknown as { editorHtml(): string }).editorHtml())}`);
  console.log(`CKEditor 4: panel undo note: ${await panel.getByTestId('undo-note').allTextContents()}`);

  // CKEditor heard of the accept: its `change` event (autosave, ckeditor4-react's onChange).
  expect(changesAfterAccept).toBeGreaterThan(changesAfterTyping);

  await page.bringToFront();
  await frame.locator(editor.root).focus();
  // The sentence has formatting inside it, so its accept is a step per part (the panel's note):
  // Ctrl+Z goes back through the parts to the writer's typed text, and only then takes the typing.
  const steps: string[] = [];
  for (let press = 1; press <= 6; press++) {
    await page.keyboard.press('Control+z');
    await page.waitForTimeout(300);
    const text = await modelText(page, frame, editor.root);
    const state = text === typed ? 'typed' : text === accepted ? 'accepted' : !text.includes(TYPED) ? 'typing undone' : 'a part undone';
    steps.push(state);
    if (state !== 'a part undone') console.log(`CKEditor 4: Ctrl+Z ${press}: ${state}`);
    else console.log(`CKEditor 4: Ctrl+Z ${press}: ${state}: ${JSON.stringify(text)}`);
    if (state === 'typed' || state === 'typing undone') break;
  }
  // (Before CKEditor 4 had a family of its own, the first Ctrl+Z undid the accept and the typing together.)
  expect(steps.at(-1)).toBe('typed');
  await panel.close();
});
