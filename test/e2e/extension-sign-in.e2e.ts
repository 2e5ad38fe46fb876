import { execFileSync } from 'node:child_process';
import type { Page } from '@playwright/test';
import { test, expect, type Stack } from './fixtures.ts';
import { waitForToast } from './page-probes.ts';

// Signing the built extension in to the team's server in Debian's Chromium, against the real
// BFF and upstream double: with a one-time link made in the console (then a check works,
// signing out ends the grant on the server, and revoking the member in the console refuses
// the next check with a clear message), and with "Sign in with your team's server", whose
// window (identity.launchWebAuthFlow) is driven like any page.

declare const chrome: any;

async function consoleAs(stack: Stack, page: Page, member = 'owner'): Promise<void> {
  const output = execFileSync(process.execPath, ['--import', 'tsx', 'bff/src/cli.ts', 'link', member], {
    env: { ...process.env, BFF_DATA_DIR: stack.dataDir, BFF_PORT: new URL(stack.bffUrl).port },
    encoding: 'utf8',
  });
  await page.goto(/(http:\/\/\S+\/console\/#link=\S+)/.exec(output)![1]!);
  await expect(page.getByText('Signed in as').first()).toContainText(member);
}

async function extensionLinkFor(console: Page, member: string): Promise<string> {
  await console.locator(`tr[data-member="${member}"]`).getByRole('button', { name: 'Extension link' }).click();
  const link = await console.getByTestId('one-time-value').inputValue();
  await console.getByRole('button', { name: 'Done, hide it' }).click();
  return link;
}

const stored = (stack: Stack) => stack.serviceWorker.evaluate(async () => chrome.storage.local.get(['signIn', 'memberToken', 'settings']));

async function checkPlainPage(stack: Stack, page: Page, expected: RegExp): Promise<string> {
  await page.goto(`${stack.pagesUrl}/plain.html`);
  await page.locator('#field').click();
  await stack.run(page, 'detector');
  return waitForToast(page, expected);
}

test('sign in with a console link: a check works, signing out ends the grant, revoking the member refuses the next check', async ({ stack, page }) => {
  stack.addMember('link-writer');
  const console = await stack.context.newPage();
  await consoleAs(stack, console);
  const options = await stack.context.newPage();
  await options.goto(`chrome-extension://${stack.extensionId}/options.html`);
  try {
    await expect(options.getByTestId('account')).toContainText('with a member token');

    await options.getByLabel('Sign-in link or code').fill(await extensionLinkFor(console, 'link-writer'));
    await options.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(options.getByTestId('account')).toHaveText(`Signed in as link-writer at ${new URL(stack.bffUrl).host}.`);
    const afterLink = await stored(stack);
    expect(afterLink.memberToken).toBe('');
    expect(afterLink.signIn).toMatchObject({ memberName: 'link-writer', via: 'link', server: stack.bffUrl });

    await checkPlainPage(stack, page, /labelled AI/);

    // Sign out: the grant ends on the server, not only in the browser.
    await options.getByRole('button', { name: 'Sign out' }).click();
    await expect(options.getByTestId('account-note')).toHaveText('Signed out.');
    await expect(options.getByTestId('account')).toContainText('Not signed in');
    const oldToken = afterLink.signIn.accessToken as string;
    expect((await fetch(`${stack.bffUrl}/v1/usage`, { headers: { authorization: `Bearer ${oldToken}` } })).status).toBe(401);
    await checkPlainPage(stack, page, /Sign in to your team's Redline server/);

    // Signing in again with a second link (the first one works only once).
    await options.getByLabel('Sign-in link or code').fill(await extensionLinkFor(console, 'link-writer'));
    await options.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(options.getByTestId('account')).toContainText('Signed in as link-writer');

    console.once('dialog', (dialog) => void dialog.accept());
    await console.locator('tr[data-member="link-writer"]').getByRole('button', { name: 'Revoke' }).click();
    await expect(console.getByText('link-writer revoked.')).toBeVisible();
    const refusal = await checkPlainPage(stack, page, /revoked/);
    expect(refusal).toMatch(/member was revoked\. Ask your administrator/);
  } finally {
    await options.close();
    await console.close();
    await stack.configure({ bffUrl: stack.bffUrl });
  }
});

test('a member makes their own extension link in the console and signs in with it', async ({ stack }) => {
  stack.addMember('self-serve');
  const console = await stack.context.newPage();
  const options = await stack.context.newPage();
  try {
    await consoleAs(stack, console, 'self-serve');
    await console.getByRole('button', { name: 'Sign-in link for my browser extension' }).click();
    const link = await console.getByTestId('one-time-value').inputValue();
    expect(link).toMatch(/\/connect#code=/);
    await options.goto(`chrome-extension://${stack.extensionId}/options.html`);
    await options.getByLabel('Sign-in link or code').fill(link);
    await options.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(options.getByTestId('account')).toContainText('Signed in as self-serve');
  } finally {
    await options.close();
    await console.close();
    await stack.configure({ bffUrl: stack.bffUrl });
  }
});

test('a used or mistyped link is refused with a message that says what to do', async ({ stack }) => {
  const options = await stack.context.newPage();
  await options.goto(`chrome-extension://${stack.extensionId}/options.html`);
  try {
    await options.getByLabel('Sign-in link or code').fill('not a link');
    await options.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(options.getByTestId('account-note')).toHaveText(/Paste the whole sign-in link/);
    await options.getByLabel('Sign-in link or code').fill(`${stack.bffUrl}/connect#code=${'x'.repeat(43)}`);
    await options.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(options.getByTestId('account-note')).toHaveText(/already used, has expired or is unknown\. Ask your administrator for a new one/);
  } finally {
    await options.close();
    await stack.configure({ bffUrl: stack.bffUrl });
  }
});

test("sign in with your team's server: the sign-in window, consent, a check, renewal, sign-out", async ({ stack, page }) => {
  const token = stack.addMember('oauth-writer');
  const options = await stack.context.newPage();
  await options.goto(`chrome-extension://${stack.extensionId}/options.html`);
  try {
    const windowOpened = stack.context.waitForEvent('page', { predicate: (opened) => opened.url().startsWith(`${stack.bffUrl}/authorize`), timeout: 20_000 });
    await options.getByRole('button', { name: "Sign in with your team's server" }).click();
    const consent = await windowOpened;
    await expect(consent.locator('#client-name')).toHaveText('Redline browser extension');
    await expect(consent.locator('#redirect-host')).toHaveText(`${stack.extensionId}.chromiumapp.org`);
    await consent.getByLabel('Your member token').fill(token);
    await consent.getByRole('button', { name: 'Approve' }).click();
    await expect(options.getByTestId('account')).toHaveText(`Signed in as oauth-writer at ${new URL(stack.bffUrl).host}.`, { timeout: 20_000 });
    const signedIn = (await stored(stack)).signIn;
    expect(signedIn).toMatchObject({ memberName: 'oauth-writer', via: 'server' });

    await checkPlainPage(stack, page, /labelled AI/);

    // An access token about to expire is renewed before the next check (the refresh token
    // rotates), once for two checks started together: a refresh token works once, and using it
    // twice would end the grant.
    await stack.serviceWorker.evaluate(async () => {
      const { signIn } = await chrome.storage.local.get('signIn');
      await chrome.storage.local.set({ signIn: { ...signIn, expiresAt: Date.now() - 1000 } });
    });
    const second = await stack.context.newPage();
    // Two addresses: the fixture finds a tab by its URL.
    for (const [tab, query] of [[page, '?first'], [second, '?second']] as const) {
      await tab.goto(`${stack.pagesUrl}/plain.html${query}`);
      await tab.locator('#field').click();
    }
    const tabs = [await stack.tabIdOf(page), await stack.tabIdOf(second)];
    await stack.serviceWorker.evaluate(
      (tabs) => Promise.all(tabs.map((tab) => (globalThis as unknown as { redlineRunInTab(id: number, p: string): Promise<void> }).redlineRunInTab(tab, 'detector'))),
      tabs,
    );
    await waitForToast(page, /labelled AI/);
    await waitForToast(second, /labelled AI/);
    await second.close();
    const renewed = (await stored(stack)).signIn;
    expect(renewed.refreshToken).not.toBe(signedIn.refreshToken);
    expect(renewed.expiresAt).toBeGreaterThan(Date.now());
    await checkPlainPage(stack, page, /labelled AI/);

    // An access token the server refuses before its time (a clock behind the server's) is
    // renewed once and the check sent again.
    await stack.serviceWorker.evaluate(async () => {
      const { signIn } = await chrome.storage.local.get('signIn');
      await chrome.storage.local.set({ signIn: { ...signIn, accessToken: `${signIn.accessToken.slice(0, -4)}AAAA` } });
    });
    await checkPlainPage(stack, page, /labelled AI/);
    const reissued = (await stored(stack)).signIn;
    expect(reissued.refreshToken).not.toBe(renewed.refreshToken);

    await options.getByRole('button', { name: 'Sign out' }).click();
    await expect(options.getByTestId('account-note')).toHaveText('Signed out.');
    expect((await fetch(`${stack.bffUrl}/v1/usage`, { headers: { authorization: `Bearer ${reissued.accessToken}` } })).status).toBe(401);
  } finally {
    await options.close();
    await stack.configure({ bffUrl: stack.bffUrl });
  }
});
