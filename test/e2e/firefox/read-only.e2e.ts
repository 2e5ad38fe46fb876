import type { Page } from 'puppeteer-core';
import { humanize, splitSentences } from '@redline/shared/analysis';
import { AI_SENTENCES, PAGE_TEXT } from '../pages/text.ts';
import { textOf, waitForToast } from '../page-probes.ts';
import { test, expect } from './fixtures.ts';
import { poll, sleep } from './poll.ts';

// outside-editors-5.e2e.ts's locked editors in Firefox ESR: the page makes the editor read-only
// between the rewrite and the accept. The sidebar must not say Accepted and must say why; the
// editor's model stays as it was; editable again, the same accept lands.

const ORIGINAL = AI_SENTENCES[0]!;
const SUGGESTION = splitSentences(humanize(PAGE_TEXT, 'cognia').humanized_text)[0]!.text;

interface Lockable {
  name: string;
  page: string;
  root: string;
  /** The page's textarea, whose value is its model. */
  field?: true;
  lock(tab: Page, locked: boolean): Promise<void>;
}

const byPage = (tab: Page, locked: boolean) => tab.evaluate((locked) => (window as unknown as Record<string, () => void>)[locked ? 'refuseEdits' : 'allowEdits']!(), locked);

const LOCKABLE: Lockable[] = [
  { name: 'Tiptap setEditable(false)', page: 'tiptap', root: '.ProseMirror', lock: byPage },
  { name: 'Quill 2 disable()', page: 'quill', root: '.ql-editor', lock: byPage },
  { name: 'Lexical setEditable(false)', page: 'lexical', root: '#editor', lock: byPage },
  { name: 'CodeMirror 6 EditorState.readOnly', page: 'codemirror', root: '.cm-content', lock: byPage },
  { name: 'textarea readOnly', page: 'plain', root: '#field', field: true, lock: (tab, locked) => tab.$eval('#field', (field, locked) => void ((field as HTMLTextAreaElement).readOnly = locked), locked) },
  { name: 'contenteditable set to "false"', page: 'plain', root: '#editor', lock: (tab, locked) => tab.$eval('#editor', (editor, locked) => editor.setAttribute('contenteditable', locked ? 'false' : 'true'), locked) },
];

for (const editor of LOCKABLE) {
  test(`Firefox ${editor.name} between the rewrite and the accept: never Accepted, the text unchanged; editable again, the accept lands`, async ({ tab, firefox }) => {
    test.setTimeout(120_000);
    await tab.goto(`${firefox.pagesUrl}/${editor.page}.html`);
    await tab.bringToFront();
    await tab.waitForSelector(editor.root);
    const text = editor.field
      ? () => tab.$eval('#field', (field) => (field as HTMLTextAreaElement).value)
      : () => tab.evaluate(() => (window as unknown as { editorText(): string }).editorText());
    await poll(text, (value) => value.includes(ORIGINAL), 10_000);
    await tab.$eval(editor.root, (root) => (root as HTMLElement).focus());
    const before = await text();

    await firefox.configure({ defaultModel: 'cognia' });
    await firefox.run(tab, 'humanizer');
    await waitForToast(tab, /rewrite is ready/);
    const sidebar = await firefox.openSidebarWindow(tab);
    try {
      const first = '[data-testid=suggestions] li.suggestion:first-of-type';
      await sidebar.waitForSelector(first);
      const decide = async () => {
        await sidebar.locator(`${first} ::-p-aria([name="Accept"][role="button"])`).click();
        return poll(
          async () => ({ decision: await textOf(sidebar, `${first} [data-testid=decision]`), problem: await textOf(sidebar, `${first} [data-testid=apply-problem]`) }),
          (value) => value.decision !== '' || value.problem !== '',
          20_000,
        );
      };

      await editor.lock(tab, true);
      const locked = await decide();
      expect(locked.decision).not.toBe('Accepted');
      expect(locked.problem).toContain('read-only');
      await sleep(300);
      expect(await text()).toBe(before);

      await editor.lock(tab, false);
      await tab.$eval(editor.root, (root) => (root as HTMLElement).focus());
      await decide();
      const accepted = await poll(() => textOf(sidebar, `${first} [data-testid=decision]`), (decision) => decision === 'Accepted', 20_000);
      expect(accepted).toBe('Accepted');
      expect(await poll(text, (value) => value === before.replace(ORIGINAL, SUGGESTION), 5_000)).toBe(before.replace(ORIGINAL, SUGGESTION));
    } finally {
      await sidebar.close();
    }
  });
}
