import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The merchant SDK as a merchant gets it, for the tests that hold its docs to the packed package: built
 * and packed as `npm run sdk:build` and `npm pack ./libs/merchant-sdk` make it, installed into an empty
 * project outside the repository, and the `ts` blocks of a page cut into modules `tsc --strict` can check.
 */

const run = promisify(execFile);
const ROOT = process.cwd();
export const TSC = join(ROOT, 'node_modules', '.bin', 'tsc');
export const SDK_PACKAGE = '@open-banking-bff/merchant-sdk';

/** What `npm pack --json` says of the tarball. */
export interface PackedSdk {
  filename: string;
  files: { path: string }[];
}

/**
 * Builds the SDK afresh into `<project>/package` (other tests serve libs/merchant-sdk/dist meanwhile), with
 * the package's own package.json and README.md, and packs it into `project`.
 */
export async function packSdk(project: string): Promise<PackedSdk> {
  const staged = join(project, 'package');
  mkdirSync(staged);
  await run(TSC, ['-p', 'libs/merchant-sdk/tsconfig.json', '--outDir', join(staged, 'dist')], { cwd: ROOT });
  for (const file of ['package.json', 'README.md'])
    copyFileSync(join(ROOT, 'libs/merchant-sdk', file), join(staged, file));
  const { stdout } = await run('npm', ['pack', staged, '--pack-destination', project, '--json'], {
    cwd: ROOT,
  });
  const [tarball] = JSON.parse(stdout) as PackedSdk[];
  return tarball;
}

/** An ESM project of a merchant's in `project`, with the tarball and the repository's `@types/node` installed. */
export async function installSdk(project: string, tarball: PackedSdk): Promise<void> {
  const typesNode = (
    JSON.parse(readFileSync(join(ROOT, 'node_modules/@types/node/package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'a-merchant', private: true, type: 'module' }),
  );
  await run(
    'npm',
    [
      'install',
      join(project, tarball.filename),
      `@types/node@${typesNode}`,
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
    ],
    { cwd: project, timeout: 180_000 },
  );
}

/** Names the SDK's docs use in `ts` blocks without declaring them, declared for the type check. */
const CLIENT = "import('@open-banking-bff/merchant-sdk').BffClient";
export const SDK_DOC_NAMES: Readonly<Record<string, string>> = {
  bff: CLIENT,
  browser: CLIENT,
  userId: 'string',
  accountId: 'string',
  consentId: 'string',
  endpointId: 'string',
  sessionToken: 'string',
};

/** Each `ts` block of a Markdown page as a module of its own, with the names it takes for granted declared. */
export function tsBlocks(page: string, names: Readonly<Record<string, string>> = SDK_DOC_NAMES): string[] {
  return [...page.matchAll(/```ts\n([\s\S]*?)```/g)].map(([, block]) => {
    const declared = new Set(
      [...block.matchAll(/\b(?:const|let)\s+(?:\{([^}]*)\}|(\w+))/g)].flatMap((m) =>
        (m[1] ?? m[2]).split(',').map((name) => name.trim()),
      ),
    );
    const preamble = Object.entries(names)
      .filter(([name]) => !declared.has(name) && new RegExp(`\\b${name}\\b`).test(block))
      .map(([name, type]) => `declare const ${name}: ${type};`);
    return `${preamble.join('\n')}\n${block}\nexport {};\n`;
  });
}

/** The `import … from '@open-banking-bff/merchant-sdk…'` statements of a block, as written. */
export function sdkImports(block: string): string[] {
  return [...block.matchAll(/^import\s[\s\S]*?\sfrom\s+'([^']+)';/gm)]
    .filter(([, specifier]) => specifier === SDK_PACKAGE || specifier.startsWith(`${SDK_PACKAGE}/`))
    .map(([statement]) => statement);
}
