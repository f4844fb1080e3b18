// @ts-check
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
import tseslint from 'typescript-eslint';
import eventName, { CATALOGUE } from './scripts/eslint/event-name.rule.mjs';
import fileRole from './scripts/eslint/file-role.rule.mjs';
import {
  BROWSER_SAFE,
  DOMAIN_IMPORTS,
  HTTP_IN_DOMAIN,
  LIBRARY_IMPORTS,
  libraryBlocks,
  SPECS,
} from './scripts/eslint/import-rules.mjs';
import { sizeBlocks } from './scripts/eslint/size-rules.mjs';

const APPS = ['api', 'worker', 'sandbox', 'demo-merchant'];
/** The fake bank and the fake merchant stand for the outside world: they share none of our domain. */
const OUTSIDE_WORLD = ['sandbox', 'demo-merchant'];
/**
 * The api's folders by URL resource: each imports only `common/` (and libs), never another resource, so
 * a resource can be read, moved or deleted alone. Read from the tree, so a new folder is covered at once.
 */
export const API_RESOURCES = readdirSync(new URL('apps/api/src/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'common')
  .map((entry) => entry.name);
const ANOTHER_APP = 'Apps never import each other; share code through libs/.';
export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'libs/database/src/generated/**',
      'libs/merchant-sdk/dist/**',
      // scripts/served-output.mjs's scratch and swapped-out copies, should a build stop between its steps.
      'libs/merchant-sdk/dist.*/**',
      'libs/merchant-sdk/src/generated/**',
      'libs/upstream-openapi/src/generated/**',
      'apps/api/console/generated/**',
      '.dev/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-extraneous-class': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through libs/config only.' },
      ],
    },
  },
  {
    files: [
      'libs/config/src/**/*.ts',
      'scripts/**',
      '**/*.spec.ts',
      '**/*.e2e-spec.ts',
      'test/**',
      'vitest.config.ts',
      'prisma.config.ts',
      'libs/testing/**',
      'docs/examples/**',
    ],
    rules: { 'no-restricted-properties': 'off' },
  },
  // The domain is shared by the api and the worker: it must not know about HTTP.
  ...Object.entries(DOMAIN_IMPORTS).flatMap(([context, contexts]) =>
    libraryBlocks(`libs/domain/${context}`, {
      scope: 'domain/',
      allowed: contexts,
      message: `libs/domain/${context} imports only the contexts of its row of DOMAIN_IMPORTS (${contexts.join(', ') || 'none'}); a new edge must keep the graph acyclic.`,
      extra: HTTP_IN_DOMAIN,
    }),
  ),
  ...Object.entries(LIBRARY_IMPORTS).flatMap(([library, libraries]) =>
    libraryBlocks(`libs/${library}`, {
      scope: '',
      allowed: libraries,
      message: `libs/${library} imports only the libraries of its row of LIBRARY_IMPORTS (${libraries.join(', ') || 'none'}), never the domain.`,
      extra: library === 'merchant-sdk' ? BROWSER_SAFE : undefined,
    }),
  ),
  // Apps depend on libs, never on each other.
  ...APPS.map((app) => ({
    files: [`apps/${app}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: APPS.filter((other) => other !== app).flatMap((other) => [
                `**/apps/${other}/**`,
                `../${other}/**`,
                `../../${other}/**`,
              ]),
              message: ANOTHER_APP,
            },
            ...(OUTSIDE_WORLD.includes(app)
              ? [
                  {
                    regex:
                      '^#libs/(domain/|(database|queue|redis|upstream-client)$)|/libs/(domain|database|queue|redis|upstream-client)/',
                    message: `apps/${app} fakes the outside world: it shares none of our domain, database, queues or upstream client.`,
                  },
                ]
              : []),
          ],
        },
      ],
    },
  })),
  // Within the api, a resource folder imports only common/ (the apps rule repeated: one block per file).
  ...API_RESOURCES.map((resource) => ({
    files: [`apps/api/src/${resource}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: APPS.filter((other) => other !== 'api').flatMap((other) => [
                `**/apps/${other}/**`,
                `../${other}/**`,
                `../../${other}/**`,
              ]),
              message: ANOTHER_APP,
            },
            {
              group: API_RESOURCES.filter((other) => other !== resource).flatMap((other) => [
                `../${other}/**`,
                `../../${other}/**`,
                `../../../${other}/**`,
              ]),
              message: `apps/api/src/${resource} imports only common/ of the api, never another resource folder; move what both need to common/.`,
            },
          ],
        },
      ],
    },
  })),
  {
    files: ['**/*.ts', '**/*.js', '**/*.mjs'],
    plugins: { 'simple-import-sort': simpleImportSort },
    rules: {
      // One statement per module: `import { a, type B }`, not one import per kind.
      'no-duplicate-imports': 'error',
      // Side effects, Node built-ins, packages, #libs/, then relative paths, each alphabetised; no blank
      // lines, as the tree is written. (A plain-JS plugin: resolver plugins pull native binaries per
      // platform, which `npm ci` cannot lock from a registry mirror that carries only this one's.)
      'simple-import-sort/imports': [
        'error',
        { groups: [['^\\u0000', '^node:', '^@?\\w', '^#libs/', '^\\.']] },
      ],
    },
  },
  {
    // A route's success answer is declared with ApiAnswer, which documents the output class and makes
    // the compiler hold the handler's return to it; a bare ApiEnvelope documents without that check.
    files: ['apps/api/src/**/*.controller.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.name='ApiEnvelope']",
          message: 'Declare the answer with ApiAnswer(status, Model, options): it also types the handler.',
        },
      ],
    },
  },
  {
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: SPECS,
    plugins: { local: { rules: { 'file-role': fileRole } } },
    rules: { 'local/file-role': 'error' },
  },
  {
    // An event's name is written once, in the catalogue; tests may name what they check, and the demo
    // merchant and the docs' examples stand for a merchant's own code, which knows the names as any
    // receiver does.
    files: ['**/*.ts', '**/*.js', '**/*.mjs'],
    ignores: [CATALOGUE, ...SPECS, 'test/**', 'libs/testing/**', 'apps/demo-merchant/**', 'docs/examples/**'],
    plugins: { events: { rules: { 'event-name': eventName } } },
    rules: { 'events/event-name': 'error' },
  },
  {
    // One kit: a test reaches libs/testing's helpers through test/kit/index.ts, as it reaches the rest.
    files: ['test/**/*.ts'],
    ignores: ['test/kit/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: '#libs/testing', message: 'Tests import the test kit from test/kit/index.ts.' }] },
      ],
    },
  },
  {
    // One way to wait: `eventually` (libs/testing), with a deadline named in WAIT and a message naming
    // what was awaited.
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='expect'][property.name='poll']",
          message: 'Wait with eventually(what, check, WAIT.<name>) from the test kit.',
        },
        {
          selector: "CallExpression[callee.object.name='vi'][callee.property.name=/^wait(For|Until)$/]",
          message: 'Wait with eventually(what, check, WAIT.<name>) from the test kit.',
        },
      ],
    },
  },
  {
    // Tests read untyped JSON bodies from real HTTP answers; asserting on them is the point.
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        AbortSignal: 'readonly',
        WebAssembly: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
  },
  {
    // The demo merchant's frontend and the api's console: plain ES modules for the browser, served as
    // they are.
    files: ['apps/demo-merchant/public/**/*.js', 'apps/api/console/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: {
        window: 'readonly',
        document: 'readonly',
        location: 'readonly',
        history: 'readonly',
        sessionStorage: 'readonly',
        fetch: 'readonly',
        URL: 'readonly',
        URLSearchParams: 'readonly',
        TextDecoder: 'readonly',
        AbortController: 'readonly',
        Intl: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        crypto: 'readonly',
        Option: 'readonly',
        HTMLElement: 'readonly',
      },
    },
  },
  ...sizeBlocks(),
  prettier,
);
