import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { buildPages } from './pages/build.ts';

/** Builds the editor test pages, and the Chrome extension if `npm test` has not already. */
export default async function globalSetup(): Promise<void> {
  if (!existsSync('/usr/bin/chromium')) {
    throw new Error('End-to-end tests need Debian Chromium at /usr/bin/chromium: apt-get install -y chromium (the pretest step, .ci/system-deps, does this as root).');
  }
  if (!existsSync('extension/.output/chrome-mv3/manifest.json')) {
    execFileSync('npx', ['wxt', 'build'], { cwd: 'extension', stdio: 'inherit' });
  }
  await buildPages();
}
