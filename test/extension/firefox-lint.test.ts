import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import webExt from 'web-ext';
import { beforeAll, describe, expect, it } from 'vitest';

const FIREFOX_BUILD = path.resolve('extension/.output/firefox-mv3');

interface LintMessage {
  code: string;
  message: string;
  file?: string;
}

/**
 * Accepted by name, each for a reason the linter cannot see:
 * - Preact's renderer assigns `innerHTML` for `dangerouslySetInnerHTML`, which Redline never
 *   uses; addons.mozilla.org reviews this known library pattern.
 * - Readability (`article.js`) assigns `innerHTML` inside its own copy of the page (a document
 *   made by `cloneNode`, with no browsing context), never in the page; its output is read as
 *   nodes, never inserted anywhere.
 * - The content script's one `import()` (lib/content/on-demand.ts) takes
 *   `runtime.getURL(...)` of one of two fixed files of the extension itself.
 */
const KNOWN_LIBRARY_WARNINGS = [
  (warning: LintMessage) => warning.code === 'UNSAFE_VAR_ASSIGNMENT' && /^chunks\//.test(warning.file ?? ''),
  (warning: LintMessage) => warning.code === 'UNSAFE_VAR_ASSIGNMENT' && warning.file === 'article.js' && /innerHTML/.test(warning.message),
  (warning: LintMessage) => warning.code === 'UNSAFE_VAR_ASSIGNMENT' && warning.file === 'content-scripts/content.js' && /call to import/.test(warning.message),
];

beforeAll(() => {
  // `npm test` builds first; build here too when this file runs alone.
  if (!existsSync(path.join(FIREFOX_BUILD, 'manifest.json'))) {
    execFileSync('npm', ['run', 'build:firefox'], { cwd: 'extension', stdio: 'ignore' });
  }
}, 120_000);

describe('the Firefox build', () => {
  it('passes web-ext lint with no errors, notices or warnings of its own', async () => {
    const result = (await webExt.cmd.lint({ sourceDir: FIREFOX_BUILD, output: 'none' }, { shouldExitProgram: false })) as {
      errors: LintMessage[];
      notices: LintMessage[];
      warnings: LintMessage[];
    };
    const describeAll = (messages: LintMessage[]) => messages.map(({ code, file, message }) => `${code} ${file ?? ''}: ${message}`);
    expect(describeAll(result.errors)).toEqual([]);
    expect(describeAll(result.notices)).toEqual([]);
    expect(describeAll(result.warnings.filter((warning) => !KNOWN_LIBRARY_WARNINGS.some((known) => known(warning))))).toEqual([]);
  }, 60_000);

  it('declares the data it sends away, for Firefox 140 on and for Android 142 on', () => {
    const manifest = JSON.parse(readFileSync(path.join(FIREFOX_BUILD, 'manifest.json'), 'utf8'));
    expect(manifest.browser_specific_settings.gecko.data_collection_permissions).toEqual({ required: ['websiteContent'] });
    expect(manifest.browser_specific_settings.gecko.strict_min_version).toBe('140.0');
  });
});
