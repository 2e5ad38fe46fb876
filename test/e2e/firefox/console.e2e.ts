import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Page } from 'puppeteer-core';
import { test, expect } from './fixtures.ts';

// The team console in Debian's Firefox ESR (the Chromium suite drives it in depth): link
// sign-in, add a member and read its one-time token, a budget that refuses the member's next
// check, the usage chart, revoke, the audit log, sign-out.

const TEXT_12_WORDS = 'One two three four five six seven eight nine ten eleven twelve.';

const bodyText = (page: Page) => page.evaluate(() => document.body.innerText);

async function waitForText(page: Page, pattern: RegExp): Promise<string> {
  let text = '';
  for (let i = 0; i < 100; i++) {
    text = await bodyText(page);
    if (pattern.test(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the console never showed ${pattern}; it showed: ${text.slice(0, 500)}`);
}

/** Clicks the button (within `scope`) whose accessible name, its label or else its words, is `name`. */
async function clickButton(page: Page, name: string, scope = 'body'): Promise<void> {
  const find = (name: string, scope: string) =>
    [...(document.querySelector(scope)?.querySelectorAll('button') ?? [])].find((button) => (button.getAttribute('aria-label') ?? button.textContent?.trim()) === name);
  await page.waitForFunction(`(${find.toString()})(${JSON.stringify(name)}, ${JSON.stringify(scope)}) !== undefined`);
  await page.evaluate(`(${find.toString()})(${JSON.stringify(name)}, ${JSON.stringify(scope)}).click()`);
}

test('console in Firefox: link sign-in, add member, budget, usage, revoke, audit, sign out', async ({ tab, firefox }) => {
  const output = execFileSync(process.execPath, ['--import', 'tsx', 'bff/src/cli.ts', 'link', 'owner'], {
    env: { ...process.env, BFF_DATA_DIR: firefox.dataDir, BFF_PORT: new URL(firefox.bffUrl).port },
    encoding: 'utf8',
  });
  const link = /(http:\/\/\S+\/console\/#link=\S+)/.exec(output)![1]!;
  await tab.goto(link);
  await waitForText(tab, /Signed in as\s+owner/);
  expect(tab.url()).not.toContain('#link=');

  await tab.type('#new-member', 'firefox-writer');
  await clickButton(tab, 'Add member');
  await tab.waitForSelector('[data-testid="one-time-value"]');
  const token = await tab.$eval('[data-testid="one-time-value"]', (input) => (input as HTMLInputElement).value);
  expect(token).toMatch(/^rl_[A-Za-z0-9_-]{43}$/);
  await clickButton(tab, 'Done, hide it');
  await tab.waitForFunction(() => !document.querySelector('[data-testid="one-time-value"]'));
  expect(await tab.content()).not.toContain(token);

  const detect = () =>
    fetch(`${firefox.bffUrl}/v1/detect`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ operationId: randomUUID(), text: TEXT_12_WORDS }),
    }).then(async (response) => ({ status: response.status, body: await response.json() }));

  await tab.type('[aria-label="detector budget for firefox-writer"]', '20');
  await clickButton(tab, 'Save budgets for firefox-writer');
  await waitForText(tab, /Budgets of firefox-writer saved\./);
  expect((await detect()).status).toBe(200);
  const refused = await detect();
  expect(refused.status).toBe(403);
  expect(refused.body.error.code).toBe('member_budget_exceeded');

  await clickButton(tab, 'Usage');
  await tab.waitForSelector('.chart canvas', { visible: true });
  expect(await waitForText(tab, /firefox-writer[^\n]*12 \(8 left\)/)).toBeTruthy();

  await clickButton(tab, 'Members');
  await waitForText(tab, /12 of 20 \(8 left\)/);
  tab.once('dialog', (dialog) => void dialog.accept());
  await clickButton(tab, 'Revoke', 'tr[data-member="firefox-writer"]');
  await waitForText(tab, /firefox-writer revoked\./);
  expect((await detect()).status).toBe(401);

  await clickButton(tab, 'Audit log');
  const audit = await waitForText(tab, /member_revoked/);
  for (const action of ['sign_in', 'member_added', 'budgets_changed', 'member_revoked']) expect(audit).toContain(action);
  expect(audit).not.toContain(token);

  await clickButton(tab, 'Sign out');
  await waitForText(tab, /Sign in/);
  expect(await tab.evaluate(() => fetch('/console/api/me/usage').then((response) => response.status))).toBe(401);
});
