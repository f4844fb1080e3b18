import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installSdk, packSdk, SDK_PACKAGE, sdkImports, tsBlocks, TSC } from './kit/sdk-tarball-kit.js';

const run = promisify(execFile);

/** How a package user's project compiles: strict, modules resolved as Node does for the SDK's exports. */
const PACKAGE_USER_OPTIONS = {
  target: 'ES2022',
  module: 'nodenext',
  moduleResolution: 'nodenext',
  strict: true,
};

/** tsc's own report when a check fails, not just "Command failed". */
function failure(what: string) {
  return (error: { stdout?: string; stderr?: string; message: string }): never => {
    throw new Error(`${what}:\n${error.stdout || error.stderr || error.message}`);
  };
}

/**
 * The README that ships in the SDK's tarball (what a registry shows) holds to the package it ships in: the
 * SDK packed, installed into an empty project outside the repository, every `ts` block of the installed
 * README type-checked with `tsc --strict` against it (the names the SDK's docs take for granted declared,
 * as test/sdk-tarball.e2e-spec.ts does for docs/sdk.md), and each block's imports of the SDK loaded in Node.
 */
describe('merchant SDK: its package README, against the packed tarball', () => {
  let project: string;
  let readme: string;

  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), 'bff-sdk-readme-'));
    const tarball = await packSdk(project);
    expect(tarball.files.map((file) => file.path)).toContain('README.md');
    await installSdk(project, tarball);
    readme = readFileSync(join(project, 'node_modules', SDK_PACKAGE, 'README.md'), 'utf8');
  }, 240_000);
  afterAll(() => {
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it('ships libs/merchant-sdk/README.md, whose every ts block type-checks with --strict against the package', async () => {
    expect(readme).toBe(readFileSync(join(process.cwd(), 'libs/merchant-sdk/README.md'), 'utf8'));
    const blocks = tsBlocks(readme);
    expect(blocks.length).toBeGreaterThanOrEqual(1);
    blocks.forEach((block, i) => writeFileSync(join(project, `readme-${i + 1}.ts`), block));
    // The README's examples run in Node or in a browser: both sets of types, and the package's
    // declarations checked too (no skipLibCheck).
    writeFileSync(
      join(project, 'tsconfig.readme.json'),
      JSON.stringify({
        compilerOptions: {
          ...PACKAGE_USER_OPTIONS,
          lib: ['ES2022', 'DOM', 'DOM.Iterable'],
          types: ['node'],
          noEmit: true,
        },
        files: blocks.map((_, i) => `readme-${i + 1}.ts`),
      }),
    );
    await run(TSC, ['-p', 'tsconfig.readme.json', '--strict'], { cwd: project }).catch(
      failure(`libs/merchant-sdk/README.md's examples do not type-check against the packed SDK`),
    );
  });

  it('imports only what the installed entries export at run time', async () => {
    // Each block's imports of the SDK, alone, compiled as written (verbatimModuleSyntax keeps every value
    // import) and loaded by Node: a name an entry's JavaScript lacks is a SyntaxError there. `./connect`
    // defines a custom element, so it loads only in a browser (test/sdk-connect.e2e-spec.ts).
    const imports = tsBlocks(readme).map((block) =>
      sdkImports(block).filter((statement) => !statement.includes(`'${SDK_PACKAGE}/connect'`)),
    );
    expect(imports.flat().length).toBeGreaterThanOrEqual(1);
    imports.forEach((statements, i) =>
      writeFileSync(join(project, `readme-imports-${i + 1}.ts`), `${statements.join('\n')}\nexport {};\n`),
    );
    writeFileSync(
      join(project, 'readme-imports.ts'),
      imports.map((_, i) => `import './readme-imports-${i + 1}.js';`).join('\n'),
    );
    writeFileSync(
      join(project, 'tsconfig.readme-imports.json'),
      JSON.stringify({
        compilerOptions: {
          ...PACKAGE_USER_OPTIONS,
          verbatimModuleSyntax: true,
          noUnusedLocals: false,
          lib: ['ES2022'],
          types: ['node'],
          noCheck: true,
          outDir: 'readme-imports',
        },
        files: ['readme-imports.ts', ...imports.map((_, i) => `readme-imports-${i + 1}.ts`)],
      }),
    );
    await run(TSC, ['-p', 'tsconfig.readme-imports.json'], { cwd: project });
    await run(process.execPath, ['readme-imports/readme-imports.js'], { cwd: project }).catch(
      failure(`libs/merchant-sdk/README.md imports what the packed SDK does not export`),
    );
  });
});
