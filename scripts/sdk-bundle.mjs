#!/usr/bin/env node
// The merchant SDK as one ES module for plain pages (libs/merchant-sdk/src/browser.ts): the built SDK
// (`tsc -p libs/merchant-sdk/tsconfig.json` first) and its browser dependencies, bundled by rolldown
// into dist/sdk/merchant-sdk@<version>.js, which the api serves. Prints the file's subresource-integrity
// hash; docs/sdk.md shows it, and a test holds the two to each other.
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';
import { replaceDirectoryIfChanged } from './served-output.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SDK = join(ROOT, 'libs', 'merchant-sdk');

/** Where the api finds the bundle, and the name it serves it under. */
export function sdkBundleFile(root = ROOT) {
  const { version } = JSON.parse(readFileSync(join(root, 'libs', 'merchant-sdk', 'package.json'), 'utf8'));
  return {
    file: join(root, 'dist', 'sdk', `merchant-sdk@${version}.js`),
    name: `merchant-sdk@${version}.js`,
  };
}

export const integrityOf = (bytes) => `sha384-${createHash('sha384').update(bytes).digest('base64')}`;

export async function bundleSdk() {
  const { file, name } = sdkBundleFile();
  // Built aside, then put in place only when it differs (a running api serves the directory); the api
  // serves the one bundle it finds, so the directory holds only this version's.
  const scratch = `${dirname(file)}.build-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  await build({
    input: join(SDK, 'dist', 'browser.js'),
    platform: 'browser',
    logLevel: 'warn',
    output: { file: join(scratch, name), format: 'esm', minify: true, sourcemap: false },
  });
  replaceDirectoryIfChanged(scratch, dirname(file));
  return { file, integrity: integrityOf(readFileSync(file)) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { file, integrity } = await bundleSdk();
  console.log(`wrote ${relative(ROOT, file)} (${integrity})`);
}
