import fc from 'fast-check';
import type { Locator, Page } from '@playwright/test';
import { test, expect, type Stack } from './fixtures.ts';
import { cardText, highlightedTexts, overlayMarks, overlayText, waitForToast, expectInOrder } from './page-probes.ts';
import { AI_SENTENCES } from './pages/text.ts';

/**
 * Highlights are patched edit by edit (the textarea's mirror, the editor's live ranges);
 * whatever the edits, what is drawn must be what a fresh draw of the remapped spans shows:
 * the mirror reads exactly as the field, every highlight covers exactly an AI sentence, in
 * order, and a sentence no edit came near is still highlighted.
 */

interface Edit {
  /** Where, as a fraction of the text's length. */
  at: number;
  removed: number;
  inserted: string;
}

const edits = fc.array(
  fc.record({
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    removed: fc.integer({ min: 0, max: 6 }),
    inserted: fc.array(fc.constantFrom('x', 'Y', ' ', '. ', 'word ', '\n'), { maxLength: 3 }).map((pieces) => pieces.join('')),
  }),
  { minLength: 1, maxLength: 6 },
);

/** Applies an edit to a plain copy of the text, and says which sentences it came near. */
function simulate(text: string, edit: Edit, sentences: Map<string, number | undefined>): { text: string; start: number; end: number } {
  const start = Math.min(text.length, Math.floor(edit.at * text.length));
  const end = Math.min(text.length, start + edit.removed);
  for (const [sentence, at] of sentences) {
    if (at === undefined) continue;
    if (start <= at + sentence.length && end >= at) sentences.set(sentence, undefined);
    else if (at >= end) sentences.set(sentence, at + edit.inserted.length - (end - start));
  }
  return { text: text.slice(0, start) + edit.inserted + text.slice(end), start, end };
}

async function typeOver(page: Page, inserted: string, removed: number): Promise<void> {
  if (inserted) await page.keyboard.type(inserted);
  else if (removed) await page.keyboard.press('Backspace');
}


/**
 * In a field whose text overflows it, edits are held until the writer pauses (FieldHighlighter.holdEdit):
 * the caret's jumps between the edits below must end each burst, or two edits would be followed as one.
 */
for (const overflowing of [false, true]) test(`textarea${overflowing ? ' whose text overflows it (edits held while typing)' : ''}: after any edits the patched mirror reads as the field and marks exactly the untouched or intact AI sentences`, async ({ page, stack }) => {
  await fc.assert(
    fc.asyncProperty(edits, async (sequence) => {
      await page.goto(`${stack.pagesUrl}/plain.html`);
      const field = page.locator('#field');
      if (overflowing) await field.evaluate((element: HTMLTextAreaElement) => (element.style.height = '3em'));
      await field.click();
      await stack.run(page, 'detector');
      await waitForToast(page, /2 sentences labelled AI/);
      let text = await field.inputValue();
      const sentences = new Map<string, number | undefined>(AI_SENTENCES.map((sentence) => [sentence, text.indexOf(sentence)]));
      for (const edit of sequence) {
        const next = simulate(text, edit, sentences);
        await field.evaluate((element: HTMLTextAreaElement, [start, end]) => element.setSelectionRange(start, end), [next.start, next.end] as const);
        await typeOver(page, edit.inserted, next.end - next.start);
        text = edit.inserted || next.end > next.start ? next.text : text;
        expect(await field.inputValue()).toBe(text);
      }
      await expect.poll(() => overlayText(page)).toBe(text);
      const untouched = [...sentences].filter(([, at]) => at !== undefined).map(([sentence]) => sentence);
      expectInOrder(await overlayMarks(page), untouched);
    }),
    { numRuns: 12 },
  );
});

