import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

// Dependencies point one way: extension and bff depend on shared; neither on the other, and
// none of the three on test/. The extension never imports the server-side analyzers.

function sources(folder: string): string[] {
  return readdirSync(folder).flatMap((entry) => {
    const file = path.join(folder, entry);
    if (['node_modules', '.output', '.wxt'].includes(entry)) return [];
    return statSync(file).isDirectory() ? sources(file) : /\.(ts|tsx)$/.test(entry) ? [file] : [];
  });
}

const importsOf = (file: string) => [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((match) => match[1]!);

const RULES: [string, RegExp][] = [
  ['shared', /@redline\/(bff|extension|test)|\.\.\/(\.\.\/)*(bff|extension|test)\//],
  ['bff', /@redline\/(extension|test)|\.\.\/(\.\.\/)*(extension|test)\//],
  ['extension', /@redline\/(bff|test)|@redline\/shared\/analysis|\.\.\/(\.\.\/)*(bff|test)\//],
];

it.each(RULES)('%s/ imports nothing it must not', (folder, forbidden) => {
  const files = sources(folder);
  expect(files.length).toBeGreaterThan(5);
  expect(files.flatMap(importsOf).length).toBeGreaterThan(20);
  const offending = files.flatMap((file) => importsOf(file).filter((name) => forbidden.test(name)).map((name) => `${file}: ${name}`));
  expect(offending).toEqual([]);
});
