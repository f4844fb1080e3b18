#!/usr/bin/env node
// `npm run sdk:build` (and every `npm start` and `npm test` build): the merchant SDK compiled into
// libs/merchant-sdk/dist, then bundled for plain pages (scripts/sdk-bundle.mjs). Built afresh, so what
// `npm pack` takes is never a stale file of a removed source; built aside and put in place only when it
// differs, since a running demo serves it (scripts/served-output.mjs).
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleSdk } from './sdk-bundle.mjs';
import { replaceDirectoryIfChanged } from './served-output.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export async function buildSdk() {
  const sdkDist = join(ROOT, 'libs', 'merchant-sdk', 'dist');
  const scratch = `${sdkDist}.build-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  execFileSync(
    join(ROOT, 'node_modules', '.bin', 'tsc'),
    ['-p', join(ROOT, 'libs', 'merchant-sdk', 'tsconfig.json'), '--outDir', scratch],
    { stdio: 'inherit' },
  );
  replaceDirectoryIfChanged(scratch, sdkDist);
  return bundleSdk();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildSdk();
