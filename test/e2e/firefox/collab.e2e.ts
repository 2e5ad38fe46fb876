import type { Page } from 'puppeteer-core';
import { humanize as rewriteOffline, splitSentences } from '@redline/shared/analysis';
import { AI_SENTENCES, PAGE_TEXT } from '../pages/text.ts';
import { test, expect } from './fixtures.ts';
import { poll, sleep } from './poll.ts';
import { caretAfterText, textOf } from '../page-probes.ts';

// accept-adversarial.e2e.ts's shared document in Debian's Firefox ESR with the Firefox build:
// ProseMirror bound to Yjs by y-prosemirror (pages/collab.ts), a co-author typing a word every
// 60 ms over a 30 ms "network" while the writer accepts a suggestion from the sidebar, in a
// window of its own (the editor's page visible, without the focus). None of the co-author's words
// may be lost or rolled back, both copies must agree, and the accept goes in; then the writer's
// next keys go where their caret was, between the same words.

const SECOND_PARAGRAPH = 'A second paragraph, written by me on a Tuesday.';
const REWRITE = splitSentences(rewriteOffline(`${PAGE_TEXT}\n\n${SECOND_PARAGRAPH}`, 'cognia').humanized_text).map((sentence) => sentence.text);
const [ORIGINAL, SECOND_ORIGINAL] = AI_SENTENCES as [string, string];
const [SUGGESTION, SECOND_SUGGESTION] = [REWRITE[0]!, REWRITE[2]!];
const TYPED = ' and then I kept on typing';
const MARK = 'written by me';

type CollabWindow = { editorText(): string; coauthorText(): string; coauthor: { start(ms: number, where: string): void; stop(): void; typed(): string[] } };
/** The page's editor and co-author (pages/collab.ts). */
const collab = (tab: Page) => ({
  text: () => tab.evaluate(() => (window as unknown as CollabWindow).editorText()),
  coauthorText: () => tab.evaluate(() => (window as unknown as CollabWindow).coauthorText()),
  start: (where: string) => tab.evaluate((where) => (window as unknown as CollabWindow).coauthor.start(60, where), where),
  stop: () => tab.evaluate(() => (window as unknown as CollabWindow).coauthor.stop()),
  typed: () => tab.evaluate(() => (window as unknown as CollabWindow).coauthor.typed()),
});
const toast = (tab: Page) => tab.evaluate(() => document.querySelector('redline-toast')?.shadowRoot?.querySelector('.toast')?.textContent ?? '');

// On 2026-11-29 the writer's next keys sometimes landed at the end of the accepted words (or of its
// last part), not where their caret was: 6 of 72 runs on a loaded machine (0 of 36 on a quiet one).
// A co-author's transaction wrote ProseMirror's stale selection back into the DOM between the
// restore of the writer's caret and the browser's selectionchange; the restore now tells the editor
// at once (writer-focus.ts, tellEditor): 0 of 36 loaded runs and 0 of 36 quiet ones failed after.
// Still retried once, since 36 runs cannot rule out a rarer race: a retry that passes is reported
// as flaky, so it stays visible.
test.describe.configure({ retries: 1 });

const CASES = [
  { where: 'end', suggestion: 0 },
  { where: 'start', suggestion: 1 },
] as const;

for (const { where, suggestion } of CASES) {
  test(`Firefox ProseMirror + Yjs: a co-author typing every 60 ms at the ${where} during Accept of suggestion ${suggestion + 1} from the sidebar loses nothing, and the accept goes in`, async ({ tab, firefox }) => {
    test.setTimeout(90_000);
    await tab.goto(`${firefox.pagesUrl}/collab.html`);
    await tab.bringToFront();
    await tab.waitForFunction(() => typeof (window as unknown as { editorText?: unknown }).editorText === 'function', { timeout: 20_000 });
    // The writer's caret: after "written by me" in the last paragraph (after both sentences).
    await tab.$eval('.ProseMirror', caretAfterText, MARK);
    const page = collab(tab);
    const before = await page.text();
    await firefox.configure({ defaultModel: 'cognia' });
    await firefox.run(tab, 'humanizer');
    expect(await poll(() => toast(tab), (text) => /rewrite is ready/.test(text), 15_000)).toMatch(/rewrite is ready: 2 suggestions/);

    const sidebar = await firefox.openSidebarWindow(tab);
    try {
      const item = `[data-testid=suggestions] li.suggestion:nth-of-type(${suggestion + 1})`;
      await sidebar.waitForSelector(item);
      await page.start(where);
      await sidebar.locator(`${item} ::-p-aria([name="Accept"][role="button"])`).click();
      const outcome = await poll(
        async () => ({ decision: await textOf(sidebar, `${item} [data-testid=decision]`), problem: await textOf(sidebar, `${item} [data-testid=apply-problem]`) }),
        (value) => value.decision !== '' || value.problem !== '',
        20_000,
      );
      console.log(`Firefox co-author at the ${where}: ${JSON.stringify(outcome)}`);
      expect(outcome.decision).toBe('Accepted');

      // The writer comes back to the page and types: their keys go where their caret was.
      await tab.bringToFront();
      await tab.keyboard.type(TYPED, { delay: 20 });
      await page.stop();
      await sleep(500); // the last words reach the writer
      const words = await page.typed();
      const after = await page.text();
      console.log(`Firefox co-author at the ${where}: ${words.length} words; ${JSON.stringify(after)}`);
      expect(await page.coauthorText()).toBe(after);
      const [original, rewrite] = suggestion === 0 ? [ORIGINAL, SUGGESTION] : [SECOND_ORIGINAL, SECOND_SUGGESTION];
      const writer = before.replace(original, rewrite).replace(MARK, MARK + TYPED);
      expect(after).toBe(where === 'end' ? writer + words.join('') : [...words].reverse().join('') + writer);
      expect(words.length).toBeGreaterThan(3);
    } finally {
      await sidebar.close();
    }
  });
}
