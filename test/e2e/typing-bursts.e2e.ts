import type { Locator, Page } from '@playwright/test';
import { test, expect, type Stack } from './fixtures.ts';
import { highlightedTexts, waitForToast, expectInOrder } from './page-probes.ts';
import { AI_SENTENCES } from './pages/text.ts';

/**
 * Typing is followed once per burst (TypingBurst): while the writer types in one text node the
 * browser moves the live highlight ranges, and the spans are remapped when the writer pauses or
 * the caret jumps. Two bursts in different places, the second starting right after the caret
 * jumped there (well inside the 250 ms pause), in editors that re-render their DOM differently:
 * once the writer pauses, exactly the AI sentences no burst touched are highlighted, every range
 * sits in the editor's live text, and the editor's own model holds exactly what was typed.
 */

const SECOND_PARAGRAPH = 'A second paragraph, written by me on a Tuesday.';

const EDITORS = [
  { name: 'Tiptap (ProseMirror)', page: 'tiptap', root: '.ProseMirror' },
  { name: 'Lexical', page: 'lexical', root: '#editor' },
  { name: 'Quill', page: 'quill', root: '.ql-editor' },
  { name: 'Slate', page: 'slate', root: '[data-slate-editor]' },
  { name: 'CKEditor 5', page: 'ckeditor', root: '.ck-editor__editable' },
];

// Lower-case words and spaces only: no editor turns them into formatting or blocks.
const FIRST_BURST = ' swiftly typed words';
const SECOND_BURST = ' and more words here';

/** The document as the editor's own model holds it (pages/*.ts: `editorText`). */
const modelText = (page: Page): Promise<string> => page.evaluate(() => (window as unknown as { editorText(): string }).editorText());


/** Every range registered under the extension's highlight names whose ends are not in the editor's connected text. */
function strayRanges(root: Locator): Promise<string[]> {
  return root.evaluate((root) => {
    const stray: string[] = [];
    for (const [name, highlight] of CSS.highlights) {
      if (!name.startsWith('redline-')) continue;
      for (const range of highlight as Highlight) {
        for (const [end, node] of [['start', (range as Range).startContainer], ['end', (range as Range).endContainer]] as const) {
          if (node.nodeType !== Node.TEXT_NODE || !node.isConnected || !root.contains(node)) {
            stray.push(`${name} "${range.toString()}": ${end} in ${node.nodeName} (connected: ${node.isConnected}, in the editor: ${root.contains(node)})`);
          }
        }
      }
    }
    return stray;
  });
}

/** The caret `offset` characters into the editor's text node that holds `sentence` (as editors.e2e.ts places it). */
function placeCaret(root: Locator, sentence: string, offset: number): Promise<void> {
  return root.evaluate(
    (root, [sentence, offset]) => {
      const walker = root.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
        const at = node.data.indexOf(sentence.slice(0, 20));
        if (at >= 0) {
          root.ownerDocument.getSelection()!.collapse(node, at + offset);
          return;
        }
      }
      throw new Error(`no text node holds "${sentence}"`);
    },
    [sentence, offset] as const,
  );
}

/** Where a click lands inside `sentence`, `offset` characters in, in page coordinates. */
function pointIn(root: Locator, sentence: string, offset: number): Promise<{ x: number; y: number }> {
  return root.evaluate(
    (root, [sentence, offset]) => {
      const walker = root.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
        const at = node.data.indexOf(sentence.slice(0, 20));
        if (at < 0) continue;
        const range = root.ownerDocument.createRange();
        range.setStart(node, at + offset);
        range.setEnd(node, at + offset + 1);
        const rect = range.getClientRects()[0]!;
        return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
      }
      throw new Error(`no text node holds "${sentence}"`);
    },
    [sentence, offset] as const,
  );
}