test('contenteditable: after any edits (typing, deleting, new paragraphs) every highlight covers exactly an intact AI sentence', async ({ page, stack }) => {
  await fc.assert(
    fc.asyncProperty(edits, async (sequence) => {
      await page.goto(`${stack.pagesUrl}/plain.html`);
      const editor = page.locator('#editor');
      await editor.click();
      await stack.run(page, 'detector');
      await waitForToast(page, /2 sentences labelled AI/);
      // Edits stay in the first paragraph's text node; Enter splits it, and later edits go to the last part.
      let text = await page.evaluate(() => document.querySelector('#editor p')!.textContent!);
      const sentences = new Map<string, number | undefined>(AI_SENTENCES.map((sentence) => [sentence, text.indexOf(sentence)]));
      for (const edit of sequence) {
        const next = simulate(text, edit, sentences);
        await page.evaluate(
          ([start, end]) => {
            // The offsets are in the paragraphs' text as if joined by the breaks typed so far.
            const paragraphs = [...document.querySelectorAll('#editor p')].slice(0, -1);
            let offset = 0;
            const textOf = (paragraph: Element) => (paragraph.firstChild instanceof Text ? paragraph.firstChild : undefined);
            const locate = (position: number) => {
              offset = 0;
              for (const paragraph of paragraphs) {
                const node = textOf(paragraph);
                const length = node?.data.length ?? 0;
                if (position <= offset + length) return { node: node ?? paragraph, offset: node ? position - offset : 0 };
                offset += length + 1;
              }
              const last = paragraphs.at(-1)!;
              const node = textOf(last);
              return { node: node ?? last, offset: node?.data.length ?? 0 };
            };
            const from = locate(start);
            const to = locate(end);
            getSelection()!.setBaseAndExtent(from.node, from.offset, to.node, to.offset);
          },
          [next.start, next.end] as const,
        );
        await typeOver(page, edit.inserted, next.end - next.start);
        if (edit.inserted || next.end > next.start) text = next.text;
      }
      const untouched = [...sentences].filter(([, at]) => at !== undefined).map(([sentence]) => sentence);
      // Typing is followed when the writer pauses (TypingBurst); the browser moves the ranges meanwhile.
      await expect(async () => expectInOrder(await highlightedTexts(page), untouched)).toPass({ timeout: 3_000 });
      // Ranges sit in the editor's live text nodes, never stranded in a removed node.
      expect(
        await page.evaluate(() => [...CSS.highlights.values()].every((highlight) => [...highlight].every((range) => (range as Range).startContainer.isConnected && (range as Range).startContainer.nodeType === Node.TEXT_NODE))),
      ).toBe(true);
    }),
    { numRuns: 12 },
  );
});

/**
 * The page's textarea, 240 px high, holding its text `paragraphs` times over (so it overflows),
 * checked for AI writing with the caret at the start (and the view in the middle when asked).
 */
