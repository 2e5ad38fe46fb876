import type { Page } from '@playwright/test';
import { test, expect, type Stack } from './fixtures.ts';
import { caretAfterText, waitForToast } from './page-probes.ts';
import { humanize as rewriteOffline, splitSentences } from '@redline/shared/analysis';
import { AI_SENTENCES, PAGE_TEXT } from './pages/text.ts';

// A demanding writer against Accept / Accept all / Undo: they keep working in the page (in the
// editor, or in another field on it) while a suggestion goes in, move their caret, press the
// editor's undo, and their sentences hold things that are not plain words (an inline image).
// Nothing they typed or formatted may be lost or land elsewhere than where they put it, and the
// panel says "Accepted" only when the editor's model holds the suggestion.

const SECOND_PARAGRAPH = 'A second paragraph, written by me on a Tuesday.';
const REWRITE = splitSentences(rewriteOffline(`${PAGE_TEXT}\n\n${SECOND_PARAGRAPH}`, 'cognia').humanized_text).map((sentence) => sentence.text);
const [ORIGINAL, SECOND_ORIGINAL] = AI_SENTENCES as [string, string];
const [SUGGESTION, SECOND_SUGGESTION] = [REWRITE[0]!, REWRITE[2]!];
const TYPED = ' and then I kept on typing';

const modelText = (page: Page) => page.evaluate(() => (window as unknown as { editorText(): string }).editorText());
const typedAtEnd = (text: string, typed: string) => text.replace(/\s*$/, (tail) => typed + tail);

async function humanizeIn(page: Page, stack: Stack, pageName: string, root: string, prepare?: (page: Page) => Promise<unknown>): Promise<Page> {
  await page.goto(`${stack.pagesUrl}/${pageName}.html`);
  await expect.poll(() => page.evaluate(() => typeof (window as unknown as { editorText?: unknown }).editorText)).toBe('function');
  if (prepare) await prepare(page);
  await page.locator(root).click();
  await page.keyboard.press('Control+End');
  await stack.configure({ defaultModel: 'cognia' });
  await stack.run(page, 'humanizer');
  await waitForToast(page, /rewrite is ready: 2 suggestions/);
  return stack.openSidePanel(page);
}

const suggestionItem = (panel: Page, n: number) => panel.getByTestId('suggestions').locator('li.suggestion').nth(n);
const settled = (panel: Page, n: number) =>
  expect(suggestionItem(panel, n).getByTestId('decision').or(suggestionItem(panel, n).getByTestId('apply-problem')).first()).toBeVisible({ timeout: 20_000 });
const isAccepted = async (panel: Page, n: number) => (await suggestionItem(panel, n).getByTestId('decision').allTextContents()).includes('Accepted');

// 1. The writer's caret is in another field of the same page (a title, a comment box) while the
// suggestions go into the editor: the apply must not take their keys away from that field.
// (A defect until 2026-11-27: the apply watched only the editor for the writer's keys, then
// focused the editor to select the sentence, and the keys after that landed there: the field
// stopped mid-word and "Moreover, organizations must navigate the complexities of " was replaced
// by the rest of the typing.)
test('contenteditable: typing in another field on the page while Accept all goes into the editor keeps every key in that field', async ({ page, stack }) => {
  const panel = await humanizeIn(page, stack, 'plain', '#editor');
  const before = await modelText(page);
  const field = page.locator('#field');
  const fieldBefore = await field.inputValue();
  await field.click();
  await page.keyboard.press('Control+End');
  const typed = ' My title note, typed in the other box while the rewrite went in, every key of it.';
  const typing = page.keyboard.type(typed, { delay: 40 });
  await page.waitForTimeout(200);
  await panel.getByRole('button', { name: 'Accept all (2)' }).click();
  await typing;
  // Accept all goes last first; after one that did not go in, the rest stay pending.
  await settled(panel, 1);
  await page.waitForTimeout(1500);
  for (const n of [0, 1]) console.log(`other field, suggestion ${n}: ${await suggestionItem(panel, n).locator('[data-testid=decision], [data-testid=apply-problem]').allTextContents()}`);
  console.log(`other field: editor "${await modelText(page)}"; field "${await field.inputValue()}"`);

  // Every key went where the writer was typing: the other field.
  expect(await field.inputValue()).toBe(fieldBefore + typed);
  // The editor holds each sentence whole, one way or the other, and nothing the writer typed.
  const after = await modelText(page);
  const first = (await isAccepted(panel, 0)) ? SUGGESTION : ORIGINAL;
  const second = (await isAccepted(panel, 1)) ? SECOND_SUGGESTION : SECOND_ORIGINAL;
  expect(after).toBe(before.replace(ORIGINAL, first).replace(SECOND_ORIGINAL, second));
  await panel.close();
});

