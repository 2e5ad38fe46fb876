import { test, expect } from './fixtures.ts';
import { cardText, highlightedTexts, overlayMarks, overlayText, toastText, waitForToast } from './page-probes.ts';
import { AI_SENTENCES, PAGE_TEXT } from './pages/text.ts';

test('textarea: marks exactly the AI-labelled sentences in a mirror, leaving the field untouched', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const field = page.locator('#field');
  await field.click();
  const before = { value: await field.inputValue(), html: await field.evaluate((element) => element.outerHTML) };

  await stack.run(page, 'detector');
  await waitForToast(page, /2 sentences labelled AI/);
  expect(await overlayMarks(page)).toEqual(AI_SENTENCES);
  expect(await toastText(page)).toContain('signals, not proof');
  expect(await field.inputValue()).toBe(before.value);
  expect(await field.evaluate((element) => element.outerHTML)).toBe(before.html);

  // The mirror lies over the field.
  const fieldBox = (await field.boundingBox())!;
  const mirrorBox = await page.evaluate(() => {
    const rect = document.querySelector('redline-overlay')!.shadowRoot!.querySelector('.mirror')!.getBoundingClientRect();
    return { x: rect.x, y: rect.y, width: rect.width, height: rect.height };
  });
  expect(Math.abs(mirrorBox.x - fieldBox.x)).toBeLessThan(1);
  expect(Math.abs(mirrorBox.y - fieldBox.y)).toBeLessThan(1);
  expect(Math.abs(mirrorBox.width - fieldBox.width)).toBeLessThan(1);

  // Hovering a highlight shows the card with label, score and the reminder.
  const markBox = await page.evaluate(() => {
    const rect = document.querySelector('redline-overlay')!.shadowRoot!.querySelector('mark')!.getClientRects()[0]!;
    return { x: rect.x + 20, y: rect.y + rect.height / 2 };
  });
  await page.mouse.move(markBox.x, markBox.y);
  await expect.poll(() => cardText(page)).toMatch(/Labelled AI by the detector.*Score 0\.\d\d.*signals, not proof/);
});

test('textarea: typing before a highlight moves it; editing inside one drops it', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const field = page.locator('#field');
  await field.click();
  await stack.run(page, 'detector');
  await waitForToast(page, /labelled AI/);

  await field.evaluate((element: HTMLTextAreaElement) => element.setSelectionRange(0, 0));
  await page.keyboard.type('Note: ');
  await expect.poll(() => overlayText(page)).toBe(await field.inputValue());
  expect(await overlayMarks(page)).toEqual(AI_SENTENCES);

  const secondStart = (await field.inputValue()).indexOf('Moreover');
  await field.evaluate((element: HTMLTextAreaElement, at) => element.setSelectionRange(at + 10, at + 10), secondStart);
  await page.keyboard.type('XYZ');
  const edited = await field.inputValue();
  await expect.poll(() => overlayText(page)).toBe(edited);
  expect(await overlayMarks(page)).toEqual([AI_SENTENCES[0]]);
});

test('contenteditable: CSS highlights cover exactly the AI sentences; the DOM is unchanged', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const editor = page.locator('#editor');
  const html = await editor.innerHTML();
  await editor.click();
  await stack.run(page, 'detector');
  await waitForToast(page, /2 sentences labelled AI/);
  expect(await highlightedTexts(page)).toEqual(AI_SENTENCES);
  expect(await editor.innerHTML()).toBe(html);

  // An editor re-rendering the same text into new nodes keeps its highlights.
  await editor.evaluate((element) => {
    const paragraph = element.querySelector('p')!;
    paragraph.firstChild!.replaceWith(document.createTextNode(paragraph.textContent!));
  });
  await expect.poll(() => highlightedTexts(page)).toEqual(AI_SENTENCES);
  expect(await page.evaluate(() => [...CSS.highlights.values()].every((highlight) => [...highlight].every((range) => (range as Range).startContainer.isConnected)))).toBe(true);
});

