import { test, expect } from './fixtures.ts';
import { highlightedTexts, waitForToast } from './page-probes.ts';
import { AI_SENTENCES } from './pages/text.ts';

// Real editor libraries from npm, each on its own page.
const EDITORS = [
  { name: 'tiptap', root: '.ProseMirror' },
  { name: 'codemirror', root: '.cm-content' },
  { name: 'quill', root: '.ql-editor' },
  { name: 'lexical', root: '#editor' },
];

for (const editor of EDITORS) {
  test(`${editor.name}: highlights exactly the AI sentences without touching the editor's DOM or model`, async ({ page, stack }) => {
    await page.goto(`${stack.pagesUrl}/${editor.name}.html`);
    const root = page.locator(editor.root);
    await root.click();
    const before = {
      html: await root.innerHTML(),
      text: await page.evaluate(() => (window as unknown as { editorText(): string }).editorText()),
    };

    await stack.run(page, 'detector');
    await waitForToast(page, /2 sentences labelled AI/);
    expect(await highlightedTexts(page)).toEqual(AI_SENTENCES);
    await page.waitForTimeout(200); // let the editor react, if it were going to
    expect(await root.innerHTML()).toBe(before.html);
    expect(await page.evaluate(() => (window as unknown as { editorText(): string }).editorText())).toBe(before.text);

    const panel = await stack.openSidePanel(page);
    await panel.getByTestId('flagged-sentences').getByRole('button').first().click();
    await expect.poll(() => page.evaluate(() => getSelection()?.toString())).toBe(AI_SENTENCES[0]);
    await panel.close();
  });
}