// 2. The writer moves their caret while the accept is under way (they pressed Accept, went back
// to the page and put the caret at the end of the text to go on writing). What they type after
// "Accepted" goes there, not into the middle of the document where the suggestion was put.
for (const editor of [
  { name: 'contenteditable', page: 'plain', root: '#editor' },
  { name: 'tiptap', page: 'tiptap', root: '.ProseMirror' },
  { name: 'textarea', page: 'plain', root: '#field' },
  { name: 'wangEditor', page: 'wangeditor', root: '[data-slate-editor]' },
  { name: 'RoosterJS', page: 'roosterjs', root: '#editor' },
  { name: 'Plate', page: 'plate', root: '[data-slate-editor]' },
]) {
  // (A defect until 2026-11-27: after an accept the caret was left at the suggestion; the writer's
  // own caret was put back only when they pressed a key during the apply.)
  test(`${editor.name}: the caret the writer put at the end during an accept is where their next keys go`, async ({ page, stack }) => {
    const read = () => (editor.root === '#field' ? page.locator('#field').inputValue() : modelText(page));
    const panel = await humanizeIn(page, stack, editor.page, editor.root);
    const before = await read();
    await page.locator(editor.root).focus();
    await page.keyboard.press('Control+Home');
    const first = suggestionItem(panel, 0);
    await first.getByRole('button', { name: 'Accept', exact: true }).click();
    await page.keyboard.press('Control+End'); // the writer, back in the page: the end of their text
    await expect(first.getByTestId('decision')).toHaveText('Accepted', { timeout: 15_000 });
    await page.keyboard.type(TYPED, { delay: 20 });
    await page.waitForTimeout(300);
    expect(await read()).toBe(typedAtEnd(before.replace(ORIGINAL, SUGGESTION), TYPED));
    await panel.close();
  });
}

// 3. An inline image (a chart, an emoji picture) inside a rewritten sentence is the writer's
// content too: an accept that changes the words around it must not delete it.
test('contenteditable: an inline image inside a rewritten sentence is still there after Accept', async ({ page, stack }) => {
  const IMG = '<img id="chart" alt="chart" width="16" height="16" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">';
  const panel = await humanizeIn(page, stack, 'plain', '#editor', (page) =>
    page.locator('#editor').evaluate((element, img) => {
      element.innerHTML = element.innerHTML.replace('a crucial role', `a crucial ${img}role`);
    }, IMG),
  );
  const before = await modelText(page);
  expect(before).toContain(ORIGINAL);
  expect(await page.locator('#editor img').count()).toBe(1);
  const first = suggestionItem(panel, 0);
  await first.getByRole('button', { name: 'Accept', exact: true }).click();
  await settled(panel, 0);
  const accepted = await isAccepted(panel, 0);
  console.log(`image: ${accepted ? 'Accepted' : await first.getByTestId('apply-problem').textContent()}; ${await page.locator('#editor').innerHTML()}`);
  // Accepted or not, the writer's image is still in the editor; if not, the panel says why.
  expect(await page.locator('#editor img').count()).toBe(1);
  if (!accepted) await expect(first.getByTestId('apply-problem')).toContainText('hold an image');
  await panel.close();
});

