import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { OAuthTestClient, approveWithoutBrowser } from '../bff/oauth-client.ts';
import { upstreamControl } from '../upstream/client.ts';
import { test, expect } from './fixtures.ts';

// The team console in Debian's Chromium against the real BFF and upstream double: an admin
// signs in with a one-time link, adds a member and reads its one-time token, sets a budget
// that refuses the member's next /v1 check, revokes the member (the next /v1 call is
// refused), and finds all of it in the audit log. Then it rotates the upstream key from the
// console while checks run.

const TEXT_12_WORDS = 'One two three four five six seven eight nine ten eleven twelve.';

/** A one-time console sign-in link for the owner, made with the members CLI as an administrator would. */
function ownerSignInLink(stack: { bffUrl: string; dataDir: string }): string {
  const output = execFileSync(process.execPath, ['--import', 'tsx', 'bff/src/cli.ts', 'link', 'owner'], {
    env: { ...process.env, BFF_DATA_DIR: stack.dataDir, BFF_PORT: new URL(stack.bffUrl).port },
    encoding: 'utf8',
  });
  return /(http:\/\/\S+\/console\/#link=\S+)/.exec(output)![1]!;
}

test('console: link sign-in, add member, budget, revoke, audit', async ({ stack, page }) => {
  const link = ownerSignInLink(stack);

  await page.goto(link);
  await expect(page.getByText('Signed in as')).toContainText('owner');
  // The one-time code left the address bar at once.
  expect(page.url()).not.toContain('#link=');
  const cookies = await stack.context.cookies(stack.bffUrl + '/console/');
  const session = cookies.find((cookie) => cookie.name === 'redline_console')!;
  expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console' });

  // A used link does not sign in a second time (the page tries the link before any cookie).
  const second = await stack.context.newPage();
  await second.goto(link);
  await expect(second.getByRole('alert')).toContainText('already used');
  await second.close();
  await page.reload();
  await expect(page.getByText('Signed in as')).toContainText('owner');

  await page.getByLabel("New member's name").fill('console-writer');
  await page.getByRole('button', { name: 'Add member' }).click();
  const token = await page.getByTestId('one-time-value').inputValue();
  expect(token).toMatch(/^rl_[A-Za-z0-9_-]{43}$/);
  await expect(page.getByText('shown only this once')).toBeVisible();
  await page.getByRole('button', { name: 'Done, hide it' }).click();
  await expect(page.getByTestId('one-time-value')).toHaveCount(0);
  expect(await page.content()).not.toContain(token);

  const detect = () =>
    fetch(`${stack.bffUrl}/v1/detect`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ operationId: randomUUID(), text: TEXT_12_WORDS }),
    }).then(async (response) => ({ status: response.status, body: await response.json() }));

  await page.getByLabel('detector budget for console-writer').fill('20');
  await page.getByRole('button', { name: 'Save budgets for console-writer' }).click();
  await expect(page.getByText('Budgets of console-writer saved.')).toBeVisible();
  await expect(page.locator('tr[data-member="console-writer"]')).toContainText('0 of 20 (20 left)');

  expect((await detect()).status).toBe(200);
  const refused = await detect();
  expect(refused.status).toBe(403);
  expect(refused.body.error.code).toBe('member_budget_exceeded');
  await page.getByRole('button', { name: 'Usage' }).click();
  await expect(page.locator('.chart canvas')).toBeVisible();
  await expect(page.getByRole('table', { name: 'Words per member' }).getByRole('row', { name: /console-writer/ })).toContainText('12 (8 left)');
  const csv = await page.request.get(`${stack.bffUrl}/console/api/usage.csv`);
  expect(await csv.text()).toMatch(/,console-writer,detector,12\r\n/);
  await page.getByRole('button', { name: 'Members' }).click();
  await expect(page.locator('tr[data-member="console-writer"]')).toContainText('12 of 20 (8 left)');
  // For the README (test-results/ is not committed; docs/console.png is copied from it).
  await page.screenshot({ path: 'test-results/console-members.png', fullPage: true });

  page.once('dialog', (dialog) => void dialog.accept());
  await page.locator('tr[data-member="console-writer"]').getByRole('button', { name: 'Revoke' }).click();
  await expect(page.getByText('console-writer revoked.')).toBeVisible();
  const afterRevoke = await detect();
  expect(afterRevoke.status).toBe(401);

  await page.getByRole('button', { name: 'Audit log' }).click();
  const audit = page.getByRole('table');
  for (const action of ['sign_in', 'sign_in_refused', 'member_added', 'budgets_changed', 'member_revoked']) {
    await expect(audit.getByRole('rowheader', { name: action, exact: true }).first()).toBeVisible();
  }
  await expect(audit).not.toContainText(token);
});

