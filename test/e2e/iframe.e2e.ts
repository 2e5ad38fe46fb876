import { test, expect } from './fixtures.ts';
import { AI_SENTENCES, PAGE_TEXT } from './pages/text.ts';

test('an editor inside an iframe: the focused frame is checked, reviewed and edited', async ({ page, stack }) => {
  await page.goto(`${stack.pagesUrl}/framed.html`);
  const frame = page.frameLocator('#frame');
  await frame.locator('#editor').click();

  await stack.run(page, 'detector');
  const inner = page.frame({ url: /frame\.html$/ })!;
  await expect
    .poll(() =>
      inner.evaluate(() => [...(CSS.highlights.get('redline-ai-3') ?? [])].map((range) => (range as Range).toString())),
    )
    .toEqual(AI_SENTENCES);
  await expect.poll(() => inner.evaluate(() => document.querySelector('redline-toast')?.shadowRoot?.textContent ?? '')).toMatch(/2 sentences labelled AI/);
  expect(await page.evaluate(() => document.querySelector('redline-toast'))).toBeNull(); // the top page stayed quiet

  const panel = await stack.openSidePanel(page);
  await panel.getByTestId('flagged-sentences').getByRole('button').nth(1).click();
  await expect.poll(() => inner.evaluate(() => getSelection()?.toString())).toBe(AI_SENTENCES[1]);

  await stack.configure({ defaultModel: 'cognia' });
  await page.bringToFront();
  await frame.locator('#editor').click();
  await stack.run(page, 'humanizer');
  await expect.poll(() => inner.evaluate(() => document.querySelector('redline-toast')?.shadowRoot?.textContent ?? '')).toMatch(/rewrite is ready/);
  const suggestion = panel.getByTestId('suggestions').locator('li.suggestion').first();
  await suggestion.getByRole('button', { name: 'Accept', exact: true }).click();
  await expect(suggestion.getByTestId('decision')).toHaveText('Accepted');
  await expect.poll(() => inner.evaluate(() => document.querySelector('#editor')!.textContent)).not.toContain(AI_SENTENCES[0]);
  expect(await inner.evaluate(() => document.querySelector('#editor')!.textContent)).toContain(PAGE_TEXT.slice(AI_SENTENCES[0]!.length + 1));
  await panel.close();
});