test('Quill: an inline image inside a rewritten sentence is still in the model after Accept', async ({ page, stack }) => {
  const panel = await humanizeIn(page, stack, 'quill', '.ql-editor', (page) =>
    page.locator('.ql-editor').evaluate(async (element) => {
      // Pasted as a writer would paste a picture: Quill makes it an image embed of its model.
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      let node: Text | null;
      while ((node = walker.nextNode() as Text | null) && !node.data.includes('role'));
      (element as HTMLElement).focus();
      const range = document.createRange();
      range.setStart(node!, node!.data.indexOf('role'));
      getSelection()!.removeAllRanges();
      getSelection()!.addRange(range);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const data = new DataTransfer();
      data.setData('text/html', '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">');
      element.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }),
  );
  expect(await page.locator('.ql-editor img').count()).toBe(1);
  const first = suggestionItem(panel, 0);
  await first.getByRole('button', { name: 'Accept', exact: true }).click();
  await settled(panel, 0);
  console.log(`Quill image: accepted=${await isAccepted(panel, 0)}; ${await page.locator('.ql-editor').innerHTML()}`);
  expect(await page.locator('.ql-editor img').count()).toBe(1);
  if (!(await isAccepted(panel, 0))) await expect(first.getByTestId('apply-problem')).toContainText('hold an image');
  await panel.close();
});

/** Puts the caret just before `needle` in the editor (through the DOM selection, as a click would) and types `text` there. */
async function typeBefore(page: Page, root: string, needle: string, text: string): Promise<void> {
  await page.locator(root).evaluate(async (element, needle) => {
    (element as HTMLElement).focus();
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    let node: Text | null;
    while ((node = walker.nextNode() as Text | null) && !node.data.includes(needle));
    const range = document.createRange();
    range.setStart(node!, node!.data.indexOf(needle));
    getSelection()!.removeAllRanges();
    getSelection()!.addRange(range);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }, needle);
  await page.keyboard.insertText(text);
  await page.waitForTimeout(100);
}

const RICH = [
  { name: 'contenteditable', page: 'plain', root: '#editor' },
  { name: 'tiptap', page: 'tiptap', root: '.ProseMirror' },
];

// 4. The writer presses the editor's undo (Ctrl+Z) in the page while an accept goes in. Whatever
// the undo took back, the panel says "Accepted" only while the model holds the suggestion.
for (const editor of RICH) {
  for (const delay of [100, 800]) {
    test(`${editor.name}: Ctrl+Z in the page ${delay} ms after Accept: the panel's word matches the model`, async ({ page, stack }) => {
      const panel = await humanizeIn(page, stack, editor.page, editor.root);
      await page.keyboard.type(' Mine.', { delay: 10 }); // something of the writer's own for the undo to take
      await page.waitForTimeout(700);
      const before = await modelText(page);
      const first = suggestionItem(panel, 0);
      await first.getByRole('button', { name: 'Accept', exact: true }).click();
      await page.waitForTimeout(delay);
      await page.keyboard.press('Control+z');
      await settled(panel, 0);
      await page.waitForTimeout(1500); // an undo the session hears of reaches the panel
      const after = await modelText(page);
      const accepted = await isAccepted(panel, 0);
      console.log(`${editor.name} Ctrl+Z at ${delay} ms: accepted=${accepted}; ${JSON.stringify(after)}; ${await first.getByTestId('apply-problem').allTextContents()}`);
      expect(after.includes(SUGGESTION)).toBe(accepted);
      // The sentence is whole one way or the other; only the writer's own text may have been undone.
      expect(after.includes(SUGGESTION) || after.includes(ORIGINAL)).toBe(true);
      expect([before, before.replace(' Mine.', ''), before.replace(ORIGINAL, SUGGESTION), before.replace(ORIGINAL, SUGGESTION).replace(' Mine.', '')]).toContain(after);
      await panel.close();
    });
  }
}

