import { test } from './fixtures.ts';
import { waitForToast } from './page-probes.ts';

// Not an assertion: pictures for a person to look at (SCREENSHOTS=1 npx playwright test screenshots).
test.skip(!process.env.SCREENSHOTS, 'only when SCREENSHOTS=1');

test('screenshots', async ({ page, stack }) => {
  await page.setViewportSize({ width: 900, height: 640 });
  await page.goto(`${stack.pagesUrl}/plain.html`);
  await page.locator('#field').click();
  await stack.run(page, 'detector');
  await waitForToast(page, /labelled AI/);
  const box = await page.evaluate(() => {
    const rect = document.querySelector('redline-overlay')!.shadowRoot!.querySelector('mark')!.getClientRects()[0]!;
    return { x: rect.x + 30, y: rect.y + rect.height / 2 };
  });
  await page.mouse.move(box.x, box.y);
  await page.waitForTimeout(300);
  await page.screenshot({ path: 'test-results/page.png' });
  await stack.configure({ defaultModel: 'cognia_v2' });
  await page.locator('#editor').click();
  await stack.run(page, 'humanizer');
  await waitForToast(page, /rewrite is ready/);
  await stack.run(page, 'plagiarism');
  await page.waitForTimeout(500);
  const panel = await stack.openSidePanel(page);
  await panel.setViewportSize({ width: 420, height: 1100 });
  await panel.waitForTimeout(300);
  await panel.screenshot({ path: 'test-results/panel.png', fullPage: true });
});
