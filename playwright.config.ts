import { defineConfig } from '@playwright/test';

// End-to-end tests with the built extension, the real BFF and the upstream double: Debian's
// Chromium through Playwright, and Debian's Firefox ESR over WebDriver BiDi (puppeteer-core,
// test/e2e/firefox). One worker: the browser, BFF and double are shared per worker.
export default defineConfig({
  testDir: 'test/e2e',
  globalSetup: './test/e2e/global-setup.ts',
  workers: 1,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  // The durations first: the list reporter's summary of failures stays the last thing printed.
  reporter: [['./test/e2e/file-durations-reporter.ts'], ['list']],
  use: { trace: 'off' },
  projects: [
    { name: 'chromium', testMatch: '**/*.e2e.ts', testIgnore: 'firefox/**' },
    { name: 'firefox', testMatch: 'firefox/**/*.e2e.ts' },
  ],
});