// 5. The panel's Undo while the writer keeps typing at the end of their text.
for (const editor of [...RICH, { name: 'textarea', page: 'plain', root: '#field' }]) {
  test(`${editor.name}: the panel's Undo while the writer types at the end keeps their typing and says what the text holds`, async ({ page, stack }) => {
    const read = () => (editor.root === '#field' ? page.locator('#field').inputValue() : modelText(page));
    const panel = await humanizeIn(page, stack, editor.page, editor.root);
    const before = await read();
    const first = suggestionItem(panel, 0);
    await first.getByRole('button', { name: 'Accept', exact: true }).click();
    await expect(first.getByTestId('decision')).toHaveText('Accepted', { timeout: 15_000 });
    await page.locator(editor.root).focus();
    await page.keyboard.press('Control+End');
    const typing = page.keyboard.type(TYPED, { delay: 30 });
    await page.waitForTimeout(150);
    await first.getByRole('button', { name: 'Undo' }).click();
    await typing;
    await page.waitForTimeout(2000);
    const after = await read();
    const accepted = await isAccepted(panel, 0);
    console.log(`${editor.name} Undo while typing: accepted=${accepted}; ${JSON.stringify(after)}; ${await first.getByTestId('apply-problem').allTextContents()}`);
    expect(after).toBe(typedAtEnd(accepted ? before.replace(ORIGINAL, SUGGESTION) : before, TYPED));
    await panel.close();
  });
}

// 6. Text that is not plain words: emoji (surrogate pairs) inside and beside the rewritten
// sentences, a no-break space, a mention chip the editor does not let the caret into.
test('contenteditable: Accept all over sentences with emoji beside their words', async ({ page, stack }) => {
  const text = PAGE_TEXT.replace('digital landscape, it', 'digital landscape 🌍, it').replace('kinda closed', 'kinda closed 😅');
  const rewrite = splitSentences(rewriteOffline(text, 'cognia').humanized_text).map((sentence) => sentence.text);
  const originals = splitSentences(text).map((sentence) => sentence.text);
  const panel = await humanizeIn(page, stack, 'plain', '#editor', (page) =>
    page.locator('#editor').evaluate((element, text) => (element.innerHTML = `<p>${text}</p><p>A second paragraph, written by me on a Tuesday.</p>`), text),
  );
  const before = await modelText(page);
  await panel.getByRole('button', { name: 'Accept all (2)' }).click();
  await expect(panel.getByTestId('decision')).toHaveText(['Accepted', 'Accepted'], { timeout: 20_000 });
  expect((await modelText(page)).replace(/\u00a0/g, ' ')).toBe(before.replace(originals[0]!, rewrite[0]!).replace(originals[2]!, rewrite[2]!));
  await panel.close();
});

test('tiptap: Accept all over sentences with emoji beside their words', async ({ page, stack }) => {
  const panel = await humanizeIn(page, stack, 'tiptap', '.ProseMirror', async (page) => {
    await typeBefore(page, '.ProseMirror', ', it is important', ' 🌍');
    await typeBefore(page, '.ProseMirror', '. Moreover', ' 😅');
  });
  const text = PAGE_TEXT.replace('digital landscape, it', 'digital landscape 🌍, it').replace('kinda closed', 'kinda closed 😅');
  const rewrite = splitSentences(rewriteOffline(text, 'cognia').humanized_text).map((sentence) => sentence.text);
  const originals = splitSentences(text).map((sentence) => sentence.text);
  const before = await modelText(page);
  expect(before).toContain(text);
  await panel.getByRole('button', { name: 'Accept all (2)' }).click();
  await expect(panel.getByTestId('decision')).toHaveText(['Accepted', 'Accepted'], { timeout: 20_000 });
  expect(await modelText(page)).toBe(before.replace(originals[0]!, rewrite[0]!).replace(originals[2]!, rewrite[2]!));
  await panel.close();
});

