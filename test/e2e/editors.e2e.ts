import type { Frame, Page } from '@playwright/test';
import { test, expect, type Stack } from './fixtures.ts';
import { waitForToast } from './page-probes.ts';
import { expectUndoAsTheNoteSays, undo } from './undo-probes.ts';
import { humanize as rewriteOffline, splitSentences } from '@redline/shared/analysis';
import { AI_SENTENCES, PAGE_TEXT } from './pages/text.ts';

// Slate, CKEditor 5 and TinyMCE (classic: the editable body is in an about:srcdoc iframe),
// each self-hosted from npm: capture, highlights, accept one, accept all, undo, an edit after
// the check, and an editor that refuses the change.

declare const chrome: any;

const ORIGINAL = AI_SENTENCES[0]!;
const SECOND_ORIGINAL = AI_SENTENCES[1]!;
const SECOND_PARAGRAPH = 'A second paragraph, written by me on a Tuesday.';
// The double rewrites with the shared humanizer and the panel's default model: the suggestions
// are its rewrites of the two AI-like sentences (the first and third of the page).
const REWRITE = splitSentences(rewriteOffline(`${PAGE_TEXT}\n\n${SECOND_PARAGRAPH}`, 'cognia').humanized_text).map((sentence) => sentence.text);
const SUGGESTION = REWRITE[0]!;
const SECOND_SUGGESTION = REWRITE[2]!;

interface EditorCase {
  name: string;
  page: string;
  /** The frame that holds the editable root (TinyMCE: its iframe). */
  frame(page: Page): Frame;
  root: string;
  /** Whether undo takes an accept back (README's editor table). */
  undoes: boolean;
}

const main = (page: Page) => page.mainFrame();
const tinymceFrame = (page: Page) => page.frames().find((frame) => frame !== page.mainFrame() && frame.url().startsWith('about:'))!;

const EDITORS: EditorCase[] = [
  { name: 'Slate', page: 'slate', frame: main, root: '[data-slate-editor]', undoes: true },
  { name: 'CKEditor 5', page: 'ckeditor', frame: main, root: '.ck-editor__editable', undoes: true },
  { name: 'TinyMCE', page: 'tinymce', frame: tinymceFrame, root: 'body#tinymce', undoes: true },
];

const modelText = (page: Page) => page.evaluate(() => (window as unknown as { editorText(): string }).editorText());
const frameToast = (frame: Frame) => frame.evaluate(() => document.querySelector('redline-toast')?.shadowRoot?.querySelector('.toast')?.textContent ?? '');
const frameHighlights = (frame: Frame) =>
  frame.evaluate(() => {
    const ranges: Range[] = [];
    for (const name of ['redline-ai-1', 'redline-ai-2', 'redline-ai-3']) for (const range of CSS.highlights.get(name) ?? []) ranges.push(range as Range);
    return ranges.sort((a, b) => a.compareBoundaryPoints(Range.START_TO_START, b)).map((range) => range.toString());
  });

async function open(page: Page, stack: Stack, editor: EditorCase): Promise<Frame> {
  await page.goto(`${stack.pagesUrl}/${editor.page}.html`);
  await expect.poll(() => page.evaluate(() => typeof (window as unknown as { editorText?: unknown }).editorText)).toBe('function');
  await expect.poll(() => editor.frame(page)?.locator(editor.root).count() ?? 0).toBe(1);
  const frame = editor.frame(page);
  await frame.locator(editor.root).click();
  return frame;
}

async function humanize(page: Page, frame: Frame, stack: Stack): Promise<Page> {
  await stack.configure({ defaultModel: 'cognia' });
  await stack.run(page, 'humanizer');
  await expect.poll(() => frameToast(frame)).toMatch(/rewrite is ready: 2 suggestions/);
  return stack.openSidePanel(page);
}

