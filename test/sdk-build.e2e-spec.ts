import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = process.cwd();
const SERVED = [join(ROOT, 'libs', 'merchant-sdk', 'dist'), join(ROOT, 'dist', 'sdk')];

/** Each file a running stack serves from the SDK's build, with what tells a rewrite: inode and mtime. */
function servedFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const dir of SERVED) {
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const file = join(entry.parentPath, entry.name);
      const { ino, mtimeMs } = statSync(file);
      files[file] = `${ino}:${mtimeMs}`;
    }
  }
  return files;
}

/**
 * `npm test` builds beside a running `npm start`, whose demo serves libs/merchant-sdk/dist and whose api
 * serves dist/sdk: a build of unchanged sources must leave every one of those files as it was (not
 * deleted and written again), so no page of the running demo ever meets a 404 or half a file.
 */
describe('the SDK build beside a running stack', () => {
  it('leaves what a running stack serves untouched when the sources did not change', () => {
    const before = servedFiles();
    expect(Object.keys(before).length).toBeGreaterThan(5);
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'sdk-build.mjs')], { cwd: ROOT, stdio: 'pipe' });
    expect(servedFiles()).toEqual(before);
  }, 120_000);
});