test('contenteditable: a mention chip (not editable) inside a rewritten sentence is kept, the words around it rewritten', async ({ page, stack }) => {
  const CHIP = '<span class="mention" contenteditable="false" style="background:#def">@Dana Levi</span>';
  const text = PAGE_TEXT.replace('artificial intelligence', '@Dana Levi');
  const rewrite = splitSentences(rewriteOffline(text, 'cognia').humanized_text).map((sentence) => sentence.text);
  const originals = splitSentences(text).map((sentence) => sentence.text);
  const panel = await humanizeIn(page, stack, 'plain', '#editor', (page) =>
    page.locator('#editor').evaluate((element, chip) => (element.innerHTML = element.innerHTML.replace('artificial intelligence', chip)), CHIP),
  );
  const before = await modelText(page);
  const first = suggestionItem(panel, 0);
  await first.getByRole('button', { name: 'Accept', exact: true }).click();
  await settled(panel, 0);
  const accepted = await isAccepted(panel, 0);
  console.log(`chip decision: ${await first.getByTestId('decision').allTextContents()}`);
  console.log(`chip: accepted=${accepted}; ${await first.getByTestId('apply-problem').allTextContents()}; ${await page.locator('#editor').innerHTML()}`);
  expect(await page.locator('#editor .mention').allTextContents()).toEqual(['@Dana Levi']);
  // Nothing of the writer's changed the text: the suggestion goes in (today it is withdrawn, "the
  // text changed since the rewrite", after the apply itself turned the space after the chip into a
  // no-break space and its sentence check compared that strictly).
  expect(await first.getByTestId('decision').allTextContents()).toEqual(['Accepted']);
  expect((await modelText(page)).replace(/\u00a0/g, ' ')).toBe(before.replace(originals[0]!, rewrite[0]!));
  await panel.close();
});

// Mobiledoc-kit's mention is an atom: its value drawn in a non-editable span, between two
// zero-width non-joiners (U+200C) the editor keeps for a caret beside it.
test('Mobiledoc-kit: a mention atom inside a rewritten sentence is kept in the model, the words around it rewritten', async ({ page, stack }) => {
  const text = PAGE_TEXT.replace('artificial intelligence', '@Dana Levi');
  const rewrite = splitSentences(rewriteOffline(text, 'cognia').humanized_text).map((sentence) => sentence.text);
  const originals = splitSentences(text).map((sentence) => sentence.text);
  const panel = await humanizeIn(page, stack, 'mobiledoc', '.__mobiledoc-editor', (page) => page.goto(`${stack.pagesUrl}/mobiledoc.html?mention`));
  const before = await modelText(page);
  expect(before).toContain(originals[0]);
  const first = suggestionItem(panel, 0);
  await first.getByRole('button', { name: 'Accept', exact: true }).click();
  await settled(panel, 0);
  console.log(`mobiledoc atom: ${await first.getByTestId('decision').allTextContents()} ${await first.getByTestId('apply-problem').allTextContents()}; ${await page.evaluate(() => (window as unknown as { editorJson(): string }).editorJson())}`);
  expect(await page.evaluate(() => (window as unknown as { editorJson(): string }).editorJson())).toContain('["mention","@Dana Levi",{}]');
  expect(await first.getByTestId('decision').allTextContents()).toEqual(['Accepted']);
  expect(await modelText(page)).toBe(before.replace(originals[0]!, rewrite[0]!));
  await panel.close();
});

