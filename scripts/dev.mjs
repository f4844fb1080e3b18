#!/usr/bin/env node
// The quick start: `npm start` and `npm test` both begin here. Node built-ins only, because it runs
// before anything is installed. Steps: install → Prisma client → build → Postgres and Redis up →
// database and migrations → then either the three apps (start) or lint + typecheck + tests (test).
// Kept whole: the steps in the order they run; each step's work is in the dev-*.mjs modules.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDebianPackage } from './debian-packages.mjs';
import { runningBanner } from './dev-banner.mjs';
import { applyDevDefaults, devDefaultNotes, overriddenLine, setDefault } from './dev-env.mjs';
import { httpAnswer, probeHost } from './dev-probes.mjs';
import { ensurePostgres, ensureRedis } from './dev-services.mjs';
import {
  bin,
  fail,
  FatalError,
  mustRun,
  onSignal,
  paint,
  ROOT,
  run,
  shutdown,
  startApp,
  step,
  waitPatiently,
} from './dev-steps.mjs';
import { testModes } from './dev-test-modes.mjs';
import { ensureRuntime, installDependencies, resolveRuntime } from './node-runtime.mjs';

const mode = process.argv[2] ?? 'start';
const sha = (...parts) => createHash('sha256').update(parts.join('\0')).digest('hex');

// ---------------------------------------------------------------- runtime

// Everything below runs on the project's Node (scripts/node-runtime.mjs): on a fresh clone this process
// installs it and runs again on it.
let runtime;
try {
  runtime = resolveRuntime(ROOT);
  await ensureRuntime(ROOT, runtime, step);
} catch (error) {
  console.error(paint('1;31', `✖ ${error.message}`));
  process.exit(1);
}
console.log(paint('90', `Node ${process.version} (${runtime.label})`));

// ---------------------------------------------------------------- environment

// What the shell set, before .env adds to it (a value from the shell wins over the file's).
const fromShell = new Set(Object.keys(process.env).filter((name) => process.env[name] !== ''));
if (existsSync(join(ROOT, '.env'))) process.loadEnvFile(join(ROOT, '.env'));
// Then the mode's own defaults: an empty value, in .env or the shell, means the default here too.
const overridden = applyDevDefaults(process.env, mode, ROOT);

// ---------------------------------------------------------------- install

function ensureInstalled() {
  try {
    installDependencies(ROOT, runtime, process.execPath, step);
  } catch (error) {
    if (error.signal === 'SIGINT' || error.signal === 'SIGTERM') throw new FatalError('interrupted', 130);
    fail(error.message);
  }
}

// ---------------------------------------------------------------- prisma client

function ensurePrismaClient() {
  const schema = readFileSync(join(ROOT, 'prisma', 'schema.prisma'), 'utf8');
  const version = JSON.parse(
    readFileSync(join(ROOT, 'node_modules', 'prisma', 'package.json'), 'utf8'),
  ).version;
  const outDir = join(ROOT, 'libs', 'database', 'src', 'generated');
  const stampFile = join(outDir, '.schema-stamp');
  const wanted = sha(schema, version);
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === wanted) return;
  step('Generating the Prisma client');
  // The CLI insists on locating its native schema engine even for `generate`, which never runs it, and
  // cannot download one here. Any existing file satisfies the check (see docs/architecture.md, "Database and migrations").
  const env = { ...process.env };
  setDefault(env, 'PRISMA_SCHEMA_ENGINE_BINARY', process.execPath);
  env.PRISMA_HIDE_UPDATE_MESSAGE = '1';
  mustRun(bin('prisma'), ['generate'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  writeFileSync(stampFile, wanted);
}

// ---------------------------------------------------------------- build

function build() {
  step('Building (tsc)');
  mustRun(bin('tsc'), ['-p', 'tsconfig.build.json']);
  // The merchant SDK, a package of its own, and its bundle for plain pages (scripts/sdk-build.mjs).
  mustRun(process.execPath, [join(ROOT, 'scripts', 'sdk-build.mjs')]);
}

function resolvedConfig() {
  const out = execFileSync(process.execPath, [join(ROOT, 'dist/libs/config/src/config.cli.js')], {
    cwd: ROOT,
    env: process.env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out);
}

// ---------------------------------------------------------------- modes

async function prepare() {
  ensureInstalled();
  ensurePrismaClient();
  build();
  const config = resolvedConfig();
  await ensurePostgres(config.databaseUrl);
  // A Redis Cluster or Sentinel (REDIS_CLUSTER_NODES, REDIS_SENTINELS) is the operator's to run; only a local
  // single Redis is started here.
  if (!config.redisCluster) await ensureRedis(config.redisUrl);
  step(`Migrating ${new URL(config.databaseUrl).pathname.slice(1)}`);
  mustRun(process.execPath, [join(ROOT, 'dist/libs/database/src/migrate.cli.js')]);
  return config;
}

/** True once a worker has consumed a `maintenance.ping` job: real proof that BullMQ work flows. */
function workerAnswers() {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist/libs/queue/src/ping.cli.js')], {
      cwd: ROOT,
      env: process.env,
      stdio: 'ignore',
    });
    // A Redis that does not answer would hold the ping for ever: 10 s is a no.
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
    child.on('error', () => resolve(false));
  });
}

