// Build outputs that a running stack serves (the merchant SDK's dist/, the api's SDK bundle): `npm test`
// and `npm start` build them into a scratch directory and put it in place only when it differs, so a
// test run beside a running `npm start` never deletes or rewrites what the demo and the api are serving.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every file under `dir` by its path relative to `dir`, with a hash of its bytes. */
function contentsOf(dir) {
  if (!existsSync(dir)) return null;
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .map((file) => `${relative(dir, file)} ${createHash('sha256').update(readFileSync(file)).digest('hex')}`);
  return files.sort().join('\n');
}

/**
 * Puts the freshly built `built` directory at `target`: nothing happens when the two hold the same files
 * (the scratch copy goes); otherwise two renames swap them, so `target` is never missing for longer than
 * between the two.
 */
export function replaceDirectoryIfChanged(built, target) {
  if (contentsOf(built) === contentsOf(target)) {
    rmSync(built, { recursive: true, force: true });
    return false;
  }
  const old = `${target}.old-${process.pid}`;
  if (existsSync(target)) renameSync(target, old);
  renameSync(built, target);
  rmSync(old, { recursive: true, force: true });
  return true;
}