// 7. contenteditable="plaintext-only" (a bare editor many sites use for comments).
test('plaintext-only contenteditable: typing while a suggestion goes in loses nothing and the panel says what the text holds', async ({ page, stack }) => {
  const panel = await humanizeIn(page, stack, 'plain', '#editor', (page) =>
    page.locator('#editor').evaluate((element) => {
      element.setAttribute('contenteditable', 'plaintext-only');
      element.style.whiteSpace = 'pre-wrap';
    }),
  );
  const before = await modelText(page);
  const first = suggestionItem(panel, 0);
  const typing = page.keyboard.type(TYPED, { delay: 25 });
  await page.waitForTimeout(150);
  await first.getByRole('button', { name: 'Accept', exact: true }).click();
  await typing;
  await settled(panel, 0);
  await page.waitForTimeout(300);
  const accepted = await isAccepted(panel, 0);
  console.log(`plaintext-only: accepted=${accepted}; ${await first.getByTestId('apply-problem').allTextContents()}`);
  expect(await modelText(page)).toBe(typedAtEnd(accepted ? before.replace(ORIGINAL, SUGGESTION) : before, TYPED));
  if (!accepted) {
    await first.getByRole('button', { name: 'Accept', exact: true }).click();
    await expect(first.getByTestId('decision')).toHaveText('Accepted', { timeout: 15_000 });
    expect(await modelText(page)).toBe(typedAtEnd(before.replace(ORIGINAL, SUGGESTION), TYPED));
  }
  await panel.close();
});

// 8. A co-author types elsewhere in the document while an accept goes in (collaborative editing:
// an editor bound to Yjs, the co-author a second editor with its own Y.Doc whose words arrive
// over a 30 ms "network", pages/coauthor.ts): ProseMirror by y-prosemirror, as Tiptap's and
// BlockNote's collaboration do; CodeMirror 6 by y-codemirror.next; Quill by y-quill; Lexical by
// @lexical/yjs. Their words are not the writer's input and not the editor's answer to the
// accept: none may be lost or rolled back, and the accept, in another place, goes in. After the
// sentence (the text before it stays put), and before it (each word moves the sentence). (A
// defect until 2026-11-27: the accept compared the whole text with the text expected, so any
// word of theirs made it fail, and it then tried to put back everything from the sentence to
// their words; the panel said the editor changed the text differently than asked, and to use
// its undo.)
const COAUTHOR_EDITORS = [
  { name: 'ProseMirror', page: 'collab', root: '.ProseMirror' },
  { name: 'CodeMirror 6', page: 'collab-codemirror', root: '.cm-content' },
  { name: 'Quill', page: 'collab-quill', root: '.ql-editor' },
  { name: 'Lexical', page: 'collab-lexical', root: '#editor' },
] as const;
const COAUTHOR_CASES = [
  { where: 'end', interval: 60, suggestion: 0 },
  { where: 'end', interval: 150, suggestion: 0 },
  { where: 'start', interval: 60, suggestion: 1 },
] as const;
type CoauthorEditor = (typeof COAUTHOR_EDITORS)[number];

/** The co-author types a word every `interval` ms (`where`: pages/coauthor.ts) while the writer accepts a suggestion; both copies must agree after. */
async function acceptWhileCoauthorTypes(page: Page, stack: Stack, editor: CoauthorEditor, where: 'start' | 'caret' | 'end', interval: number, suggestion: number) {
  const panel = await humanizeIn(page, stack, editor.page, editor.root);
  const before = await modelText(page);
  await page.evaluate(([ms, at]) => (window as unknown as { coauthor: { start(ms: number, where: string): void } }).coauthor.start(ms, at), [interval, where] as const);
  const item = suggestionItem(panel, suggestion);
  await item.getByRole('button', { name: 'Accept', exact: true }).click();
  await settled(panel, suggestion);
  await page.evaluate(() => (window as unknown as { coauthor: { stop(): void } }).coauthor.stop());
  await page.waitForTimeout(500); // the last words reach the writer
  const words = await page.evaluate(() => (window as unknown as { coauthor: { typed(): string[] } }).coauthor.typed());
  const after = await modelText(page);
  const accepted = await isAccepted(panel, suggestion);
  const problem = (await item.getByTestId('apply-problem').or(item.getByTestId('decision')).allTextContents()).join(' ');
  console.log(`${editor.name}, co-author every ${interval} ms at the ${where}: accepted=${accepted}; ${words.length} words; ${problem}; ${JSON.stringify(after)}`);
  // Both sides hold the same document: the writer's edits reached the co-author's copy.
  expect(await page.evaluate(() => (window as unknown as { coauthorText(): string }).coauthorText())).toBe(after);
  expect(words.length).toBeGreaterThan(3);
  const [original, rewrite] = suggestion === 0 ? [ORIGINAL, SUGGESTION] : [SECOND_ORIGINAL, SECOND_SUGGESTION];
  return { panel, before, after, words, accepted, problem, original, rewrite };
}

