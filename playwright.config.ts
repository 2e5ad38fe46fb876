import { defineConfig } from '@playwright/test';

// End-to-end tests: Debian's Chromium with the built extension, the real BFF and the
// upstream double. One worker: the browser, BFF and double are shared per worker.
export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.e2e.ts',
  globalSetup: './test/e2e/global-setup.ts',
  workers: 1,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: { trace: 'off' },
});