test('selection on the page: only the selected text is checked', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  await page.evaluate((sentence) => {
    const editor = document.querySelector('#editor')!;
    const node = editor.querySelector('p')!.firstChild as Text;
    const start = node.data.indexOf(sentence);
    const range = document.createRange();
    range.setStart(node, start);
    range.setEnd(node, start + sentence.length);
    (document.activeElement as HTMLElement | null)?.blur();
    getSelection()!.removeAllRanges();
    getSelection()!.addRange(range);
  }, AI_SENTENCES[1]!);
  await stack.run(page, 'detector');
  await waitForToast(page, /1 sentence labelled AI/);
  expect(await highlightedTexts(page)).toEqual([AI_SENTENCES[1]]);
});

test('password and read-only fields are never read', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  for (const selector of ['#password', '#readonly']) {
    await page.locator(selector).focus();
    await stack.run(page, 'detector');
    await waitForToast(page, /Click into a text field or editor/);
  }
  const received = await fetch(`${stack.doubleUrl}/__control/received`).then((response) => response.json());
  expect(JSON.stringify(received)).not.toContain('hunter2');
});

test('a field of spaces and invisible characters alone is not sent: the writer is told there is no text yet', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  const field = page.locator('#field');
  const received = () => fetch(`${stack.doubleUrl}/__control/received`).then((response) => response.json() as Promise<unknown[]>);
  const before = (await received()).length;
  await field.fill(' \u200b\u200d\n\ufeff\u00ad ');
  await field.click();
  await stack.run(page, 'detector');
  await waitForToast(page, /There is no text to check here yet/);
  expect((await received()).length).toBe(before);
});

test('side panel: explains ai_percentage, lists flagged sentences, and clicking one selects it in the page', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  await page.locator('#editor').click();
  await stack.run(page, 'detector');
  await waitForToast(page, /labelled AI/);

  const panel = await stack.openSidePanel(page);
  await expect(panel.getByTestId('ai-percentage')).toHaveText(/^\d+(\.\d+)?%$/);
  await panel.getByText('Exact figure').click();
  await expect(panel.getByText('not an average of the sentence scores', { exact: false })).toBeVisible();
  const items = panel.getByTestId('flagged-sentences').getByRole('button');
  await expect(items).toHaveCount(2);
  await expect(items.nth(1)).toContainText(AI_SENTENCES[1]!);
  await items.nth(1).click();
  await expect.poll(() => page.evaluate(() => getSelection()?.toString())).toBe(AI_SENTENCES[1]);
  await panel.close();
});

test('errors: a wrong token and an exhausted budget are explained', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  await page.locator('#field').click();

  await stack.configure({}, `rl_${'x'.repeat(43)}`);
  await stack.run(page, 'detector');
  await waitForToast(page, /member token is unknown or revoked/);

  await stack.configure({}, stack.addMember('tiny', 'detector=5'));
  await stack.run(page, 'detector');
  const text = await waitForToast(page, /word budget/);
  expect(text).toContain('5 words left');

  await stack.configure({ bffUrl: 'http://127.0.0.1:9' }, stack.token);
  await stack.run(page, 'detector');
  await waitForToast(page, /Can't reach your team's Redline server/);
  await stack.configure({ bffUrl: stack.bffUrl });
});

test('a retry of the same check reuses its operation id and is not charged twice', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  await page.locator('#field').click();
  await fetch(`${stack.doubleUrl}/__control/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([{ fault: { kind: 'status', status: 502 }, times: 2 }]),
  });
  const before = (await fetch(`${stack.doubleUrl}/__control/state`).then((response) => response.json())).accounts[0].charged.detector;
  await stack.run(page, 'detector');
  await waitForToast(page, /stopped this check safely/);
  await stack.run(page, 'detector');
  await waitForToast(page, /labelled AI/);
  await stack.run(page, 'detector');
  await waitForToast(page, /labelled AI/);
  const after = (await fetch(`${stack.doubleUrl}/__control/state`).then((response) => response.json())).accounts[0].charged.detector;
  expect(after - before).toBe(PAGE_TEXT.split(/\s+/).length + 9);
});