async function start() {
  const config = await prepare();
  // The demo merchant app runs with the demo merchant: the api links to it, and the seed lets its origin
  // call the API from a browser.
  const demoUrl = config.demoMerchantApiKey
    ? (config.demoUrl ?? `http://localhost:${config.demoPort}`)
    : null;
  if (demoUrl) {
    process.env.DEMO_PUBLIC_URL = demoUrl;
    mustRun(process.execPath, [join(ROOT, 'dist/apps/api/src/cli/seed-demo.cli.js')]);
  }

  step(
    demoUrl ? 'Starting sandbox, api, worker and the demo merchant app' : 'Starting sandbox, api and worker',
  );
  // The sandbox first: a worker that starts before its upstream listens would spend its first calls (the
  // institutions refresh it runs at once) on a closed port.
  startApp('sandbox');
  const sandboxUrl = `http://${probeHost(config.sandboxHost)}:${config.sandboxPort}`;
  const apiUrl = `http://${probeHost(config.apiHost)}:${config.apiPort}`;
  await waitPatiently(() => httpAnswer(`${sandboxUrl}/health`), 'the sandbox');
  startApp('api');
  startApp('worker');
  if (demoUrl) startApp('demo-merchant');
  await waitPatiently(() => httpAnswer(`${apiUrl}/health/ready`), 'the api to be ready');
  await waitPatiently(
    async () => ({ ok: await workerAnswers(), why: 'no answer to a maintenance.ping job yet' }),
    'the worker',
  );
  if (demoUrl)
    await waitPatiently(
      () => httpAnswer(`http://${probeHost(config.apiHost)}:${config.demoPort}/`),
      'the demo app',
    );

  // A copied .env that turns off what npm start turns on (an auto-registered receiver…) is said, once.
  const overrides = overriddenLine(overridden, fromShell);
  console.log(runningBanner(config, { demoUrl, runtime: runtime.label, overrides }).join('\n'));
}

const onPath = (command) =>
  execFileSync('sh', ['-c', `command -v ${command} || true`], { encoding: 'utf8' }).trim() !== '';

/**
 * The chaos soak (`npm run soak -- --minutes 30`): install, Prisma client and build as for start, then
 * test/soak/run.mjs, which starts its own Postgres, Redis and apps (the shared ones are not needed).
 */
async function soak() {
  // The failover soak runs Postgres as Patroni on etcd behind HAProxy, and Redis under Sentinel.
  if (process.argv.includes('--failover')) {
    for (const [pkg, command] of [
      ['etcd-server', 'etcd'],
      ['patroni', 'patroni'],
      ['haproxy', 'haproxy'],
      ['redis-sentinel', 'redis-sentinel'],
    ])
      ensureDebianPackage(pkg, () => onPath(command), 'The failover soak');
  }
  ensureInstalled();
  ensurePrismaClient();
  build();
  step('Chaos soak');
  const status = run(process.execPath, [join(ROOT, 'test/soak/run.mjs'), ...process.argv.slice(3)]);
  await shutdown(status);
}

/**
 * The benches (`npm run bench -- --only api-reads`, `npm run bench:scale -- …`): the set-up of npm start
 * (services up, a build), then test/bench/run.mjs or scale.mjs, which start their own apps on the bench
 * ports and databases of their own.
 */
function bench(script) {
  return async () => {
    await prepare();
    step(`Bench (${script})`);
    const status = run(process.execPath, [join(ROOT, 'test/bench', script), ...process.argv.slice(3)]);
    await shutdown(status);
  };
}

/**
 * `npm run config:example`: writes .env.example, and the settings table of docs/configuration.md, from the
 * configuration schema (libs/config/src/env.dto.ts) and what this script sets for the local stack;
 * test/env-example.spec.ts fails when either differs.
 */
function envExample() {
  ensureInstalled();
  ensurePrismaClient();
  build();
  const text = execFileSync(
    process.execPath,
    [join(ROOT, 'dist/libs/config/src/config.cli.js'), 'env-example', JSON.stringify(devDefaultNotes())],
    { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  writeFileSync(join(ROOT, '.env.example'), text);
  execFileSync(
    process.execPath,
    [
      join(ROOT, 'dist/libs/config/src/config.cli.js'),
      'settings-table',
      join(ROOT, 'docs/configuration.md'),
      JSON.stringify(devDefaultNotes()),
    ],
    { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  step('Wrote .env.example and the settings table of docs/configuration.md');
}

async function generate() {
  ensureInstalled();
  ensurePrismaClient();
}

const modes = {
  start,
  ...testModes(prepare),
  soak,
  bench: bench('run.mjs'),
  'bench-scale': bench('scale.mjs'),
  'bench-capacity': bench('capacity.mjs'),
  generate,
  'env-example': envExample,
};
process.on('SIGINT', () => onSignal('SIGINT'));
process.on('SIGTERM', () => onSignal('SIGTERM'));
Promise.resolve()
  .then(() => {
    if (!modes[mode]) fail(`unknown mode "${mode}" (${Object.keys(modes).join(', ')})`);
    return modes[mode]();
  })
  .catch((error) => {
    if (error instanceof FatalError) {
      if (error.exitCode !== 130) console.error(paint('1;31', `✖ ${error.message}`));
      return shutdown(error.exitCode);
    }
    console.error(error);
    return shutdown(1);
  });