for (const editor of EDITORS) {
  test.describe(editor.name, () => {
    test('captures the text canonically, highlights exactly the AI sentences, and the count follows an edit', async ({ page, stack }) => {
      const frame = await open(page, stack, editor);
      const before = await modelText(page);
      await stack.run(page, 'detector');
      await expect.poll(() => frameToast(frame)).toMatch(/2 sentences labelled AI/);
      expect(await frameHighlights(frame)).toEqual(AI_SENTENCES);
      expect(await modelText(page)).toBe(before); // highlighting never touches the document

      const tabId = await stack.tabIdOf(page);
      const sent = await stack.serviceWorker.evaluate(async (id) => (await chrome.storage.session.get(`tab-${id}`))[`tab-${id}`].checks.detector.text, tabId);
      expect(sent).toBe(`${PAGE_TEXT}\n\n${SECOND_PARAGRAPH}`);

      // Typing inside the first AI sentence drops its highlight, and the toast's count follows.
      await frame.locator(editor.root).evaluate((root, sentence) => {
        const walker = root.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
          const at = node.data.indexOf(sentence.slice(0, 20));
          if (at >= 0) {
            root.ownerDocument.getSelection()!.collapse(node, at + 'In today'.length);
            return;
          }
        }
      }, ORIGINAL);
      await page.keyboard.type('x');
      await expect.poll(() => modelText(page)).toContain("In todayx's");
      await expect.poll(() => frameHighlights(frame)).toEqual([AI_SENTENCES[1]]);
      await expect.poll(() => frameToast(frame)).toMatch(/1 sentence labelled AI/);
    });

    test('accept one lands in the model and one undo restores it; accept all lands both; undo steps as documented', async ({ page, stack }) => {
      const frame = await open(page, stack, editor);
      const before = await modelText(page);
      expect(before).toContain(ORIGINAL);
      const panel = await humanize(page, frame, stack);
      await expect(panel.getByTestId('undo-note')).toContainText(editor.name);
      const first = panel.getByTestId('suggestions').locator('li.suggestion').first();
      await first.getByRole('button', { name: 'Accept', exact: true }).click();
      await expect(first.getByTestId('decision')).toHaveText('Accepted');
      console.log(`strategy ${editor.name}: ${await first.getAttribute('data-strategy')}`);
      await expect.poll(() => modelText(page)).toBe(before.replace(ORIGINAL, SUGGESTION));
      await expect(frame.locator(editor.root)).toContainText(SUGGESTION);
      await undo(page, frame, editor.root);
      if (!editor.undoes) {
        // The panel says this editor keeps no undo step for an accept: hold it to that.
        await expect(panel.getByTestId('undo-note')).toContainText('not kept in the editor');
        await page.waitForTimeout(1000);
        expect(await modelText(page)).toBe(before.replace(ORIGINAL, SUGGESTION));
        await panel.close();
        return;
      }
      await expect.poll(() => modelText(page)).toBe(before);
      // Redo brings the accepted sentence back, and undo takes it away again, in one step each.
      const redoKeys = editor.name === 'Slate' ? ['Control+Shift+z'] : ['Control+Shift+z', 'Control+y'];
      for (const keys of redoKeys) {
        await undo(page, frame, editor.root, keys);
        await expect.poll(() => modelText(page)).toBe(before.replace(ORIGINAL, SUGGESTION));
        await undo(page, frame, editor.root);
        await expect.poll(() => modelText(page)).toBe(before);
      }
      await panel.close();

      // Accept all, on a fresh rewrite of the whole text (undo may leave the sentence selected).
      await frame.evaluate(() => getSelection()?.collapseToEnd());
      const again = await humanize(page, frame, stack);
      await again.getByRole('button', { name: 'Accept all (2)' }).click();
      await expect(again.getByTestId('decision')).toHaveText(['Accepted', 'Accepted']);
      await expect.poll(() => modelText(page)).toBe(before.replace(ORIGINAL, SUGGESTION).replace(SECOND_ORIGINAL, SECOND_SUGGESTION));
      await expectUndoAsTheNoteSays(page, frame, editor.root, again, before, modelText);
      await again.close();
    });

    test('when the editor is made read-only, the writer is told, their selection stays and the suggestion pending', async ({ page, stack }) => {
      const frame = await open(page, stack, editor);
      const before = await modelText(page);
      const panel = await humanize(page, frame, stack);
      await page.evaluate(() => (window as unknown as { refuseEdits(): void }).refuseEdits());
      const writersSelection = await frame.evaluate(() => getSelection()?.toString());
      const first = panel.getByTestId('suggestions').locator('li.suggestion').first();
      await first.getByRole('button', { name: 'Accept', exact: true }).click();
      // Each page refuses by its editor's read-only mode: the writer is told so, and nothing is tried.
      await expect(first.getByTestId('apply-problem')).toContainText('the page has made this text read-only');
      await expect(first.getByRole('button', { name: 'Accept', exact: true })).toBeVisible(); // still pending
      await expect(first.getByTestId('decision')).toHaveCount(0);
      expect(await modelText(page)).toBe(before);
      // Not selected for pasting over (a read-only editor takes no paste either): the writer's own selection is back.
      expect(await frame.evaluate(() => getSelection()?.toString())).toBe(writersSelection);

      await page.evaluate(() => (window as unknown as { allowEdits(): void }).allowEdits());
      await first.getByRole('button', { name: 'Accept', exact: true }).click();
      await expect(first.getByTestId('decision')).toHaveText('Accepted');
      await expect.poll(() => modelText(page)).toBe(before.replace(ORIGINAL, SUGGESTION));

      // The next keystroke lands where the writer types, and the accepted text stays.
      await page.bringToFront();
      await frame.locator(editor.root).focus();
      await page.keyboard.press('Control+End');
      await page.keyboard.type('!');
      await expect.poll(() => modelText(page)).toBe(`${before.replace(ORIGINAL, SUGGESTION)}!`);
      await expect(frame.locator(editor.root)).toContainText(SUGGESTION);
      await panel.close();
    });
  });
}

