import { defineConfig } from 'wxt';
import preact from '@preact/preset-vite';

/**
 * The public half of the key that fixes this build's Chrome extension id
 * (chrome-extension://ncdggekeiimjacfkplbplnkjenemmgga), so that a BFF started with the
 * defaults accepts the extension built from this repository without configuration. It is
 * a public key, not a secret; a store release gets its id from the store instead.
 */
const CHROME_PUBLIC_KEY =
  'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA1cpSxzXhg2CCNgimMAcqf4fPsFjtYihVxZ0XfUktApesOD1WCg1jMwT6GCdtKV4ZBmgDdvNIuZR9rBE/AaSdgvNWHI9mCvhkz/OVn8qqh6aaQiA5CiI/lMaOrYG2lcR+nWpbM8l8scxXBK3xjZX6R5isetAO6YdHkAP05gFC99BDWa5qFQRdEfqyJ0seGXUxVqxb2RW/cB7jUOP68hDxjWPz90S9nRg9EJ+Dtd4T1FA4c1bS3tHyp3IU77K5ARz5R6gCVP0U4GVx+p1V8Z+urBnv81Kdsa3rTlH1ebNYSYCyWtDmTJs7QFX3LFfrMEm7gdBNrHhVs4QA8A5boOrGlwIDAQAB';

export default defineConfig({
  srcDir: '.',
  outDir: '.output',
  vite: () => ({
    plugins: [preact()],
    build: {
      sourcemap: false,
      rollupOptions: {
        // zod ships comments Rollup cannot place; they are only dropped, harmlessly. (`onLog`,
        // not `onwarn`: WXT's builds pass these logs on before any `onwarn` sees them.)
        onLog(level, log, handler) {
          if (log.code !== 'INVALID_ANNOTATION') handler(level, log);
        },
      },
    },
  }),
  manifest: ({ browser }) => ({
    name: 'Redline',
    description: 'Check writing for AI signals, review humanized rewrites and plagiarism sources, in the editor you are using.',
    permissions: ['storage', 'contextMenus', 'activeTab', 'identity', ...(browser === 'firefox' ? [] : ['sidePanel'])],
    commands: {
      'check-ai': { suggested_key: { default: 'Alt+Shift+A' }, description: 'Check for AI writing' },
      humanize: { suggested_key: { default: 'Alt+Shift+H' }, description: 'Humanize' },
      'check-sources': { suggested_key: { default: 'Alt+Shift+S' }, description: 'Check sources' },
      // Chrome takes at most four suggested shortcuts: this is the fourth.
      'check-page': { suggested_key: { default: 'Alt+Shift+P' }, description: 'Check this page for AI writing' },
    },
    // Imported by the content script only when needed (lib/content/on-demand.ts). In Chrome only
    // through a URL that changes every session (runtime.getURL gives it), so a page cannot probe
    // the fixed extension id for these files to learn that Redline is installed; Firefox already
    // gives every profile its own random extension origin.
    web_accessible_resources: [
      { resources: ['article.js', 'word-diff.js', 'apply.js', 'mirror.js'], matches: ['<all_urls>'], ...(browser === 'firefox' ? {} : { use_dynamic_url: true }) },
    ],
    ...(browser === 'firefox' ? {} : { key: CHROME_PUBLIC_KEY }),
    ...(browser === 'firefox'
      ? {
          browser_specific_settings: {
            gecko: {
              id: 'redline@example.org',
              // 140: the first release that reads data_collection_permissions.
              strict_min_version: '140.0',
              // The text you check leaves the browser for your team's BFF (and its service).
              data_collection_permissions: { required: ['websiteContent'] },
            },
            // Firefox for Android reads data_collection_permissions from 142 on.
            gecko_android: { strict_min_version: '142.0' },
          },
        }
      : {}),
  }),
});