async function checkLongTextarea(page: Page, stack: Stack, paragraphs: number, viewInTheMiddle: boolean): Promise<Locator> {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const field = page.locator('#field');
  await field.evaluate(
    (element: HTMLTextAreaElement, [count, middle]) => {
      element.style.height = '240px';
      element.value = Array.from({ length: count }, () => element.value).join('\n\n');
      element.setSelectionRange(0, 0);
      element.focus({ preventScroll: middle });
      if (middle) element.scrollTop = element.scrollHeight / 2;
    },
    [paragraphs, viewInTheMiddle] as const,
  );
  await stack.run(page, 'detector');
  await waitForToast(page, /words of the team's detector balance/);
  await page.locator('redline-toast').getByRole('button', { name: 'Check', exact: true }).click();
  await waitForToast(page, new RegExp(`${(2 * paragraphs).toLocaleString('en')} sentences labelled AI`));
  return field;
}

test('textarea with a long document: marks come first around the view, then everywhere; marks far down sit in the field when it scrolls there', async ({ page, stack }) => {
  const paragraphs = 1000;
  // Checked while scrolled to the middle: the blocks above the view are laid out too.
  const field = await checkLongTextarea(page, stack, paragraphs, true);
  const marksInField = () =>
    page.evaluate(() => {
      const field = document.querySelector('#field')!.getBoundingClientRect();
      const marks = [...document.querySelector('redline-overlay')!.shadowRoot!.querySelectorAll('mark')];
      return marks.filter((mark) => {
        const rect = mark.getBoundingClientRect();
        return rect.bottom > field.top && rect.top < field.bottom;
      }).length;
    });
  expect(await marksInField()).toBeGreaterThan(0);

  const value = await field.inputValue();
  await expect.poll(() => overlayText(page), { timeout: 15_000 }).toBe(value);
  const everySentence = Array.from({ length: paragraphs }, () => AI_SENTENCES).flat();
  await expect.poll(() => overlayMarks(page), { timeout: 15_000 }).toEqual(everySentence);
  // Built whole, the mirror's lines are as high as the field's.
  const heights = await page.evaluate(() => {
    const field = document.querySelector<HTMLTextAreaElement>('#field')!;
    const mirror = document.querySelector('redline-overlay')!.shadowRoot!.querySelector<HTMLElement>('.mirror')!;
    const style = getComputedStyle(mirror);
    const content = mirror.firstElementChild as HTMLElement;
    return { mirror: content.offsetHeight + parseFloat(style.paddingTop) + parseFloat(style.paddingBottom), field: field.scrollHeight, line: parseFloat(getComputedStyle(field).lineHeight) || 20 };
  });
  expect(Math.abs(heights.mirror - heights.field)).toBeLessThan(heights.line);

  await field.evaluate((element: HTMLTextAreaElement) => (element.scrollTop = element.scrollHeight));
  await expect.poll(marksInField).toBeGreaterThan(0);
  const lastMark = () =>
    page.evaluate(() => {
      const marks = document.querySelector('redline-overlay')!.shadowRoot!.querySelectorAll('mark');
      const rect = marks[marks.length - 1]!.getClientRects()[0]!;
      return { x: rect.x + 10, y: rect.y + rect.height / 2 };
    });
  // The pointer wiggles as a hand's would: a caret update that lands at the same moment takes the
  // card's turn. The mark is found again each time, in case the field's view moved since.
  let wiggle = 0;
  await expect
    .poll(async () => {
      const last = await lastMark();
      await page.mouse.move(last.x + (wiggle++ % 3), last.y);
      return cardText(page);
    })
    .toMatch(/Labelled AI by the detector/);
});

test('textarea: the mirror laid out while a check runs is dropped when the check fails, and set aside when the text changed before the result', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const field = page.locator('#field');
  await field.click();
  const faults = (body: unknown) => fetch(`${stack.doubleUrl}/__control/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const overlays = () => page.evaluate(() => document.querySelectorAll('redline-overlay').length);

  await faults([{ fault: { kind: 'status', status: 502 }, times: 2 }]);
  await stack.run(page, 'detector');
  await waitForToast(page, /stopped this check safely/);
  expect(await overlays()).toBe(0);

  await faults([{ fault: { kind: 'delay', delayMs: 1500 }, times: 1 }]);
  await field.evaluate((element: HTMLTextAreaElement) => element.setSelectionRange(0, 0));
  await stack.run(page, 'detector');
  await expect.poll(overlays).toBe(1);
  await page.keyboard.type('Typed while it ran. ');
  await waitForToast(page, /2 sentences labelled AI/);
  expect(await overlays()).toBe(1);
  expect(await overlayText(page)).toBe(await field.inputValue());
  expect(await overlayMarks(page)).toEqual(AI_SENTENCES);
});

test('textarea: a line break typed before the text (captured text unchanged) still moves the mirror with the field', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const field = page.locator('#field');
  await field.click();
  await stack.run(page, 'detector');
  await waitForToast(page, /2 sentences labelled AI/);
  await field.evaluate((element: HTMLTextAreaElement) => element.setSelectionRange(0, 0));
  await page.keyboard.press('Enter');
  const value = await field.inputValue();
  expect(value.startsWith('\n')).toBe(true);
  await expect.poll(() => overlayText(page)).toBe(value);
  expect(await overlayMarks(page)).toEqual(AI_SENTENCES);
});

test('textarea: a burst of typing waits for the pause; meanwhile every mark still shown is where the text is, and the mirror then reads as the field', async ({ page, stack }) => {
  const paragraphs = 40;
  // Overflowing, so that a line coming or going shows in the field's scroll height.
  const field = await checkLongTextarea(page, stack, paragraphs, false);
  const value = await field.inputValue();
  await expect.poll(() => overlayText(page), { timeout: 15_000 }).toBe(value);
  await expect.poll(() => overlayMarks(page), { timeout: 15_000 }).toHaveLength(2 * paragraphs);

  // The caret in the middle of the fifth paragraph's first sentence, in view.
  await field.evaluate((element: HTMLTextAreaElement) => {
    const start = element.value.split('\n\n').slice(0, 4).join('\n\n').length + 2;
    element.focus();
    element.setSelectionRange(start + 20, start + 20);
    element.scrollTop = 0;
    element.blur();
    element.focus();
  });
  const shown = () =>
    page.evaluate(() => {
      const marks = [...document.querySelector('redline-overlay')!.shadowRoot!.querySelectorAll('mark')];
      const field = document.querySelector('#field')!.getBoundingClientRect();
      return {
        held: marks.filter((mark) => mark.classList.contains('held')).length,
        visible: marks
          .filter((mark) => !mark.classList.contains('held'))
          .flatMap((mark) => [...mark.getClientRects()].filter((rect) => rect.bottom > field.top && rect.top < field.bottom).map((rect) => `${mark.textContent}@${Math.round(rect.x)},${Math.round(rect.y)},${Math.round(rect.width)}`)),
      };
    });

  await page.keyboard.type('abc', { delay: 30 });
  // Held: the mirror still shows the text before the burst, with the marks the typing can move hidden.
  expect(await overlayText(page)).not.toBe(await field.inputValue());
  expect((await shown()).held).toBeGreaterThan(0);
  // Long enough to wrap the paragraph onto another line: the mirror is patched then, and held again after.
  await page.keyboard.type(' and then a good deal more typing, enough to push the rest of this paragraph onto a new line', { delay: 30 });
  const during = await shown();
  const typed = await field.inputValue();

  await expect.poll(() => overlayText(page)).toBe(typed);
  const after = await shown();
  expect(after.held).toBe(0);
  // Every mark shown during the burst sits where a mirror of the same text draws it.
  expect(during.visible.length).toBeGreaterThan(0);
  for (const mark of during.visible) expect(after.visible, mark).toContain(mark);
  // The sentence typed into is no longer highlighted; every other sentence still is.
  expect(await overlayMarks(page)).toHaveLength(2 * paragraphs - 1);
});
