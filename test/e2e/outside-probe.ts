import type { Page } from '@playwright/test';
import { humanize as rewriteOffline, splitSentences } from '@redline/shared/analysis';
import { expect } from './fixtures.ts';
import { AI_SENTENCES } from './pages/text.ts';

// What the outside probes' editor tests share: the sentences a check flags, the rewrites the
// double suggests for them, the writer's typing, and the editor's own value as the page reads it.

export const [ORIGINAL, SECOND_ORIGINAL] = [AI_SENTENCES[0]!, AI_SENTENCES[1]!];
/** The double rewrites each AI sentence alone as the shared humanizer does (cognia). */
const rewriteOf = (sentence: string) => splitSentences(rewriteOffline(sentence, 'cognia').humanized_text)[0]!.text;
export const [SUGGESTION, SECOND_SUGGESTION] = [rewriteOf(ORIGINAL), rewriteOf(SECOND_ORIGINAL)];
export const TYPED = ' Typed by me.';

/** The editor's value as its page's `editorText()` reads it from the editor's own model, no-break spaces as spaces. */
export const modelText = (page: Page): Promise<string> => page.evaluate(() => (window as unknown as { editorText(): string }).editorText().replace(/\u00a0/g, ' '));

/** Accepts suggestion `position` and waits for the panel's word on it: 'Accepted', or what it says went wrong. */
export async function accept(panel: Page, position: number): Promise<string> {
  const item = panel.getByTestId('suggestions').locator('li.suggestion').nth(position);
  await item.getByRole('button', { name: 'Accept', exact: true }).click();
  await expect(item.getByTestId('decision').or(item.getByTestId('apply-problem'))).toBeVisible({ timeout: 20_000 });
  return (await item.getByTestId('decision').count()) ? item.getByTestId('decision').innerText() : `not applied: ${await item.getByTestId('apply-problem').innerText()}`;
}
