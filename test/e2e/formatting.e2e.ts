import type { Page } from '@playwright/test';
import { test, expect } from './fixtures.ts';
import { humanize as rewriteOffline, splitSentences } from '@redline/shared/analysis';
import { waitForToast } from './page-probes.ts';
import { FORMATTED_HTML, FORMATTED_TEXT } from './pages/text.ts';

// A sentence with formatting inside it (bold words, a link, an italic opener): accepting its
// rewrite changes only the words the rewrite changes, so the bold and the link stay on the words
// it kept, and the italic does not spread over the rest of the sentence. Read back from the
// editor's DOM and its own model.
const SENTENCES = splitSentences(FORMATTED_TEXT).map((sentence) => sentence.text);
const REWRITTEN = splitSentences(rewriteOffline(FORMATTED_TEXT, 'huma_v2').humanized_text).map((sentence) => sentence.text);

const EDITORS = [
  { name: 'contenteditable', page: 'plain', root: '#editor' },
  { name: 'Quill', page: 'quill', root: '.ql-editor' },
  { name: 'Tiptap', page: 'tiptap', root: '.ProseMirror' },
  { name: 'CKEditor 5', page: 'ckeditor', root: '.ck-editor__editable' },
];

/** The editor's own model's text; a bare contenteditable's as the writer sees it (a no-break space is a space). */
const modelText = (page: Page, root: string): Promise<string> =>
  page.evaluate((selector) => {
    const read = (window as unknown as { editorText?(): string }).editorText;
    return (read ? read() : document.querySelector<HTMLElement>(selector)!.innerText).replace(/\u00a0/g, ' ');
  }, root);

/** The text of every element of `tag` inside the editor. */
const textsOf = (page: Page, root: string, tag: string): Promise<string[]> =>
  page.locator(root).evaluate((element, name) => [...element.querySelectorAll(name)].map((node) => node.textContent ?? ''), tag);

for (const editor of EDITORS) {
  test(`${editor.name}: accepting a rewrite keeps the formatting of the words it kept`, async ({ page, stack }) => {
    await page.goto(`${stack.pagesUrl}/${editor.page}.html?formatted`);
    if (editor.page === 'plain') await page.locator(editor.root).evaluate((element, html) => (element.innerHTML = html), FORMATTED_HTML);
    await expect.poll(() => textsOf(page, editor.root, 'a')).toEqual(['fostering innovation']);
    await page.locator(editor.root).focus();
    const before = await modelText(page, editor.root);
    expect(before).toContain(SENTENCES[0]);
    expect(REWRITTEN[0]).not.toBe(SENTENCES[0]);
    expect(REWRITTEN[2]).not.toBe(SENTENCES[2]);

    await stack.configure({ defaultModel: 'huma_v2' });
    await stack.run(page, 'humanizer');
    await waitForToast(page, /rewrite is ready: 2 suggestions/);
    const panel = await stack.openSidePanel(page);
    await panel.getByRole('button', { name: 'Accept all (2)' }).click();
    await expect(panel.getByTestId('decision')).toHaveText(['Accepted', 'Accepted'], { timeout: 30_000 });
    const expected = before.replace(SENTENCES[0]!, REWRITTEN[0]!).replace(SENTENCES[2]!, REWRITTEN[2]!);
    await expect.poll(() => modelText(page, editor.root)).toBe(expected);

    expect(await textsOf(page, editor.root, 'a')).toEqual(['fostering innovation']);
    expect(await textsOf(page, editor.root, 'strong')).toEqual(['artificial intelligence', 'comprehensive tools']);
    // The italic opener was rewritten ("Moreover" → "Also"): the italic, if any is left, holds no more than that.
    for (const italic of await textsOf(page, editor.root, 'em, i')) expect('Also').toContain(italic);
    console.log(`${editor.name}: ${await page.locator(editor.root).innerHTML()}`);

    // Undo as the panel says: the formatting comes back with the words.
    await page.bringToFront();
    await page.locator(editor.root).focus();
    let presses = 0;
    while ((await modelText(page, editor.root)) !== before && presses < 8) {
      await page.keyboard.press('Control+z');
      presses++;
      await page.waitForTimeout(150);
    }
    console.log(`${editor.name}: ${presses} undo steps for Accept all`);
    await expect(panel.getByTestId('undo-note')).toContainText('undo there takes a step per part');
    expect(await modelText(page, editor.root)).toBe(before);
    expect(await textsOf(page, editor.root, 'em, i')).toEqual(['Moreover']);
    await panel.close();
  });
}
