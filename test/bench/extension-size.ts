/**
 * Size report of the built extension (Chrome and Firefox MV3): each file raw and gzipped,
 * and the content script against its 30 KB gzipped target.
 *
 *   npm run size      (builds both first)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

for (const target of ['chrome-mv3', 'firefox-mv3']) {
  const root = path.resolve('extension/.output', target);
  const rows: { file: string; raw: number; gzip: number }[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder)) {
      const file = path.join(folder, entry);
      if (statSync(file).isDirectory()) walk(file);
      else if (/\.(js|css|html|json)$/.test(entry)) {
        const content = readFileSync(file);
        rows.push({ file: path.relative(root, file), raw: content.length, gzip: gzipSync(content).length });
      }
    }
  };
  walk(root);
  rows.sort((a, b) => b.gzip - a.gzip);
  console.log(`\n${target}\n\n| file | raw | gzipped |\n|---|---|---|`);
  for (const row of rows) console.log(`| ${row.file} | ${kb(row.raw)} | ${kb(row.gzip)} |`);
  const total = rows.reduce((sum, row) => ({ raw: sum.raw + row.raw, gzip: sum.gzip + row.gzip }), { raw: 0, gzip: 0 });
  console.log(`| total | ${kb(total.raw)} | ${kb(total.gzip)} |`);
  const content = rows.find((row) => row.file === 'content-scripts/content.js')!;
  console.log(`\nContent script: ${kb(content.gzip)} gzipped (target 30 KB): ${content.gzip <= 30 * 1024 ? 'within target' : 'OVER TARGET'}`);
}
