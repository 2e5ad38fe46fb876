import type { Frame, Page } from '@playwright/test';
import { expect } from './fixtures.ts';

/** The editor's Ctrl+Z (or `keys`), with the page in front and the editable root focused. */
export async function undo(page: Page, frame: Frame, root: string, keys = 'Control+z'): Promise<void> {
  await page.bringToFront();
  await frame.locator(root).focus();
  await page.keyboard.press(keys);
}

/** Counts the undo steps that take Accept all (of `accepted` suggestions) back to `before`, and holds the panel's note to them. */
export async function expectUndoAsTheNoteSays(page: Page, frame: Frame, root: string, panel: Page, before: string, modelText: (page: Page) => Promise<string>, accepted = 2): Promise<void> {
  const note = await panel.getByTestId('undo-note').innerText();
  let steps = 0;
  while (steps < 4) {
    await undo(page, frame, root);
    steps++;
    const restored = await expect
      .poll(() => modelText(page), { timeout: 1500 })
      .toBe(before)
      .then(
        () => true,
        () => false,
      );
    if (restored) break;
  }
  expect(await modelText(page)).toBe(before);
  // An editor that groups quick edits (Quill) takes one step when the edits were quick, more on a busy machine; the note says so.
  if (note.includes('usually one undo step')) expect(steps).toBeLessThanOrEqual(2);
  // An editor not recognised: one step per suggestion, or fewer if its own history groups them; never more.
  else if (note.includes('may bring several back with one undo')) expect(steps).toBeLessThanOrEqual(accepted);
  else expect(note).toContain(steps === 1 ? 'Accept all is one undo step' : 'undo once per accepted suggestion');
}