test('console: rotate the upstream key while checks run; none fails, none is charged twice; the audit log lists it', async ({ stack, page }) => {
  await page.goto(ownerSignInLink(stack));
  await expect(page.getByText('Signed in as')).toContainText('owner');
  await page.getByRole('button', { name: 'Upstream key' }).click();
  await expect(page.getByText('Environment key (UPSTREAM_API_KEY)')).toContainText('in use');

  // Another value of the same upstream account as the BFF's environment key (the double's demo account).
  const newKey = 'demo-key-secondary';
  await page.getByLabel('Name').fill('demo secondary');
  await page.getByLabel('New upstream key').fill(newKey);
  await page.getByRole('button', { name: 'Store key' }).click();
  const row = page.locator('tr[data-key="demo secondary"]');
  await expect(row).toContainText('••••dary');
  await expect(row).toContainText('prepared');
  await expect(page.getByLabel('New upstream key')).toHaveValue('');
  expect(await page.content()).not.toContain(newKey);

  const state = async () => {
    const answer = (await (await fetch(`${stack.doubleUrl}/__control/state`)).json()) as { accounts: { id: string; charged: { detector: number }; providerRuns: { detector: number } }[] };
    return answer.accounts.find((account) => account.id === 'demo')!;
  };
  const writer = stack.addMember('key-rotation-writer');
  const before = await state();
  let running = true;
  const checks: { status: number; words: number }[] = [];
  const stream = Promise.all(
    [0, 1].map(async () => {
      while (running) {
        const response = await fetch(`${stack.bffUrl}/v1/detect`, {
          method: 'POST',
          headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' },
          body: JSON.stringify({ operationId: randomUUID(), text: TEXT_12_WORDS }),
        });
        const body = (await response.json()) as { wordsCharged?: number };
        checks.push({ status: response.status, words: body.wordsCharged ?? 0 });
        // Paced well under the member's rate limit (120 a minute), which is not what this test is about.
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }),
  );

  // The page says what a test may charge before it runs.
  await expect(page.getByText('Before a test:')).toContainText('charged 3 words');
  page.once('dialog', (dialog) => {
    expect(dialog.message()).toContain('charged 3 words');
    void dialog.accept();
  });
  await row.getByRole('button', { name: 'Test demo secondary' }).click();
  await expect(row).toContainText('passed');
  await expect(row).toContainText('same upstream account');
  page.once('dialog', (dialog) => void dialog.accept());
  await row.getByRole('button', { name: 'Mark demo secondary saved' }).click();
  await expect(row).toContainText('saved, not active');
  await row.getByRole('button', { name: 'Activate demo secondary' }).click();
  await expect(page.getByText('"demo secondary" is active')).toBeVisible();
  await expect(row).toContainText('in use');
  await expect(page.getByText('Environment key (UPSTREAM_API_KEY)')).toContainText('not used while a console key is active');
  await page.screenshot({ path: 'test-results/console-upstream-key.png', fullPage: true });
  const countAtActivation = checks.length;
  await expect.poll(() => checks.length, { timeout: 20_000 }).toBeGreaterThan(countAtActivation + 4);
  running = false;
  await stream;

  expect(checks.filter((check) => check.status !== 200)).toEqual([]);
  const after = await state();
  // Every check ran once and was charged once; the test's request charged 3 words, its account probe nothing.
  expect(after.providerRuns.detector - before.providerRuns.detector).toBe(checks.length + 1);
  expect(after.charged.detector - before.charged.detector).toBe(checks.reduce((sum, check) => sum + check.words, 0) + 3);

  // Back to the environment's key: the console key becomes previous.
  await page.getByRole('button', { name: 'Use this key again' }).click();
  await expect(page.getByText('The key in UPSTREAM_API_KEY is in use again')).toBeVisible();
  await expect(page.getByText('Environment key (UPSTREAM_API_KEY)')).toContainText('in use');
  await expect(row).toContainText('previous (was active)');

  await page.getByRole('button', { name: 'Audit log' }).click();
  const audit = page.getByRole('table');
  for (const action of ['upstream_key_added', 'upstream_key_tested', 'upstream_key_saved', 'upstream_key_activated']) {
    await expect(audit.getByRole('rowheader', { name: action, exact: true }).first()).toBeVisible();
  }
  expect(await page.content()).not.toContain(newKey);
});

test('console: a check charged upstream whose answer the retired key cannot fetch is listed under Usage, then counted once when the key works again', async ({ stack, page }) => {
  const control = upstreamControl(stack.doubleUrl);
  const writer = stack.addMember('held-writer');
  const operationId = randomUUID();
  const detect = () =>
    fetch(`${stack.bffUrl}/v1/detect`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ operationId, text: TEXT_12_WORDS }),
    }).then(async (response) => ({ status: response.status, body: await response.json() }));
  const before = await control.account('demo');
  // The first attempt runs and is charged upstream, its answer lost on the way back; the BFF's
  // repeats find the connection closed before they are read.
  await control.addFaults([
    { fault: { kind: 'drop-after' }, product: 'detector' },
    { fault: { kind: 'drop-before' }, product: 'detector', times: 20 },
  ]);
  const lost = await detect();
  await control.clearFaults();
  expect(lost.status).not.toBe(200);
  // The dashboard retired the BFF's key meanwhile: the upstream refuses it before its idempotency record.
  await control.changeKeys('demo', { add: ['demo-key-replacement'], remove: ['demo-key-primary'] });
  try {
    const refused = await detect();
    expect([refused.status, refused.body.error.code]).toEqual([502, 'upstream_key_rejected']);

    await page.goto(ownerSignInLink(stack));
    await page.getByRole('button', { name: 'Usage' }).click();
    const held = page.getByRole('table', { name: 'Held checks' });
    await expect(held.locator(`tr[data-held="${operationId}"]`)).toContainText('held-writer');
    await expect(held.locator(`tr[data-held="${operationId}"]`)).toContainText('detector');
    await expect(held.locator(`tr[data-held="${operationId}"]`)).toContainText('upstream_key_rejected');
    await expect(page.getByText('may have been charged upstream')).toBeVisible();
  } finally {
    await control.changeKeys('demo', { add: ['demo-key-primary'], remove: ['demo-key-replacement'] });
  }

  // The key works again: the member's repeat fetches the answer, charged once, and the list is gone.
  const fetched = await detect();
  expect(fetched.status).toBe(200);
  const after = await control.account('demo');
  expect(after.charged.detector - before.charged.detector).toBe(fetched.body.wordsCharged);
  await page.getByRole('button', { name: 'Show' }).click();
  const perMember = page.getByRole('table', { name: 'Words per member' });
  await expect(perMember.getByRole('row', { name: /held-writer/ })).toContainText(String(fetched.body.wordsCharged));
  await expect(page.getByRole('table', { name: 'Held checks' })).toHaveCount(0);
});

