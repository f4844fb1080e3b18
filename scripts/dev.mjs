#!/usr/bin/env node
// The quick start: `npm start` and `npm test` both begin here. Node built-ins only, because it runs
// before anything is installed. Steps: install → Prisma client → build → Postgres and Redis up →
// database and migrations → then either the three apps (start) or lint + typecheck + tests (test).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { APP_ENV, APP_NODE_FLAGS } from './app-runtime.mjs';
import { applyDevDefaults, devDefaultNotes, overriddenLine, setDefault } from './dev-env.mjs';
import { prettyLine } from './dev-log-lines.mjs';
import { httpAnswer, isLocal, reachable, stepTimes, waitUntil } from './dev-probes.mjs';
import { ensureRuntime, installDependencies, resolveRuntime } from './node-runtime.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const mode = process.argv[2] ?? 'start';
const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code, text) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
/** Each step's name and start, so `npm test` can end by saying where its time went. */
const steps = [];
const step = (text) => {
  steps.push({ text, at: Date.now() });
  console.log(paint('1;36', `▸ ${text}`));
};
/** Thrown instead of exiting, so whatever was started is stopped on the way out. */
class FatalError extends Error {
  constructor(message, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}
const fail = (text) => {
  throw new FatalError(text);
};

/** Everything this script started, stopped again on exit (children first, then services). */
const cleanups = [];
let stopping = false;

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env: process.env, ...options });
  if (result.error) fail(`${command} ${args.join(' ')}: ${result.error.message}`);
  // Ctrl-C reaches the whole process group: the step died of it, so stop, as the user asked.
  if (result.signal === 'SIGINT' || result.signal === 'SIGTERM') throw new FatalError('interrupted', 130);
  return result.status ?? 1;
}

function mustRun(command, args, options) {
  const status = run(command, args, options);
  if (status !== 0) fail(`${command} ${args.join(' ')} exited with ${status}`);
}

const sha = (...parts) => createHash('sha256').update(parts.join('\0')).digest('hex');
const bin = (name) => join(ROOT, 'node_modules', '.bin', name);

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

// ---------------------------------------------------------------- services

async function waitFor(check, what, deadlineMs) {
  if (!(await waitUntil(check, deadlineMs))) fail(`${what} did not come up within ${deadlineMs / 1000}s`);
}

async function ensurePostgres(databaseUrl) {
  const url = new URL(databaseUrl);
  const host = url.hostname;
  const port = Number(url.port || 5432);
  if (await reachable(host, port)) return;
  if (!isLocal(host)) fail(`Postgres at ${host}:${port} is not reachable (DATABASE_URL).`);
  const versions = existsSync('/etc/postgresql')
    ? readdirSync('/etc/postgresql')
        .filter((v) => /^\d+(\.\d+)?$/.test(v))
        .sort((a, b) => Number(a) - Number(b))
    : [];
  if (versions.length === 0) {
    fail(
      `Postgres is not running on ${host}:${port} and no local cluster was found. Start one, or run: docker compose up -d postgres redis`,
    );
  }
  const version = versions[versions.length - 1];
  step(`Starting Postgres ${version}`);
  mustRun('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start']);
  cleanups.push(() =>
    run('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'stop'], { stdio: 'ignore' }),
  );
  await waitFor(() => reachable(host, port), 'Postgres', 30_000);
}

async function ensureRedis(redisUrl) {
  const url = new URL(redisUrl);
  const host = url.hostname;
  const port = Number(url.port || 6379);
  if (await reachable(host, port)) return;
  if (!isLocal(host)) fail(`Redis at ${host}:${port} is not reachable (REDIS_URL).`);
  step('Starting Redis');
  const status = run('redis-server', [
    '--daemonize',
    'yes',
    '--bind',
    '127.0.0.1',
    '--port',
    String(port),
    '--save',
    '',
    '--appendonly',
    'no',
  ]);
  if (status !== 0)
    fail(
      `Redis is not running on ${host}:${port} and redis-server could not start it. Or run: docker compose up -d postgres redis`,
    );
  cleanups.push(() => run('redis-cli', ['-p', String(port), 'shutdown', 'nosave'], { stdio: 'ignore' }));
  await waitFor(() => reachable(host, port), 'Redis', 30_000);
}

// ---------------------------------------------------------------- processes

function startApp(app) {
  const child = spawn(
    process.execPath,
    ['--enable-source-maps', ...APP_NODE_FLAGS[app], join(ROOT, `dist/apps/${app}/src/main.js`)],
    {
      cwd: ROOT,
      env: { ...APP_ENV, ...process.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      console.log(prettyLine(app, line, paint));
    });
  }
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(paint('1;31', `✖ ${app} exited (${signal ?? code}); stopping everything`));
      void shutdown(1);
    }
  });
  children.push(
    () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  );
  return child;
}