test('an editor that ignores every synthetic edit: the panel never says Accepted, and the text is untouched', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/stubborn.html`);
  await page.locator('#editor').click();
  const before = await modelText(page);
  const frame = page.mainFrame();
  const panel = await humanize(page, frame, stack);
  const items = panel.getByTestId('suggestions').locator('li.suggestion');
  await items.first().getByRole('button', { name: 'Accept', exact: true }).click();
  await expect(items.first().getByTestId('apply-problem')).toContainText('did not take the change');
  // Left selected for the writer to paste the rewrite over.
  expect(await page.evaluate(() => getSelection()?.toString())).toBe(ORIGINAL);
  await panel.getByRole('button', { name: 'Accept all (2)' }).click();
  await expect(panel.getByTestId('apply-problem')).not.toHaveCount(0);
  await page.waitForTimeout(1500);
  await expect(panel.getByText('Accepted', { exact: true })).toHaveCount(0);
  await expect(panel.getByTestId('decision')).toHaveCount(0);
  expect(await modelText(page)).toBe(before);
  expect(await page.locator('#editor').innerText()).toContain(ORIGINAL);
  await panel.close();
});

test('the same content is captured as the same text in a textarea and in a contenteditable', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const texts: string[] = [];
  for (const selector of ['#field', '#editor']) {
    await page.locator(selector).click();
    await stack.run(page, 'detector');
    await waitForToast(page, /labelled AI/);
    const tabId = await stack.tabIdOf(page);
    texts.push(await stack.serviceWorker.evaluate(async (id) => (await chrome.storage.session.get(`tab-${id}`))[`tab-${id}`].checks.detector.text, tabId));
    await page.evaluate(() => document.querySelector('redline-toast')?.remove());
  }
  expect(texts[0]).toBe(`${PAGE_TEXT}\n\n${SECOND_PARAGRAPH}`);
  expect(texts[1]).toBe(texts[0]);
});

test('an editor in an open shadow root is checked; one in a closed shadow root gets a message, not silence', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/shadow.html`);
  await page.locator('#open .editor').click();
  await stack.run(page, 'detector');
  await waitForToast(page, /2 sentences labelled AI/);
  expect(await frameHighlights(page.mainFrame())).toEqual(AI_SENTENCES);
  // The highlight styles are in the shadow root, where document styles do not reach.
  const styled = await page.evaluate(() =>
    document.querySelector('#open')!.shadowRoot!.adoptedStyleSheets.some((sheet) => [...sheet.cssRules].some((rule) => rule.cssText.includes('redline-ai'))),
  );
  expect(styled).toBe(true);
  await page.evaluate(() => document.querySelector('redline-toast')?.remove());

  await page.evaluate(() => (window as unknown as { focusClosed(): void }).focusClosed());
  await stack.run(page, 'detector');
  await waitForToast(page, /closed web component/);
});

test('the focus in a frame the extension cannot reach gets a message, not silence', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/unreachable.html`);
  await expect.poll(() => stack.tabIdOf(page).then(() => true, () => false)).toBe(true); // the top frame has the script
  await page.frameLocator('#frame').locator('div').click();
  await stack.run(page, 'detector');
  await waitForToast(page, /cannot reach the editor you are in/);
});

// The editors covered elsewhere (rewrite.e2e.ts): what undo does after Accept all is what the panel says.
for (const editor of [
  { name: 'contenteditable', page: 'plain', root: '#editor' },
  { name: 'Tiptap', page: 'tiptap', root: '.ProseMirror' },
  { name: 'CodeMirror', page: 'codemirror', root: '.cm-content' },
  { name: 'Quill', page: 'quill', root: '.ql-editor' },
  { name: 'Lexical', page: 'lexical', root: '#editor' },
]) {
  test(`${editor.name}: accept all, then undo steps as the panel says`, async ({ page, stack }) => {
    await page.goto(`${stack.pagesUrl}/${editor.page}.html`);
    await page.locator(editor.root).click();
    const text = () => modelText(page);
    const before = await text();
    const panel = await humanize(page, page.mainFrame(), stack);
    await panel.getByRole('button', { name: 'Accept all (2)' }).click();
    await expect(panel.getByTestId('decision')).toHaveText(['Accepted', 'Accepted']);
    await expect.poll(text).not.toBe(before);
    await expectUndoAsTheNoteSays(page, page.mainFrame(), editor.root, panel, before, modelText);
    await panel.close();
  });
}
