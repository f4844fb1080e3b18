import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/** The import-boundary rules of eslint.config.js, proven to fire on real files of the tree. */
describe('lint: import boundaries', () => {
  const eslint = new ESLint({ cwd: process.cwd() });

  const restrictedImports = async (filePath: string, source: string) => {
    const [result] = await eslint.lintText(`${source}\nexport const probe = 1;\n`, { filePath });
    return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
  };

  it.each([
    ["import { createHttpApp } from '#libs/http';", 'must not import HTTP code'],
    ["import type { FastifyRequest } from 'fastify';", 'must not import HTTP code'],
    ["import { PassportStrategy } from '@nestjs/passport';", 'must not import HTTP code'],
    ["import { ApiProperty } from '@nestjs/swagger';", 'must not import HTTP code'],
    ["import { AppModule } from '../../../../apps/api/src/app.module.js';", 'never import apps'],
  ])('refuses %s in libs/domain', async (source, message) => {
    const found = await restrictedImports('libs/domain/users/src/users.service.ts', source);
    expect(found.join('\n')).toContain(message);
  });

  it.each([
    ['apps/api/src/app.module.ts', "import { WorkerModule } from '../../worker/src/worker.module.js';"],
    ['apps/worker/src/worker.module.ts', "import { AppModule } from '../../api/src/app.module.js';"],
    ['apps/api/src/app.module.ts', "import { SandboxModule } from '../../sandbox/src/sandbox.module.js';"],
  ])('refuses an import of another app in %s', async (filePath, source) => {
    const found = await restrictedImports(filePath, source);
    expect(found.join('\n')).toContain('Apps never import each other');
  });

  it('allows what the layers are for', async () => {
    expect(
      await restrictedImports('apps/api/src/app.module.ts', "import { CoreModule } from '#libs/core';"),
    ).toEqual([]);
    expect(
      await restrictedImports(
        'libs/domain/users/src/users.service.ts',
        "import { isUuid } from '#libs/ids';",
      ),
    ).toEqual([]);
  });
});
