import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { buildPages } from './pages/build.ts';

/** Builds the Chrome extension and the editor test pages once per run. */
export default async function globalSetup(): Promise<void> {
  if (!existsSync('/usr/bin/chromium')) {
    throw new Error('End-to-end tests need Debian Chromium at /usr/bin/chromium: apt-get install -y chromium (.ci/run does this).');
  }
  execFileSync('npx', ['wxt', 'build'], { cwd: 'extension', stdio: 'inherit' });
  await buildPages();
}
