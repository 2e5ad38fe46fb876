import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CHROMIUM_PATH, FIREFOX_PATH } from '../system.ts';
import { buildPages } from './pages/build.ts';

/** Builds the editor test pages and the console page, and the extension if `npm test` has not already. */
export default async function globalSetup(): Promise<void> {
  for (const [name, executable] of [['Chromium', CHROMIUM_PATH], ['Firefox ESR', FIREFOX_PATH]]) {
    if (!existsSync(executable!)) throw new Error(`End-to-end tests need Debian's ${name} at ${executable}: npm run setup installs it (as root).`);
  }
  if (!['chrome-mv3', 'firefox-mv3'].every((target) => existsSync(`extension/.output/${target}/manifest.json`))) {
    execFileSync('npm', ['run', 'build'], { cwd: 'extension', stdio: 'inherit' });
  }
  // The team console's page (a fraction of a second): always fresh, so no stale bundle is tested.
  execFileSync(process.execPath, ['bff/console-ui/build.mjs'], { stdio: 'inherit' });
  await buildPages();
}
