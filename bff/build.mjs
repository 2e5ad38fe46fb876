// Builds the BFF into bff/dist/server for `npm start`: one ES module per entry, the project's own
// code (bff and @redline/shared) bundled, npm packages left to node_modules. Running the bundle
// keeps the TypeScript loader (tsx and esbuild, about 40 MiB and a few percent of CPU) out of
// the server; tests and `npm run start:bff` still run the sources through tsx.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const dependencies = (file) => Object.keys(JSON.parse(readFileSync(here(file), 'utf8')).dependencies ?? {});
const external = [...new Set([...dependencies('package.json'), ...dependencies('../shared/package.json')])].filter((name) => !name.startsWith('@redline/'));

await build({
  entryPoints: {
    main: here('src/main.ts'),
    // Named as offline-forwarder.ts starts them, next to the bundle.
    'analysis-worker': here('src/offline/analyse.ts'),
    'source-index-worker': here('src/offline/source-index-thread.ts'),
    'sqlite-checkpoint-worker': here('src/storage/sqlite-checkpoint-worker.mjs'),
  },
  outdir: here('dist/server'),
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: [...external, ...external.map((name) => `${name}/*`)],
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
});
console.log(`BFF built into ${here('dist/server/')}`);
