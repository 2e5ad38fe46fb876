import { defineConfig } from 'wxt';
import preact from '@preact/preset-vite';

export default defineConfig({
  srcDir: '.',
  outDir: '.output',
  vite: () => ({
    plugins: [preact()],
    build: {
      sourcemap: false,
      rollupOptions: {
        // zod ships comments Rollup cannot place; they are only dropped, harmlessly.
        onwarn(warning, warn) {
          if (warning.code !== 'INVALID_ANNOTATION') warn(warning);
        },
      },
    },
  }),
  manifest: ({ browser }) => ({
    name: 'Redline',
    description: 'Check writing for AI signals, review humanized rewrites and plagiarism sources, in the editor you are using.',
    permissions: ['storage', 'contextMenus', 'activeTab', ...(browser === 'firefox' ? [] : ['sidePanel'])],
    commands: {
      'check-ai': { suggested_key: { default: 'Alt+Shift+A' }, description: 'Check for AI writing' },
      humanize: { suggested_key: { default: 'Alt+Shift+H' }, description: 'Humanize' },
      'check-sources': { suggested_key: { default: 'Alt+Shift+S' }, description: 'Check sources' },
    },
    ...(browser === 'firefox' ? { browser_specific_settings: { gecko: { id: 'redline@example.org', strict_min_version: '128.0' } } } : {}),
  }),
});