for (const editor of COAUTHOR_EDITORS)
  for (const { where, interval, suggestion } of COAUTHOR_CASES) {
    test(`${editor.name} + Yjs: a co-author typing every ${interval} ms at the ${where} during Accept of suggestion ${suggestion + 1} loses nothing, and the accept goes in`, async ({ page, stack }) => {
      const { panel, before, after, words, accepted, original, rewrite } = await acceptWhileCoauthorTypes(page, stack, editor, where, interval, suggestion);
      const writer = accepted ? before.replace(original, rewrite) : before;
      // At the end: before the newline that closes a Quill document.
      expect(after).toBe(where === 'end' ? typedAtEnd(writer, words.join('')) : [...words].reverse().join('') + writer);
      expect(accepted).toBe(true);
      await panel.close();
    });
  }

// A co-author's one word that arrives just after the accept's edit, on a page that had not
// changed by itself before (nothing told the apply the document is shared): it is not the
// editor's answer to the edit, and must not be rolled back with it. (A defect until 2026-11-27:
// in ProseMirror the rollback replaced the span from the sentence to their word with the old
// text, deleting the word for everyone, and the next strategy put the suggestion in again.)
// Not Lexical at the start: there the page loses the whole first paragraph, in both copies, when
// the co-author's word at its start meets the writer's replacement of the sentence that begins
// it, with no extension at all (a plain execCommand or beforeinput edit, then the word 10 ms
// later: 2 of 2). Whether @lexical/yjs 0.52 itself or this page's wiring of it (as @lexical/react's
// CollaborationPlugin wires it) is at fault is not settled; the binding has known trouble with
// concurrent edits in one text node (facebook/lexical#5693). No apply can prevent it.
for (const editor of COAUTHOR_EDITORS)
  for (const where of ['end', 'start'] as const) {
    if (editor.name === 'Lexical' && where === 'start') continue;
    test(`${editor.name} + Yjs: a co-author's one word arriving at the ${where} just after the accept's edit is kept, and the accept goes in`, async ({ page, stack }) => {
      const panel = await humanizeIn(page, stack, editor.page, editor.root);
      const before = await modelText(page);
      await page.evaluate((where) => (window as unknown as { coauthor: { afterWriter(ms: number, where: string): void } }).coauthor.afterWriter(10, where), where);
      const item = suggestionItem(panel, 0);
      await item.getByRole('button', { name: 'Accept', exact: true }).click();
      await settled(panel, 0);
      await page.waitForTimeout(500);
      const words = await page.evaluate(() => (window as unknown as { coauthor: { typed(): string[] } }).coauthor.typed());
      const after = await modelText(page);
      const accepted = await isAccepted(panel, 0);
      console.log(`${editor.name}, one co-author word at the ${where} after the edit: accepted=${accepted}; ${await item.getByTestId('apply-problem').allTextContents()}; ${JSON.stringify(after)}`);
      expect(words.length).toBe(1);
      expect(await page.evaluate(() => (window as unknown as { coauthorText(): string }).coauthorText())).toBe(after);
      const writer = accepted ? before.replace(ORIGINAL, SUGGESTION) : before;
      expect(after).toBe(where === 'end' ? typedAtEnd(writer, words[0]!) : words[0] + writer);
      expect(accepted).toBe(true);
      await panel.close();
    });
  }

