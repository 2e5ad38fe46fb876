import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { scanForSecrets } from './secret-scan.ts';

const OUTPUTS = ['chrome-mv3', 'firefox-mv3'].map((name) => path.resolve('extension/.output', name));
const CONTENT_SCRIPT_BUDGET = 30 * 1024;

beforeAll(() => {
  // `npm test` builds first; build here too when this file runs alone.
  if (!OUTPUTS.every((output) => existsSync(path.join(output, 'manifest.json')))) {
    execFileSync('npm', ['run', 'build'], { cwd: 'extension', stdio: 'ignore' });
  }
}, 120_000);

describe('the built extension', () => {
  it.each(OUTPUTS)('%s has no secret, no upstream access and no analyzer code', (output) => {
    expect(scanForSecrets(output)).toEqual([]);
  });

  it('the scan itself finds a planted token, key and analyzer phrase', () => {
    const planted = mkdtempSync(path.join(tmpdir(), 'redline-scan-'));
    try {
      mkdirSync(path.join(planted, 'chunks'));
      writeFileSync(path.join(planted, 'chunks', 'a.js'), `const t="rl_${'A'.repeat(43)}";fetch(u,{headers:{"X-API-Key":k}})`);
      writeFileSync(path.join(planted, 'b.js'), 'const phrases=["navigate the complexities"];const apiKey = "abcdefghijklmnop1234";');
      expect(scanForSecrets(planted).map((finding) => finding.name).sort()).toEqual(
        ['hard-coded credential', 'member token', 'server-side analyzer', 'upstream API key header'].sort(),
      );
    } finally {
      rmSync(planted, { recursive: true, force: true });
    }
  });

  it.each(OUTPUTS)('%s keeps the content script within 30 KB gzipped', (output) => {
    const size = gzipSync(readFileSync(path.join(output, 'content-scripts/content.js'))).length;
    expect(size).toBeLessThanOrEqual(CONTENT_SCRIPT_BUDGET);
  });

  it.each(OUTPUTS)('%s loads Readability, the verified apply and the textarea highlighter on demand, not in the content script', (output) => {
    const content = readFileSync(path.join(output, 'content-scripts/content.js'), 'utf8');
    expect(content).not.toContain('readability-page-1');
    expect(readFileSync(path.join(output, 'article.js'), 'utf8')).toContain('readability-page-1');
    // The apply's synthetic paste and its watch for the writer's input live in apply.js only.
    for (const marker of ['ClipboardEvent', 'compositionstart']) {
      expect(content).not.toContain(marker);
      expect(readFileSync(path.join(output, 'apply.js'), 'utf8')).toContain(marker);
    }
    const manifest = JSON.parse(readFileSync(path.join(output, 'manifest.json'), 'utf8'));
    // The textarea highlighter (its mirror element's tag) lives in mirror.js only.
    expect(content).not.toContain('redline-overlay');
    expect(readFileSync(path.join(output, 'mirror.js'), 'utf8')).toContain('redline-overlay');
    expect(manifest.web_accessible_resources).toEqual([expect.objectContaining({ resources: ['article.js', 'word-diff.js', 'apply.js', 'mirror.js'] })]);
    // Chrome: reachable only through the per-session URL, so a page cannot probe for them.
    if (output.includes('chrome')) expect(manifest.web_accessible_resources[0].use_dynamic_url).toBe(true);
  });

  it('declares MV3, the side panel (Chrome) or sidebar (Firefox), the commands and no host access', () => {
    const chrome = JSON.parse(readFileSync(path.join(OUTPUTS[0]!, 'manifest.json'), 'utf8'));
    const firefox = JSON.parse(readFileSync(path.join(OUTPUTS[1]!, 'manifest.json'), 'utf8'));
    for (const manifest of [chrome, firefox]) {
      expect(manifest.manifest_version).toBe(3);
      expect(Object.keys(manifest.commands)).toEqual(expect.arrayContaining(['check-ai', 'humanize', 'check-sources', 'check-page']));
      // Chrome refuses a manifest with more than four suggested shortcuts.
      expect(Object.values(manifest.commands).filter((command: any) => command.suggested_key).length).toBeLessThanOrEqual(4);
      expect(manifest.host_permissions ?? []).toEqual([]);
    }
    expect(chrome.side_panel.default_path).toBe('sidepanel.html');
    expect(chrome.permissions).toContain('sidePanel');
    expect(firefox.sidebar_action.default_panel).toBe('sidepanel.html');
  });
});
