import { defineConfig } from '@playwright/test';

// End-to-end tests with the built extension, the real BFF and the upstream double: Debian's
// Chromium through Playwright, and Debian's Firefox ESR over WebDriver BiDi (puppeteer-core,
// test/e2e/firefox). Each worker has its own browser, BFF and double. Two workers at most, one
// per project: the largest matrix, `accept-boundaries` (28 editors × 8 accepts, a third of the
// suite's time), runs in a worker of its own beside the others, since it only accepts and never
// types against the clock; the tests that do (typing bursts, accepts while typing, co-authors)
// stay in one worker, one at a time, as before.
export default defineConfig({
  testDir: 'test/e2e',
  globalSetup: './test/e2e/global-setup.ts',
  workers: 2,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: { trace: 'off' },
  projects: [
    { name: 'chromium', testMatch: '**/*.e2e.ts', testIgnore: ['firefox/**', 'accept-boundaries.e2e.ts'], workers: 1 },
    { name: 'chromium-boundaries', testMatch: 'accept-boundaries.e2e.ts', workers: 1 },
    { name: 'firefox', testMatch: 'firefox/**/*.e2e.ts', workers: 1 },
  ],
});
