import { test, expect } from './fixtures.ts';
import { humanize as rewriteOffline, splitSentences } from '@redline/shared/analysis';
import { FORMATTED_TEXT } from './pages/text.ts';
import { FORMATTED_EDITORS } from './pages/formatted-editors.ts';
import { frameToast, modelText, openFormatted, textsOf } from './formatted-page.ts';
import { nbsp, rawModel } from './page-probes.ts';

// A sentence with formatting inside it (bold words, a link, an italic opener): accepting its
// rewrite changes only the words the rewrite changes, so the bold and the link stay on the words
// it kept, and the italic does not spread over the rest of the sentence. Read back from the
// editor's DOM and its own model.
const SENTENCES = splitSentences(FORMATTED_TEXT).map((sentence) => sentence.text);
const REWRITTEN = splitSentences(rewriteOffline(FORMATTED_TEXT, 'huma_v2').humanized_text).map((sentence) => sentence.text);
/** What took the place of the italic opener ("Moreover") in the rewrite: the first word of its sentence ("Also", or "Organizations" where the opener went). */
const ITALIC_REWRITTEN = /^\p{L}+/u.exec(REWRITTEN[2]!)![0];
/** The rewrite dropped the italic opener whole ("Moreover, organizations" → "Organizations"): no italic may be left. */
const OPENER_DROPPED = ITALIC_REWRITTEN.toLowerCase() === SENTENCES[2]!.split(' ')[1]!.toLowerCase();

const EDITORS = FORMATTED_EDITORS;

for (const editor of EDITORS) {
  test(`${editor.name}: accepting a rewrite keeps the formatting of the words it kept`, async ({ page, stack }) => {
    // (Draft.js until 2026-11-27: a native edit of the italic opener and the plain words after it
    // was read back into the leaf before, replacing the sentence before it: the text corrupted
    // while the panel said "The editor changed the text differently". Draft is now edited by paste.)
    const bold = editor.bold ?? 'strong';
    const italic = editor.italic ?? 'em, i';
    const frame = await openFormatted(page, stack, editor);
    expect(await textsOf(frame, editor.root, bold)).toEqual(['artificial intelligence', 'comprehensive tools']);
    expect(await textsOf(frame, editor.root, italic)).toEqual(['Moreover']);
    await frame.locator(editor.focus ?? editor.root).first().focus();
    const before = await modelText(page, frame, editor.root);
    const rawBefore = await rawModel(page);
    expect(before).toContain(SENTENCES[0]);
    expect(before).toContain(SENTENCES[2]);
    expect(REWRITTEN[0]).not.toBe(SENTENCES[0]);
    expect(REWRITTEN[2]).not.toBe(SENTENCES[2]);

    await stack.configure({ defaultModel: 'huma_v2' });
    await stack.run(page, 'humanizer');
    await expect.poll(() => frameToast(frame), { timeout: 15_000 }).toMatch(/rewrite is ready: 2 suggestions/);
    const panel = await stack.openSidePanel(page);
    await panel.getByRole('button', { name: 'Accept all (2)' }).click();
    await expect(panel.getByTestId('decision')).toHaveText(['Accepted', 'Accepted'], { timeout: 30_000 });
    const expected = before.replace(SENTENCES[0]!, REWRITTEN[0]!).replace(SENTENCES[2]!, REWRITTEN[2]!);
    await expect.poll(() => modelText(page, frame, editor.root)).toBe(expected);
    // "Accepted" was said with the model holding the text: it still does a moment later.
    await page.waitForTimeout(500);
    expect(await modelText(page, frame, editor.root)).toBe(expected);

    expect(await textsOf(frame, editor.root, 'a')).toEqual(['fostering innovation']);
    expect(await textsOf(frame, editor.root, bold)).toEqual(['artificial intelligence', 'comprehensive tools']);
    // The italic opener was rewritten: the italic, if any is left, holds no more than what took its
    // place (with the space after it: a part takes in the space that follows it, see edit-regions.ts).
    const italicLeft = (await textsOf(frame, editor.root, italic)).filter((run) => run !== '');
    // (Until 2026-11-27 the five ProseMirror-based editors left the new first letter italic: `<em>O</em>rganizations`.)
    if (OPENER_DROPPED) expect(italicLeft).toEqual([]);
    else for (const text of italicLeft) expect(ITALIC_REWRITTEN).toContain(text.trimEnd());
    console.log(`${editor.name}: ${await frame.locator(editor.root).innerHTML()}`);
    const rawAfter = await rawModel(page);
    // Where white space collapses, the browser writes a space at the edge of a run as a no-break
    // space, and the editor saves `&nbsp;` (four after this Accept all in eight editors until
    // 2026-11-27: a bare contenteditable, Squire, Jodit, Summernote, medium-editor, Editor.js,
    // Quill 1, Milkdown; CKEditor 4 too). The edit now runs with white space preserved
    // (lib/page/native-edit.ts): no no-break space comes into any model.
    console.log(`${editor.name}: no-break spaces in the model: ${nbsp(rawBefore)} before, ${nbsp(rawAfter)} after`);
    expect(nbsp(rawAfter)).toBe(nbsp(rawBefore));
    const markdown = await page.evaluate(() => (window as unknown as { editorMarkdown?(): string }).editorMarkdown?.());
    if (markdown !== undefined) console.log(`${editor.name} (Markdown): ${markdown}`);

    // Undo as the panel says: the formatting comes back with the words.
    await page.bringToFront();
    await frame.locator(editor.focus ?? editor.root).first().focus();
    let presses = 0;
    while ((await modelText(page, frame, editor.root)) !== before && presses < 8) {
      await page.keyboard.press('Control+z');
      presses++;
      await page.waitForTimeout(150);
    }
    console.log(`${editor.name}: ${presses} undo steps for Accept all; raw model back exactly: ${(await rawModel(page)) === rawBefore}`);
    await expect(panel.getByTestId('undo-note')).toContainText('undo there takes a step per part');
    expect(await modelText(page, frame, editor.root)).toBe(before);
    expect(await textsOf(frame, editor.root, 'a')).toEqual(['fostering innovation']);
    expect(await textsOf(frame, editor.root, bold)).toEqual(['artificial intelligence', 'comprehensive tools']);
    expect(await textsOf(frame, editor.root, italic)).toEqual(['Moreover']);
    await panel.close();
  });
}