/** How often a wait for an app says what it is still waiting for. */
const WAIT_NOTICE_MS = 15_000;

/**
 * Waits for an app as long as it takes (an app that exits stops everything anyway): a dependency that is
 * slow or down (Redis, Postgres, the upstream) is said every WAIT_NOTICE_MS, never a reason to give up.
 */
async function waitPatiently(check, what) {
  let noticeAt = Date.now() + WAIT_NOTICE_MS;
  for (;;) {
    const { ok, why } = await check();
    if (ok || stopping) return;
    if (Date.now() >= noticeAt) {
      console.log(paint('33', `… still waiting for ${what}${why ? `: ${why}` : ''}`));
      noticeAt = Date.now() + WAIT_NOTICE_MS;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The apps this script started: stopped together first, then the services, in reverse start order. */
const children = [];

async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  await Promise.all(children.map((stop) => stop()));
  for (const cleanup of cleanups.reverse()) await cleanup();
  process.exit(code);
}

function onSignal(signal) {
  if (stopping) {
    // A second Ctrl-C: the user is not waiting for a graceful stop.
    console.error(paint('1;31', `✖ ${signal} again: exiting now`));
    process.exit(130);
  }
  console.log(paint('1;36', `▸ ${signal}: stopping everything this command started`));
  void shutdown(130);
}

// ---------------------------------------------------------------- modes

async function prepare() {
  ensureInstalled();
  ensurePrismaClient();
  build();
  const config = resolvedConfig();
  await ensurePostgres(config.databaseUrl);
  // A Redis Cluster (REDIS_CLUSTER_NODES) is the operator's to run; only a local single Redis is started here.
  if (!config.redisCluster) await ensureRedis(config.redisUrl);
  step(`Migrating ${new URL(config.databaseUrl).pathname.slice(1)}`);
  mustRun(process.execPath, [join(ROOT, 'dist/libs/database/src/migrate.cli.js')]);
  return config;
}

/** Loopback when the app listens on every interface, else the configured host, for our own probes. */
const probeHost = (host) =>
  host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;

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
  const lines = [
    '',
    demoUrl
      ? paint('1;32', `  Open the demo: ${demoUrl}`)
      : '  (no demo app: DEMO_MERCHANT_API_KEY is empty)',
    '',
    paint('1;32', '  The open-banking BFF is running.'),
    '',
    `  node      ${process.version}   (${runtime.label})`,
    `  api       ${config.apiUrl}   (ready: ${config.apiUrl}/health/ready, metrics: ${config.apiUrl}/metrics)`,
    `  console   ${config.apiUrl}/console/   (sign in with an API key or the operator token)`,
    `  sandbox   ${config.sandboxUrl}   (the offline upstream)`,
    `  worker    consuming BullMQ queues with prefix "{${config.queuePrefix}}"; queues at ${config.apiUrl}/admin/queues (opened by the console's operator session, or user operator, password the operator token)`,
    config.workerMetricsPort > 0
      ? `            metrics: http://${probeHost(config.workerMetricsHost)}:${config.workerMetricsPort}/metrics`
      : '            (no metrics: WORKER_METRICS_PORT is 0)',
    '',
    config.demoMerchantApiKey
      ? `  demo merchant API key:  ${paint('1', config.demoMerchantApiKey)}`
      : '  (no demo merchant: DEMO_MERCHANT_API_KEY is empty)',
    config.operatorToken
      ? `  operator token:         ${paint('1', config.operatorToken)}   (ADMIN_TOKEN)`
      : '  operator token:         ADMIN_TOKEN from your environment',
    config.sandboxAdminToken
      ? `  sandbox control token:  ${config.sandboxAdminToken}   (SANDBOX_ADMIN_TOKEN, for ${config.sandboxUrl}/sandbox/admin)`
      : '',
    config.sandboxDataDir
      ? `  sandbox state:          ${config.sandboxDataDir}   (POST /sandbox/admin/reset clears it)`
      : '',
    '  docs:                   README.md, docs/ and the live OpenAPI at ' + `${config.apiUrl}/docs`,
    ...(overrides ? ['', paint('1;33', overrides)] : []),
    '',
    '  Ctrl-C stops everything this command started.',
    '',
  ];
  console.log(lines.join('\n'));
}

const REPORT = join(ROOT, '.dev', 'vitest-report.json');

/**
 * A tool the tests need from a Debian package, installed when missing (as root on Debian; otherwise a
 * clear message of what to install): Chromium for the browser tests (nothing downloads a browser), and
 * `promtool` (package prometheus) for the alert rule tests. The prometheus package brings the server too,
 * which only a machine run by systemd starts (`systemctl disable --now prometheus` if it is not wanted).
 */
function ensureDebianPackage(pkg, present, why) {
  if (present()) return;
  step(`Installing ${pkg} (Debian package) for ${why}`);
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) {
    fail(`${why} need Debian's ${pkg} package: apt-get install ${pkg}.`);
  }
  mustRun('apt-get', ['update', '-qq']);
  mustRun('apt-get', ['install', '-y', '-qq', '--no-install-recommends', pkg], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

const ensureChromium = () =>
  ensureDebianPackage('chromium', () => existsSync('/usr/bin/chromium'), 'The browser tests');
const ensurePromtool = () =>
  ensureDebianPackage(
    'prometheus',
    () => spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0,
    'The alert rule tests',
  );

async function test() {
  ensureChromium();
  ensurePromtool();
  await prepare();
  rmSync(REPORT, { force: true });
  const stages = [
    ['ESLint', bin('eslint'), ['.', '--max-warnings=0']],
    ['Prettier', bin('prettier'), ['--check', '.', '--log-level=warn']],
    ['Typecheck', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']],
    ['Typecheck (merchant SDK)', bin('tsc'), ['-p', 'libs/merchant-sdk/tsconfig.json', '--noEmit']],
    ['Typecheck (docs/examples)', bin('tsc'), ['-p', 'docs/examples/tsconfig.json']],
    ['Typecheck (console)', bin('tsc'), ['-p', 'apps/api/console/tsconfig.json']],
    [
      'Tests (vitest)',
      bin('vitest'),
      [
        'run',
        '--reporter=default',
        '--reporter=json',
        `--outputFile.json=${REPORT}`,
        ...process.argv.slice(3),
      ],
    ],
  ];
  let failed = 0;
  for (const [name, command, args] of stages) {
    step(name);
    const status = run(command, args);
    if (status !== 0) {
      console.error(paint('1;31', `✖ ${name} failed (exit ${status})`));
      failed += 1;
    }
  }
  // One plain closing line with the counts, whatever the runner's own output looks like.
  if (existsSync(REPORT)) {
    const report = JSON.parse(readFileSync(REPORT, 'utf8'));
    const skipped = report.numPendingTests + report.numTodoTests;
    console.log(
      `\ntests: ${report.numPassedTests} passed, ${report.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`,
    );
  }
  console.log(`time: ${stepTimes(steps)}`);
  if (failed > 0) console.error(paint('1;31', `✖ ${failed} stage(s) failed`));
  await shutdown(failed === 0 ? 0 : 1);
}

/**
 * A longer search by the property tests alone: `npm run test:properties -- --runs 500 [test files]`
 * (default: every file under test/properties). `--seed S --path P` replays one reported failure.
 */
async function properties() {
  const ours = { '--runs': 'PROPERTY_RUNS', '--seed': 'PROPERTY_SEED', '--path': 'PROPERTY_PATH' };
  const args = process.argv.slice(3);
  const rest = [];
  for (let i = 0; i < args.length; i += 1) {
    const [name, inline] = args[i].split(/=(.*)/s);
    if (ours[name]) {
      const value = inline ?? args[(i += 1)];
      if (value === undefined) fail(`${name} needs a value`);
      process.env[ours[name]] = value;
    } else rest.push(args[i]);
  }
  await prepare();
  // Without test files: every file that states a property (test/properties, and specs beside the code).
  const files = rest.some((a) => a.endsWith('.ts') || a.includes('/')) ? [] : propertyFiles();
  step(`Property tests (${process.env.PROPERTY_RUNS ?? 'default'} runs each)`);
  const status = run(bin('vitest'), ['run', ...files, ...rest]);
  await shutdown(status === 0 ? 0 : 1);
}

function propertyFiles() {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (
        /\.(e2e-)?spec\.ts$/.test(entry.name) &&
        readFileSync(join(ROOT, path), 'utf8').includes('assertProperty(')
      )
        found.push(path);
    }
  };
  for (const dir of ['apps', 'libs', 'test']) walk(dir);
  return found;
}

/**
 * The chaos soak (`npm run soak -- --minutes 30`): install, Prisma client and build as for start, then
 * test/soak/run.mjs, which starts its own Postgres, Redis and apps (the shared ones are not needed).
 */
async function soak() {
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
 * The flake hunt (`npm run test:repeat -- --runs 5 --load 2 [test files]`): the set-up of `npm test`,
 * then scripts/test-repeat.mjs runs the tests again and again and names what failed.
 */
async function repeat() {
  ensureChromium();
  ensurePromtool();
  await prepare();
  const status = run(process.execPath, [join(ROOT, 'scripts/test-repeat.mjs'), ...process.argv.slice(3)]);
  await shutdown(status);
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
  test,
  properties,
  repeat,
  soak,
  bench: bench('run.mjs'),
  'bench-scale': bench('scale.mjs'),
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
