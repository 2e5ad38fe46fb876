// Builds the team console (Preact, uPlot) into bff/dist/console: one script, its bundled
// stylesheet (console.css, from uPlot), the page's own stylesheet and the page.
// No CDN: the BFF serves these files itself under /console.
import { copyFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const out = here('../dist/console/');
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [here('main.tsx')],
  outfile: `${out}console.js`,
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['chrome120', 'firefox115'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
});
for (const file of ['index.html', 'page.css']) copyFileSync(here(file), `${out}${file}`);
console.log(`console built into ${out}`);
