import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'test/e2e/**'],
    setupFiles: ['test/fast-check-seed.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
