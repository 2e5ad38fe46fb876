import { startBff } from './backend.ts';
import { test, expect } from './fixtures.ts';

declare const chrome: any;

test('options: a BFF that refuses this origin says so, naming the origin', async ({ stack }) => {
  const bff = await startBff({ allowedOrigins: 'chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' });
  try {
    const options = await stack.context.newPage();
    await options.goto(`chrome-extension://${stack.extensionId}/options.html`);
    await options.getByText('Advanced', { exact: true }).click();
    await options.getByLabel('Member token').fill(bff.addMember('chrome-user'));
    await options.getByLabel('Server address').fill(bff.url);
    await options.getByRole('button', { name: 'Test connection' }).click();
    await expect(options.getByTestId('test-result')).toHaveText(
      `Origin chrome-extension://${stack.extensionId} is not allowed. Add the extension's exact origin to BFF_ALLOWED_ORIGINS.`,
    );
    await options.close();
  } finally {
    await bff.stop();
  }
});

// With a member token the extension sends it with every request, and the text with every check:
// over plain http to another machine anyone on the network could read both.
test('options: a plain-http address of another machine is refused, saying to use https', async ({ stack }) => {
  const options = await stack.context.newPage();
  await options.goto(`chrome-extension://${stack.extensionId}/options.html`);
  await options.getByText('Advanced', { exact: true }).click();
  await options.getByLabel('Member token').fill(`rl_${'a'.repeat(43)}`);
  await options.getByLabel('Server address').fill('http://redline.example.com:8787');
  await expect(options.locator('#bff-url-error')).toHaveText(
    'Use https://redline.example.com:8787: over plain http anyone on the network could read your token and the text you check. Plain http is only for a server on this machine (127.0.0.1, [::1] or localhost).',
  );
  await expect(options.getByRole('button', { name: 'Save', exact: true }).last()).toBeDisabled();
  await expect(options.getByRole('button', { name: 'Test connection' })).toBeDisabled();
  await options.getByLabel('Server address').fill('http://127.0.0.1:8787');
  await expect(options.locator('#bff-url-error')).toHaveCount(0);
  await options.close();
});

// An address saved before plain http was refused (or signed in over it) stays in storage after
// the update: it is not used either, so the token and the text never go to it.
test('a plain-http address of another machine saved before is not called, saying to use https', async ({ stack }) => {
  const sent: string[] = [];
  await stack.context.route('http://redline.example.com:8787/**', (route) => {
    sent.push(route.request().url());
    return route.fulfill({ status: 500, body: '' });
  });
  try {
    const options = await stack.context.newPage();
    await options.goto(`chrome-extension://${stack.extensionId}/options.html`);
    const before = await options.evaluate(() => chrome.storage.local.get(null));
    await options.evaluate(() =>
      chrome.storage.local.set({ settings: { bffUrl: 'http://redline.example.com:8787' }, memberToken: `rl_${'a'.repeat(43)}`, signIn: null }),
    );
    const popup = await stack.context.newPage();
    await popup.goto(`chrome-extension://${stack.extensionId}/popup.html`);
    await expect(popup.getByTestId('connection')).toHaveText(/^Use https:\/\/redline\.example\.com:8787: over plain http anyone on the network could read your token/);
    expect(sent).toEqual([]);
    await popup.close();
    await options.evaluate(async (stored) => {
      await chrome.storage.local.clear();
      await chrome.storage.local.set(stored);
    }, before);
    await options.close();
  } finally {
    await stack.context.unroute('http://redline.example.com:8787/**');
  }
});