// The writer's caret after the sentence, put back when the accept is done, is found by the words
// around it, not by how much the whole text grew: a co-author's words after it must not push it
// on. (A defect until 2026-11-27: the caret moved right by the length of every word the co-author
// had typed meanwhile, so the writer's next keys landed among the words after it.)
test("ProseMirror + Yjs: the writer's caret after the sentence stays between the same words while a co-author types at the end", async ({ page, stack }) => {
  const MARK = 'written by me';
  const panel = await humanizeIn(page, stack, 'collab', '.ProseMirror');
  const before = await modelText(page);
  await page.locator('.ProseMirror').evaluate(caretAfterText, MARK);
  await page.evaluate(() => (window as unknown as { coauthor: { start(ms: number, where: string): void } }).coauthor.start(60, 'end'));
  const item = suggestionItem(panel, 0);
  await item.getByRole('button', { name: 'Accept', exact: true }).click();
  await expect(item.getByTestId('decision')).toHaveText('Accepted', { timeout: 15_000 });
  await page.keyboard.type(TYPED, { delay: 20 });
  await page.evaluate(() => (window as unknown as { coauthor: { stop(): void } }).coauthor.stop());
  await page.waitForTimeout(500); // the last words reach the writer
  const words = await page.evaluate(() => (window as unknown as { coauthor: { typed(): string[] } }).coauthor.typed());
  const after = await modelText(page);
  console.log(`caret with a co-author: ${words.length} words; ${JSON.stringify(after)}`);
  expect(after).toBe(before.replace(ORIGINAL, SUGGESTION).replace(MARK, MARK + TYPED) + words.join(''));
  expect(words.length).toBeGreaterThan(3);
  await panel.close();
});

// The co-author types on at their caret just before the sentence, so their words land at the edge
// of the part that begins it, as it goes in. Whether a word there is theirs or the editor's answer
// to the edit cannot be told from the text (an editor that writes the suggestion twice reads the
// same way), so the accept is not claimed: the panel says the text was left as it is, to be
// checked, or, when their word came while the sentence was selected, that the suggestion is
// withdrawn (the text changed). Every word of theirs stays, in order, and the sentence is whole
// but for their words. (A defect until 2026-11-27: the apply took a word of theirs at the range's
// edge for part of its range and put the range back over it, and Quill took one into the selection
// the edit replaced: CodeMirror and Lexical lost 5 words, Quill 1 to 4.) Their words may follow
// the edit's inserted words rather than precede them: a word of theirs typed while the edit was on
// its way to them is a concurrent insert at the same place, which Yjs orders by client id, and
// their caret stays after their word (seen in Quill on a loaded machine, 1 run in 32: "co1 … co7
// Today, artificial intelligence is central to co8 … co16 fostering innovation.").
for (const editor of COAUTHOR_EDITORS)
  test(`${editor.name} + Yjs: a co-author typing every 60 ms just before the sentence during Accept of suggestion 1 loses nothing, and what the panel says holds`, async ({ page, stack }) => {
    const { panel, before, after, words, accepted, problem, original, rewrite } = await acceptWhileCoauthorTypes(page, stack, editor, 'caret', 60, 0);
    if (accepted) expect(after).toBe(words.join('') + before.replace(original, rewrite));
    else {
      expect(problem).toMatch(/^Not marked accepted: .*Redline left the text as it is|^Withdrawn: the text changed/);
      // Every word of theirs, once each, in the order typed.
      expect(after.match(/co\d+ /g)).toEqual(words);
      // Without their words, the sentence holds the suggestion, whole, or its original, whole.
      expect([before, before.replace(original, rewrite)]).toContain(after.replace(/co\d+ /g, ''));
    }
    await panel.close();
  });
