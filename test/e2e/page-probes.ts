import { expect } from './expect.ts';
import { AI_SENTENCES } from './pages/text.ts';
import { SPACER } from '../../extension/lib/content/dom-text.ts';

/**
 * Reads what the extension shows in a page, from the page's side: in Chromium through
 * Playwright's Page, in Firefox through puppeteer's (both run a function in the page).
 */
interface Page {
  evaluate<R, A>(pageFunction: (arg: A) => R, arg: A): Promise<R>;
  evaluate<R>(pageFunction: () => R): Promise<R>;
}

export function highlightedTexts(page: Page, names = ['redline-ai-1', 'redline-ai-2', 'redline-ai-3']): Promise<string[]> {
  return page.evaluate((names) => {
    const ranges: Range[] = [];
    for (const name of names) for (const range of CSS.highlights.get(name) ?? []) ranges.push(range as Range);
    ranges.sort((a, b) => a.compareBoundaryPoints(Range.START_TO_START, b));
    return ranges.map((range) => range.toString());
  }, names);
}

export function overlayMarks(page: Page): Promise<string[]> {
  return page.evaluate(() => [...(document.querySelector('redline-overlay')?.shadowRoot?.querySelectorAll('mark') ?? [])].map((mark) => mark.textContent ?? ''));
}

export function toastText(page: Page): Promise<string> {
  return page.evaluate(() => document.querySelector('redline-toast')?.shadowRoot?.querySelector('.toast')?.textContent ?? '');
}

export function cardText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const card = document.querySelector('redline-card')?.shadowRoot?.querySelector<HTMLElement>('.card');
    return card && !card.hidden ? (card.textContent ?? '') : '';
  });
}

export async function waitForToast(page: Page, pattern: RegExp): Promise<string> {
  let text = '';
  for (let i = 0; i < 100; i++) {
    text = await toastText(page);
    if (pattern.test(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`toast never matched ${pattern}; last: "${text}"`);
}

/** The text of the element matching `selector` in `page`, or '' when there is none. */
export function textOf(page: Page, selector: string): Promise<string> {
  return page.evaluate((selector) => document.querySelector(selector)?.textContent ?? '', selector);
}

/** The mirror's text without the zero-width space that holds a trailing line open. */
export function overlayText(page: Page): Promise<string> {
  return page.evaluate(() => (document.querySelector('redline-overlay')?.shadowRoot?.querySelector('.mirror')?.textContent ?? '').replace(/\u200b$/, ''));
}

/** Every highlight is an AI sentence, in order, and each untouched sentence is highlighted. */
export function expectInOrder(drawn: string[], untouched: string[]): void {
  let cursor = 0;
  for (const text of drawn) {
    const found = AI_SENTENCES.indexOf(text, cursor);
    expect(found, `"${text}" is not an AI sentence in order`).toBeGreaterThanOrEqual(cursor);
    cursor = found + 1;
  }
  for (const sentence of untouched) expect(drawn).toContain(sentence);
}

/** No-break spaces in a model's text, or in its HTML value (`&nbsp;`) where the page reads its text as a space. */
export const nbsp = (text: string | undefined) => (text ?? '').split(/\u00a0|&nbsp;|&#160;/).length - 1;

/** The model's HTML value where its page has one (the pages that read text from HTML count a no-break space as a space), else its text. */
export async function rawModel(page: Page): Promise<string | undefined> {
  return await page.evaluate(async () => {
    const api = window as unknown as { editorHtml?(): string | Promise<string>; editorText?(): string | Promise<string> };
    return (await api.editorHtml?.()) ?? (await api.editorText?.());
  });
}

/**
 * In the page (Playwright's `evaluate` or puppeteer's `$eval` on the editor's root): the text of
 * every element matching `selector` inside `root`, without the spacers an editor draws beside an
 * inline element (Plate's by a link), which are no text (dom-text.ts's SPACER).
 */
export const textsWithin = (root: Element, [selector, spacers]: readonly [string, string]): string[] =>
  [...root.querySelectorAll(selector)].map((node) => {
    const copy = node.cloneNode(true) as Element;
    for (const spacer of copy.querySelectorAll(spacers)) spacer.remove();
    return copy.textContent ?? '';
  });

/** The argument `textsWithin` takes. */
export const textsArg = (selector: string) => [selector, SPACER] as const;

/**
 * Page-side (pass to `evaluate` with the root): focuses `root` and puts the caret just after the
 * first `mark` in its text, where the writer was typing.
 */
export function caretAfterText(root: Element, mark: string): void {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.textContent!.indexOf(mark);
    if (at === -1) continue;
    (root as HTMLElement).focus();
    document.getSelection()!.collapse(node, at + mark.length);
    return;
  }
  throw new Error(`no "${mark}" in the editor`);
}
