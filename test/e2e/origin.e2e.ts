import { startBff } from './backend.ts';
import { test, expect } from './fixtures.ts';

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
