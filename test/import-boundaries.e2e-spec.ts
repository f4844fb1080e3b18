import { readdirSync, readFileSync } from 'node:fs';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: the lint config is a plain ES module; its tables are rows of names.
import { DOMAIN_IMPORTS, LIBRARY_IMPORTS } from '../scripts/eslint/import-rules.mjs';
import { findCycle, libraryGraph } from '../scripts/eslint/library-graph.mjs';
import {
  LONG_FILES,
  LONG_FUNCTIONS,
  MAX_FILE_LINES,
  MAX_FUNCTION_LINES,
} from '../scripts/eslint/size-rules.mjs';

/** The import-boundary rules of eslint.config.js, proven to fire on real files of the tree. */
describe('lint: import boundaries', () => {
  const eslint = new ESLint({ cwd: process.cwd() });
  const fixer = new ESLint({ cwd: process.cwd(), fix: true });

  const messagesOf = async (ruleId: string, filePath: string, source: string) => {
    const [result] = await eslint.lintText(`${source}\nexport const probe = 1;\n`, { filePath });
    return result.messages.filter((m) => m.ruleId === ruleId).map((m) => m.message);
  };
  const restrictedImports = (filePath: string, source: string) =>
    messagesOf('no-restricted-imports', filePath, source);

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

  it.each([
    [
      'apps/api/src/payments/payments.controller.ts',
      "import { ConsentInput } from '../consents/inputs/x.input.js';",
    ],
    [
      'apps/api/src/vrp/inputs/create-vrp-payment.input.ts',
      "import { MoneyOutput } from '../../payments/outputs/x.output.js';",
    ],
    [
      'apps/api/src/admin/admin-consents.controller.ts',
      "import { EventsApiModule } from '../events/events-api.module.js';",
    ],
  ])('refuses, in %s, an import of another resource folder of the api', async (filePath, source) => {
    const found = await restrictedImports(filePath, source);
    expect(found.join('\n')).toContain('never another resource folder');
  });

  it('lets a resource folder of the api import common/ and its own inputs and outputs', async () => {
    for (const source of [
      "import { listEnvelope } from '../common/paging.js';",
      "import { CreatePaymentInput } from './inputs/create-payment.input.js';",
    ]) {
      expect(await restrictedImports('apps/api/src/payments/payments.controller.ts', source)).toEqual([]);
    }
    expect(
      await restrictedImports(
        'apps/api/src/payments/inputs/create-single-payment.input.ts',
        "import { MoneyInput } from '../../common/inputs/money.input.js';",
      ),
    ).toEqual([]);
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

  describe('the library graph', () => {
    it.each([
      // events imports users: users importing events would close a cycle.
      ['users', "import { EventPublisher } from '#libs/domain/events';"],
      ['accounts', "import { ConsentRepository } from '#libs/domain/consents';"],
      ['upstream-failures', "import { UsersService } from '#libs/domain/users';"],
      ['sync-runs', "export { SyncModule } from '#libs/domain/sync';"],
    ])('refuses an import outside the row of libs/domain/%s', async (context, source) => {
      const found = await restrictedImports(`libs/domain/${context}/src/index.ts`, source);
      expect(found.join('\n')).toContain(`libs/domain/${context} imports only the contexts of its row`);
    });

    it.each([
      ['database', "import { UsersService } from '#libs/domain/users';"],
      ['errors', "import { APP_CONFIG } from '#libs/config';"],
      ['observability', "import { RedisModule } from '#libs/redis';"],
    ])('refuses an import outside the row of libs/%s', async (library, source) => {
      const found = await restrictedImports(`libs/${library}/src/index.ts`, source);
      expect(found.join('\n')).toContain(`libs/${library} imports only the libraries of its row`);
    });

    it('keeps the test kit to specs and libraries to their #libs/ names', async () => {
      const kit = "import { createTestApp } from '#libs/testing';";
      expect((await restrictedImports('libs/domain/events/src/index.ts', kit)).join()).toContain(
        'Only specs',
      );
      expect(await restrictedImports('libs/domain/events/src/delivery-target.spec.ts', kit)).toEqual([]);
      const reach = "import { migrate } from '../../database/src/migrator.js';";
      expect((await restrictedImports('libs/core/src/index.ts', reach)).join()).toContain('its #libs/ name');
    });

    it('allows the edges of the rows', async () => {
      const source = [
        "import { AccountPlacementRepository } from '#libs/domain/accounts';",
        "import { SyncRequestsService } from '#libs/domain/sync-runs';",
        "import { CLOCK } from '#libs/time';",
        "import { runInContext } from '#libs/context';",
      ].join('\n');
      expect(await restrictedImports('libs/domain/consents/src/index.ts', source)).toEqual([]);
      expect(
        await restrictedImports('libs/queue/src/index.ts', "import { RedisModule } from '#libs/redis';"),
      ).toEqual([]);
    });

    it('has a row for every library, and the rows are acyclic', () => {
      const under = (dir: string) =>
        readdirSync(dir, { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => entry.name)
          .sort();
      expect(Object.keys(DOMAIN_IMPORTS).sort()).toEqual(under('libs/domain'));
      expect(Object.keys(LIBRARY_IMPORTS).sort()).toEqual(
        under('libs').filter((name) => name !== 'domain' && name !== 'testing'),
      );

      // What the config allows: each row, and every domain context onto every library below it but HTTP.
      const allowed: Record<string, string[]> = { ...LIBRARY_IMPORTS };
      for (const [context, contexts] of Object.entries<string[]>(DOMAIN_IMPORTS)) {
        allowed[`domain/${context}`] = [
          ...contexts.map((other) => `domain/${other}`),
          ...Object.keys(LIBRARY_IMPORTS).filter((library) => library !== 'http'),
        ];
      }
      expect(findCycle(allowed)).toBeUndefined();
      // The detector itself finds a cycle when there is one.
      expect(findCycle({ ...allowed, 'domain/users': ['domain/events'] })).toEqual([
        'domain/events',
        'domain/users',
        'domain/events',
      ]);
    });

    it('writes down the graph of today: no row allows an edge the code does not take', () => {
      const today = libraryGraph({ withSpecs: false });
      for (const [context, contexts] of Object.entries<string[]>(DOMAIN_IMPORTS)) {
        const taken = today[`domain/${context}`].filter((to: string) => to.startsWith('domain/'));
        expect({ context, imports: taken }).toEqual({ context, imports: contexts.map((c) => `domain/${c}`) });
      }
      for (const [library, libraries] of Object.entries<string[]>(LIBRARY_IMPORTS)) {
        expect({ library, imports: today[library] }).toEqual({ library, imports: libraries });
      }
    });
  });

  describe('the fakes of the outside world', () => {
    it.each([
      ['apps/sandbox/src/main.ts', "import { ConsentStatus } from '#libs/domain/consents';"],
      ['apps/sandbox/src/main.ts', "import { PrismaService } from '#libs/database';"],
      ['apps/sandbox/src/main.ts', "import type { UpstreamClient } from '#libs/upstream-client';"],
      ['apps/sandbox/src/main.ts', "import { x } from '../../../libs/domain/users/src/users.service.js';"],
      ['apps/demo-merchant/src/main.ts', "import { UsersService } from '#libs/domain/users';"],
    ])('refuse in %s: %s', async (filePath, source) => {
      expect((await restrictedImports(filePath, source)).join()).toContain('fakes the outside world');
    });

    it('may use the plumbing', async () => {
      const source =
        "import { loadConfig } from '#libs/config';\nimport { createHttpApp } from '#libs/http';";
      expect(await restrictedImports('apps/sandbox/src/main.ts', source)).toEqual([]);
    });
  });

  describe('import statements', () => {
    const file = 'libs/domain/users/src/users.service.ts';

    it('refuses two imports of one module, types included: one statement, types inline', async () => {
      const source =
        "import type { AppConfig } from '#libs/config';\nimport { APP_CONFIG } from '#libs/config';";
      expect(await messagesOf('no-duplicate-imports', file, source)).toHaveLength(1);
      expect(
        await messagesOf(
          'no-duplicate-imports',
          file,
          "import { APP_CONFIG, type AppConfig } from '#libs/config';",
        ),
      ).toEqual([]);
    });

    it('orders built-ins, packages, #libs/ then relative paths', async () => {
      const ordered = [
        "import { randomUUID } from 'node:crypto';",
        "import { Injectable } from '@nestjs/common';",
        "import { APP_CONFIG } from '#libs/config';",
        "import { UserRepository } from './user.repository.js';",
      ];
      const shuffled = [ordered[3], ordered[2], ordered[1], ordered[0]].join('\n');
      expect(await messagesOf('simple-import-sort/imports', file, shuffled)).not.toEqual([]);
      const [fixed] = await fixer.lintText(
        `${shuffled}\nexport const probe = [randomUUID, Injectable, APP_CONFIG, UserRepository];\n`,
        {
          filePath: file,
        },
      );
      expect(fixed.output?.split('\n').slice(0, 4)).toEqual(ordered);
      expect(await messagesOf('simple-import-sort/imports', file, ordered.join('\n'))).toEqual([]);
    });
  });

  describe('file names after class roles', () => {
    const roleOf = (filePath: string, source: string) => messagesOf('local/file-role', filePath, source);

    it.each([
      [
        'libs/domain/users/src/index.ts',
        'export class UsersService {}',
        'its file should be named *.service.ts',
      ],
      ['libs/domain/users/src/users.service.ts', 'export class UserRepository {}', '*.repository.ts'],
      ['apps/api/src/app.module.ts', 'export class AppGuard {}', '*.guard.ts'],
      [
        'libs/domain/users/src/users.service.ts',
        "import { Controller } from '@nestjs/common';\n@Controller()\nexport class Users {}",
        'Users is a controller',
      ],
      [
        'libs/domain/users/src/users.service.ts',
        'class UsersModule {}\nexport { UsersModule };',
        '*.module.ts',
      ],
    ])('refuses in %s: %s', async (filePath, source, message) => {
      expect((await roleOf(filePath, source)).join()).toContain(message);
    });

    it('allows a class in the file of its role, abstract bases and unexported classes anywhere', async () => {
      expect(await roleOf('libs/domain/users/src/users.service.ts', 'export class UsersService {}')).toEqual(
        [],
      );
      expect(await roleOf('libs/domain/users/src/index.ts', 'export abstract class BaseService {}')).toEqual(
        [],
      );
      expect(await roleOf('libs/domain/users/src/index.ts', 'class HelperModule {}')).toEqual([]);
    });
  });

  describe('sizes of files and functions', () => {
    const sizeMessages = async (filePath: string, source: string, linter = eslint) => {
      const [result] = await linter.lintText(source, { filePath });
      return result.messages.filter((m) => m.ruleId === 'max-lines' || m.ruleId === 'max-lines-per-function');
    };
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `  x += ${i};`).join('\n');

    it('refuses a file or a function past the limit in our source, not in a test', async () => {
      const longFile = `export let x = 0;\n${Array.from({ length: MAX_FILE_LINES }, (_, i) => `x += ${i};`).join('\n')}\n`;
      const longFunction = `export function f() {\n  let x = 0;\n${lines(MAX_FUNCTION_LINES)}\n  return x;\n}\n`;
      const file = 'libs/domain/users/src/users.service.ts';
      expect((await sizeMessages(file, longFile)).map((m) => m.ruleId)).toContain('max-lines');
      expect((await sizeMessages(file, longFunction)).map((m) => m.ruleId)).toEqual([
        'max-lines-per-function',
      ]);
      expect(
        await sizeMessages('libs/domain/accounts/src/accounts.service.spec.ts', longFile + longFunction),
      ).toEqual([]);
    });

    // The list of exceptions only shrinks: an entry whose file no longer needs it fails here.
    const strict = new ESLint({
      cwd: process.cwd(),
      overrideConfig: [
        {
          files: ['**/*'],
          rules: {
            'max-lines': ['error', { max: MAX_FILE_LINES }],
            'max-lines-per-function': ['error', { max: MAX_FUNCTION_LINES }],
          },
        },
      ],
    });
    it.each([
      ...Object.keys(LONG_FILES).map((file) => [file, 'max-lines']),
      ...Object.keys(LONG_FUNCTIONS).map((file) => [file, 'max-lines-per-function']),
    ])('still needs its exception: %s (%s)', async (file, rule) => {
      const found = await sizeMessages(file, readFileSync(file, 'utf8'), strict);
      expect(found.map((m) => m.ruleId)).toContain(rule);
    });
  });
});
