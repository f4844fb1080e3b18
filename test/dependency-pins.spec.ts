import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * Every dependency is pinned to one version (the guide's rule): a range lets a fresh clone's `npm install`
 * (or a lock file regenerated) pick up a release nobody here has run. The merchant SDK's package too.
 */
const EXACT = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

function ranged(file: string): string[] {
  const manifest = JSON.parse(readFileSync(new URL(file, import.meta.url), 'utf8')) as Record<
    string,
    Record<string, string> | undefined
  >;
  return ['dependencies', 'devDependencies', 'optionalDependencies'].flatMap((field) =>
    Object.entries(manifest[field] ?? {})
      .filter(([, version]) => !EXACT.test(version))
      .map(([name, version]) => `${field}.${name}: ${version}`),
  );
}

describe('dependency pins', () => {
  it('pins every dependency of the project and of the merchant SDK to one version', () => {
    expect(ranged('../package.json')).toEqual([]);
    expect(ranged('../libs/merchant-sdk/package.json')).toEqual([]);
  });
});