async function openAndCheck(page: Page, stack: Stack, editor: (typeof EDITORS)[number]): Promise<{ root: Locator; before: string }> {
  await page.goto(`${stack.pagesUrl}/${editor.page}.html`);
  await expect.poll(() => page.evaluate(() => typeof (window as unknown as { editorText?: unknown }).editorText)).toBe('function');
  const root = page.locator(editor.root);
  await expect(root).toHaveCount(1);
  await root.click();
  const before = await modelText(page);
  expect(before).toContain(AI_SENTENCES[0]);
  expect(before).toContain(AI_SENTENCES[1]);
  expect(before).toContain(SECOND_PARAGRAPH);
  await stack.run(page, 'detector');
  await waitForToast(page, /2 sentences labelled AI/);
  expect(await highlightedTexts(page)).toEqual(AI_SENTENCES);
  return { root, before };
}

/** Once the writer pauses: what is highlighted, where the ranges are, and the editor's text. */
async function expectAfterPause(page: Page, root: Locator, untouched: string[], touched: string, expectedText: (text: string) => void): Promise<void> {
  await expect(async () => {
    const drawn = await highlightedTexts(page);
    expectInOrder(drawn, untouched);
    expect(drawn).toHaveLength(untouched.length);
    expect(drawn).not.toContain(touched);
    expect(drawn.join('\n')).not.toContain('swiftly');
    expect(drawn.join('\n')).not.toContain('more words');
    expect(await strayRanges(root)).toEqual([]);
  }).toPass({ timeout: 3_000 });
  expectedText(await modelText(page));
  // Still so a moment later: nothing the extension drew after the pause moved the writer's text.
  await page.waitForTimeout(300);
  expectedText(await modelText(page));
  expect(await strayRanges(root)).toEqual([]);
}

for (const editor of EDITORS) {
  test.describe(`${editor.name}: typing bursts`, () => {
    test('a burst inside the first AI sentence, then Ctrl+End and a burst at the end of the next paragraph', async ({ page, stack }) => {
      const { root, before } = await openAndCheck(page, stack, editor);
      const [first, second] = AI_SENTENCES as [string, string];
      const into = "In today's fast-paced digital".length;
      await placeCaret(root, first, into);
      await page.keyboard.type(FIRST_BURST, { delay: 30 });
      // The caret jumps to the other paragraph and typing goes on there, well within the pause.
      await page.keyboard.press('Control+End');
      await page.keyboard.type(SECOND_BURST, { delay: 30 });

      const firstAt = before.indexOf(first) + into;
      const endOfSecondParagraph = before.indexOf(SECOND_PARAGRAPH) + SECOND_PARAGRAPH.length;
      const typed = before.slice(0, firstAt) + FIRST_BURST + before.slice(firstAt, endOfSecondParagraph) + SECOND_BURST + before.slice(endOfSecondParagraph);
      await expectAfterPause(page, root, [second], first, (text) => expect(text).toBe(typed));
    });

    test('a burst at the end of the last paragraph, then a click inside the second AI sentence and a burst there', async ({ page, stack }) => {
      const { root, before } = await openAndCheck(page, stack, editor);
      const [first, second] = AI_SENTENCES as [string, string];
      // Measured before typing: the text typed below the sentence does not move it.
      const into = 'Moreover, organizations must navigate the'.length;
      const click = await pointIn(root, second, into);
      await page.keyboard.press('Control+End');
      await page.keyboard.type(FIRST_BURST, { delay: 30 });
      // A click in the other paragraph, and typing there, well within the pause.
      await page.mouse.click(click.x, click.y);
      await page.keyboard.type(SECOND_BURST, { delay: 30 });

      const endOfSecondParagraph = before.indexOf(SECOND_PARAGRAPH) + SECOND_PARAGRAPH.length;
      const afterFirstBurst = before.slice(0, endOfSecondParagraph) + FIRST_BURST + before.slice(endOfSecondParagraph);
      await expectAfterPause(page, root, [first], second, (text) => {
        // The click lands beside the character clicked: the second burst is somewhere inside the second AI sentence.
        const at = text.indexOf(SECOND_BURST);
        expect(at, `"${SECOND_BURST}" is in the editor's text`).toBeGreaterThanOrEqual(0);
        expect(text.slice(0, at) + text.slice(at + SECOND_BURST.length)).toBe(afterFirstBurst);
        const sentenceAt = afterFirstBurst.indexOf(second);
        expect(at).toBeGreaterThan(sentenceAt);
        expect(at).toBeLessThan(sentenceAt + second.length);
      });
    });
  });
}
