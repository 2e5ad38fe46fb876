import { test, expect } from './fixtures.ts';
import { humanize as rewriteOffline, splitSentences } from '@redline/shared/analysis';
import { FORMATTED_TEXT } from './pages/text.ts';
import { FORMATTED_EDITORS } from './pages/formatted-editors.ts';
import { frameToast, modelText, openFormatted } from './formatted-page.ts';

// Editors whose pages count their own change event in `editorChanges()` (SunEditor's onChange,
// Trumbowyg's tbwchange, Pell's onChange, CKEditor 4's change, wangEditor's onChange,
// Mobiledoc-kit's postDidChange, RoosterJS's input and contentChanged plugin events, Plate's
// onChange: what a page's autosave listens to).
// After the writer's own typing, one accept: the editor's change event fires for it, and Ctrl+Z
// takes back the accept (a step per part: the sentence has formatting inside it) and then the
// writer's typing, never the two together. (CKEditor 4 takes undo images only on keys: before it
// had a family of its own, going in between two of its images through its API, the first Ctrl+Z
// undid the accept and the typing together, and it fired no `change`.)
const EDITORS = FORMATTED_EDITORS.filter((editor) => ['SunEditor', 'Trumbowyg', 'Pell', 'CKEditor 4', 'wangEditor', 'Mobiledoc-kit', 'RoosterJS', 'Plate'].includes(editor.name));
const SENTENCES = splitSentences(FORMATTED_TEXT).map((sentence) => sentence.text);
const REWRITTEN = splitSentences(rewriteOffline(FORMATTED_TEXT, 'huma_v2').humanized_text).map((sentence) => sentence.text);
const TYPED = ' Typed by me.';
const changes = (page: import('@playwright/test').Page) => page.evaluate(() => (window as unknown as { editorChanges(): number }).editorChanges());

for (const editor of EDITORS) {
  test(`${editor.name}: an accept after the writer typed fires the editor's change event and is undone before their typing`, async ({ page, stack }) => {
    const frame = await openFormatted(page, stack, editor);
    await frame.locator(editor.root).focus();
    // The caret at the end, and a frame before the first key, as after a writer's click:
    // Mobiledoc-kit reads the DOM selection once a frame (it polls on requestAnimationFrame), so
    // keys typed at once went in where its caret had been, at the start.
    await frame.locator(editor.root).evaluate(async (root) => {
      const range = document.createRange();
      range.selectNodeContents(root.lastElementChild!);
      range.collapse(false);
      getSelection()!.removeAllRanges();
      getSelection()!.addRange(range);
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    });
    await page.keyboard.type(TYPED, { delay: 20 });
    await page.waitForTimeout(1200);
    const typed = await modelText(page, frame, editor.root);
    expect(typed).toContain(`Tuesday.${TYPED}`);
    const changesAfterTyping = await changes(page);

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
    const changesAfterAccept = await changes(page);
    console.log(`${editor.name}: change events: ${changesAfterTyping} after typing, ${changesAfterAccept} after the accept`);
    expect(changesAfterAccept).toBeGreaterThan(changesAfterTyping);

    await page.bringToFront();
    await frame.locator(editor.root).focus();
    const steps: string[] = [];
    for (let press = 1; press <= 8; press++) {
      await page.keyboard.press('Control+z');
      await page.waitForTimeout(300);
      const text = await modelText(page, frame, editor.root);
      const state = text === typed ? 'typed' : text === accepted ? 'accepted' : !text.includes(TYPED) ? 'typing undone' : 'a part undone';
      steps.push(state);
      console.log(`${editor.name}: Ctrl+Z ${press}: ${state}${state === 'a part undone' || state === 'typing undone' ? `: ${JSON.stringify(text)}` : ''}`);
      if (state === 'typed' || state === 'typing undone') break;
    }
    expect(steps.at(-1)).toBe('typed');
    await panel.close();
  });
}