/** A console session opened with a member token outside the browser, as another administrator's would be. */
async function consoleSession(bffUrl: string, token: string) {
  const signIn = await fetch(`${bffUrl}/console/api/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json', origin: bffUrl }, body: JSON.stringify({ token }) });
  expect(signIn.status).toBe(200);
  const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
  const { csrfToken } = (await signIn.json()) as { csrfToken: string };
  return async (path: string, body?: unknown) => {
    const response = await fetch(`${bffUrl}/console/api${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { cookie, origin: bffUrl, 'x-redline-csrf': csrfToken, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(response.ok).toBe(true);
    return response.json() as Promise<any>;
  };
}

test('console: a refused action or page shows why (an ended session, a lost admin role), with no uncaught error', async ({ stack, page }) => {
  const uncaught: string[] = [];
  page.on('pageerror', (error) => uncaught.push(error.message));
  const deputyToken = stack.addMember('console-deputy');
  await page.goto(ownerSignInLink(stack));
  await expect(page.getByText('Signed in as')).toContainText('owner');
  await page.locator('tr[data-member="console-deputy"]').getByRole('button', { name: 'Make admin' }).click();
  await expect(page.locator('tr[data-member="console-deputy"]')).toContainText('admin');

  // The deputy's session ends after the owner's list showed it: revoking it is refused, and the list catches up.
  const deputy = await consoleSession(stack.bffUrl, deputyToken);
  await page.getByRole('button', { name: 'Sessions' }).click();
  const deputyRow = page.getByRole('row', { name: /console-deputy/ });
  await expect(deputyRow).toHaveCount(1);
  await deputy('/sign-out', {});
  await deputyRow.getByRole('button', { name: 'Revoke' }).click();
  await expect(page.getByRole('alert')).toHaveText('There is no open session with this id: it may have been signed out, revoked or expired, or the id is wrong. Reload the list of sessions.');
  await expect(deputyRow).toHaveCount(0);

  // Another administrator makes the owner a member while the owner's console is open.
  const deputyAgain = await consoleSession(stack.bffUrl, deputyToken);
  const { members } = await deputyAgain('/members');
  const owner = members.find((member: { name: string }) => member.name === 'owner');
  await deputyAgain(`/members/${owner.id}/role`, { role: 'member' });
  try {
    await page.getByRole('button', { name: 'Audit log' }).click();
    await expect(page.getByRole('alert')).toHaveText('Only administrators can do this. Ask an administrator to make you one.');
  } finally {
    await deputyAgain(`/members/${owner.id}/role`, { role: 'admin' });
  }
  expect(uncaught).toEqual([]);
});

test("console: an administrator sees a member's assistant sign-ins and ends one; the others keep working", async ({ stack, page }) => {
  const writerToken = stack.addMember('console-assistants');
  const signIn = async (name: string) => {
    const client = await OAuthTestClient.register(`${stack.bffUrl}/mcp`, 'http://127.0.0.1:7777/callback', name);
    const start = await client.start();
    const { location } = await approveWithoutBrowser(start.authorizationUrl, writerToken);
    return client.exchange(location!, start);
  };
  const mcpStatus = async (accessToken: string) =>
    (
      await fetch(`${stack.bffUrl}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      })
    ).status;
  const kept = await signIn('Kept assistant');
  const ended = await signIn('Ended assistant');

  await page.goto(ownerSignInLink(stack));
  const row = page.locator('tr[data-member="console-assistants"]');
  await row.getByLabel('Sign-ins of console-assistants').click();
  const listed = row.locator('li[data-sign-in]');
  await expect(listed).toHaveCount(2);
  await expect(row.locator('li[data-sign-in="Ended assistant"]')).toContainText('assistant (MCP), may detect, humanize, sources, back to 127.0.0.1:7777');

  page.once('dialog', (dialog) => void dialog.accept());
  await row.getByRole('button', { name: "End console-assistants's sign-in of Ended assistant" }).click();
  await expect(page.getByText("console-assistants's sign-in of Ended assistant was ended.")).toBeVisible();
  await expect(listed).toHaveCount(1);
  await expect(listed).toHaveAttribute('data-sign-in', 'Kept assistant');
  // Read back where it matters: the ended sign-in's token is refused, the other's and the member's own still work.
  expect(await mcpStatus(ended.access_token)).toBe(401);
  expect(await mcpStatus(kept.access_token)).toBe(200);
  expect(await mcpStatus(writerToken)).toBe(200);
});
