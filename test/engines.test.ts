import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { engines?: { node?: string } }> };

describe('the Node versions the README and package.json claim', () => {
  it('are inside every locked dependency’s engines range, so npm install warns about none', () => {
    const narrower = Object.entries(lock.packages)
      .filter(([name, entry]) => name !== '' && typeof entry.engines?.node === 'string')
      .filter(([, entry]) => !semver.subset(root.engines.node, entry.engines!.node!, { includePrerelease: false }))
      .map(([name, entry]) => `${name}: ${entry.engines!.node}`);
    expect(narrower).toEqual([]);
  });

  it('would catch a claim wider than a dependency allows', () => {
    expect(semver.subset('>=20.18', '^20.19.0 || >=22.12.0')).toBe(false);
  });
});
