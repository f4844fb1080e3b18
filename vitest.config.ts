import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { configDefaults, defineConfig } from 'vitest/config';

// `npm test` already points DATABASE_URL at a `*_test` database; when vitest is run directly, derive the
// same one here, so a test run can never touch development data.
const databaseUrl = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/bff');
if (!databaseUrl.pathname.endsWith('_test')) {
  databaseUrl.pathname = `${databaseUrl.pathname.replace(/^\//, '') || 'bff'}_test`;
  process.env.DATABASE_URL = process.env.TEST_DATABASE_URL ?? databaseUrl.toString();
  process.env.QUEUE_PREFIX = process.env.TEST_QUEUE_PREFIX ?? `${process.env.QUEUE_PREFIX || 'bff'}-test`;
}

/**
 * The tests of a machine's loss and of a rolling upgrade (issue 80) start clusters of their own and build
 * the previous release: `npm run test:failover` runs them, alone (.ci/run does, after npm test), so that
 * npm test keeps within its time and they meet no other file's load but their own.
 */
const FAILOVER_TESTS = [
  'test/redis-sentinel-failover.e2e-spec.ts',
  'test/redis-cluster-failover.e2e-spec.ts',
  'test/rolling-upgrade.e2e-spec.ts',
];
const failoverRun = process.env.BFF_TEST_SET === 'failover';

export default defineConfig({
  // SWC, not esbuild: Nest's dependency injection needs emitted decorator metadata.
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: {
    conditions: ['source'],
    // eventsource-parser (the merchant SDK's SSE parser) names a `source` condition too, for TypeScript
    // that vite does not compile inside node_modules: take its build, as Node and bundlers do.
    alias: {
      'eventsource-parser/stream': fileURLToPath(
        new URL('node_modules/eventsource-parser/dist/stream.js', import.meta.url),
      ),
      'eventsource-parser': fileURLToPath(
        new URL('node_modules/eventsource-parser/dist/index.js', import.meta.url),
      ),
    },
  },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    include: failoverRun
      ? FAILOVER_TESTS
      : [
          'apps/**/*.spec.ts',
          'libs/**/*.spec.ts',
          'apps/**/*.e2e-spec.ts',
          'test/**/*.e2e-spec.ts',
          'test/**/*.spec.ts',
        ],
    exclude: failoverRun ? configDefaults.exclude : [...configDefaults.exclude, ...FAILOVER_TESTS],
    globalSetup: ['libs/testing/src/global-setup.ts'],
    // The MCP SDK's client imports `eventsource-parser/stream`: through vite, so the alias above applies.
    server: { deps: { inline: ['@modelcontextprotocol/sdk'] } },
    pool: 'forks',
    // A worker process keeps the modules it imported from one test file to the next: each file importing
    // Nest, Prisma and BullMQ anew cost about 4 s a file, half the suite's time. Nothing is mocked and no
    // file changes shared module state (each app, registry and client is its own), so a file sees what it
    // would see alone.
    isolate: false,
    // Vitest runs cores - 1 files at once by default: one on this two-core machine. Our files spend most
    // of their time waiting on the processes, servers and databases they start, so half again as many files as
    // cores keeps the cores busy; they were written to share the test database and Redis (each its own
    // merchants and queue prefix), so running them side by side is also a test of that isolation.
    maxWorkers: Math.max(2, Math.ceil(availableParallelism() * 1.5)),
    // Limits against a hang, not a speed check: sized for a loaded machine (two busy loops beside the
    // suite on two cores doubles many a test's time), as are the waits (`WAIT` in libs/testing's
    // eventually.ts, which names them, a documented bound among them).
    testTimeout: 120_000,
    hookTimeout: 180_000,
    reporters: ['default'],
  },
});
