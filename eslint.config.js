// @ts-check
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'libs/database/src/generated/**', '.dev/**'] },
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
    ],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // The domain is shared by the api and the worker: it must not know about HTTP.
    files: ['libs/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: '#libs/http', message: 'libs/domain must not import HTTP code.' },
            { name: 'fastify', message: 'libs/domain must not import HTTP code.' },
            { name: '@nestjs/platform-fastify', message: 'libs/domain must not import HTTP code.' },
            { name: '@nestjs/passport', message: 'libs/domain must not import HTTP code.' },
            { name: '@nestjs/swagger', message: 'libs/domain must not import HTTP code.' },
            { name: 'passport', message: 'libs/domain must not import HTTP code.' },
            { name: 'passport-custom', message: 'libs/domain must not import HTTP code.' },
          ],
          patterns: [
            { group: ['@fastify/*'], message: 'libs/domain must not import HTTP code.' },
            { group: ['**/apps/**'], message: 'Libraries never import apps.' },
          ],
        },
      ],
    },
  },
  {
    files: ['libs/**/*.ts'],
    ignores: ['libs/domain/**', 'libs/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/apps/**'], message: 'Libraries never import apps.' }] },
      ],
    },
  },
  // Apps depend on libs, never on each other.
  ...['api', 'worker', 'sandbox', 'demo-merchant'].map((app) => ({
    files: [`apps/${app}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['api', 'worker', 'sandbox', 'demo-merchant']
                .filter((other) => other !== app)
                .flatMap((other) => [`**/apps/${other}/**`, `../${other}/**`, `../../${other}/**`]),
              message: 'Apps never import each other; share code through libs/.',
            },
          ],
        },
      ],
    },
  })),
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
    // The demo merchant's frontend: plain ES modules for the browser, served as they are.
    files: ['apps/demo-merchant/public/**/*.js'],
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
      },
    },
  },
  prettier,
);
