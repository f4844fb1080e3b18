// The test modes of scripts/dev.mjs: `npm test`, the property search and the flake hunt. Each takes the
// shared set-up (`prepare`: install, build, services, migrations) from dev.mjs. Node built-ins only.
import { Buffer } from 'node:buffer';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDebianPackage } from './debian-packages.mjs';
import { stepTimes } from './dev-probes.mjs';
import { bin, cleanups, fail, FatalError, paint, ROOT, run, shutdown, step, steps } from './dev-steps.mjs';

const REPORT = join(ROOT, '.dev', 'vitest-report.json');

// The tools the tests need from Debian packages: Chromium for the browser tests (nothing downloads a
// browser) and `promtool` (package prometheus) for the alert rule tests; installed without their services.
const ensureChromium = () =>
  ensureDebianPackage('chromium', () => existsSync('/usr/bin/chromium'), 'The browser tests');
const ensurePromtool = () =>
  ensureDebianPackage(
    'prometheus',
    () => spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0,
    'The alert rule tests',
  );

/** The servers some tests run privately, on ports of their own: PgBouncer, and Redis Sentinel. */
const ensureTestServers = () => {
  ensureDebianPackage('pgbouncer', () => existsSync('/usr/sbin/pgbouncer'), 'The pooler tests');
  ensureDebianPackage('redis-sentinel', () => existsSync('/usr/bin/redis-sentinel'), 'The Sentinel tests');
};

async function test(prepare) {
  ensureChromium();
  ensurePromtool();
  ensureTestServers();
  await prepare();
  rmSync(REPORT, { force: true });
  // The static checks in two lanes at once, one a core: ESLint (typed, the longest) alone, and Prettier
  // then the type checks; each stage's output printed whole as it ends. Then the tests, which use both.
  const lanes = [
    [['ESLint', bin('eslint'), ['.', '--max-warnings=0']]],
    [
      ['Prettier', bin('prettier'), ['--check', '.', '--log-level=warn']],
      ['Typecheck', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']],
      ['Typecheck (merchant SDK)', bin('tsc'), ['-p', 'libs/merchant-sdk/tsconfig.json', '--noEmit']],
      ['Typecheck (docs/examples)', bin('tsc'), ['-p', 'docs/examples/tsconfig.json']],
      ['Typecheck (console)', bin('tsc'), ['-p', 'apps/api/console/tsconfig.json']],
    ],
  ];
  step('Static checks (ESLint beside Prettier and the type checks)');
  // Stopped with this command (a SIGTERM to it alone would otherwise leave them running).
  cleanups.push(() => {
    for (const child of checking) child.kill('SIGTERM');
  });
  const failures = await Promise.all(lanes.map(runLane));
  let failed = failures.reduce((sum, n) => sum + n, 0);
  step('Tests (vitest)');
  const status = run(bin('vitest'), [
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${REPORT}`,
    ...process.argv.slice(3),
  ]);
  if (status !== 0) {
    console.error(paint('1;31', `✖ Tests (vitest) failed (exit ${status})`));
    failed += 1;
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

/** A lane's stages one after another, each run to its end whatever the last did: answers how many failed. */
async function runLane(stages) {
  let failed = 0;
  for (const [name, command, args] of stages) {
    const started = Date.now();
    const { status, signal, output } = await runCaptured(command, args);
    // Ctrl-C reaches the whole process group: the stage died of it, so stop, as run() does.
    if (signal === 'SIGINT' || signal === 'SIGTERM') throw new FatalError('interrupted', 130);
    const seconds = Math.round((Date.now() - started) / 1000);
    process.stdout.write(output);
    if (status === 0) console.log(paint('32', `✔ ${name} (${seconds}s)`));
    else {
      console.error(paint('1;31', `✖ ${name} failed (exit ${status}, ${seconds}s)`));
      failed += 1;
    }
  }
  return failed;
}

/** The static checks running now. */
const checking = new Set();

/** A command's exit and its output (stdout and stderr in the order written), for printing whole. */
function runCaptured(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    checking.add(child);
    const chunks = [];
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    child.on('error', (error) =>
      resolve({ status: 1, signal: null, output: `${command}: ${error.message}\n` }),
    );
    child.on('close', (code, signal) => {
      checking.delete(child);
      resolve({ status: code ?? 1, signal, output: Buffer.concat(chunks).toString() });
    });
  });
}

/**
 * A longer search by the property tests alone: `npm run test:properties -- --runs 500 [test files]`
 * (default: every file under test/properties). `--seed S --path P` replays one reported failure.
 */
async function properties(prepare) {
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
 * The flake hunt (`npm run test:repeat -- --runs 5 --load 2 [test files]`): the set-up of `npm test`,
 * then scripts/test-repeat.mjs runs the tests again and again and names what failed.
 */
async function repeat(prepare) {
  ensureChromium();
  ensurePromtool();
  ensureTestServers();
  await prepare();
  const status = run(process.execPath, [join(ROOT, 'scripts/test-repeat.mjs'), ...process.argv.slice(3)]);
  await shutdown(status);
}

/**
 * `npm run test:failover`: the set-up of `npm test`, then the tests of a Redis master's loss (Sentinel, a
 * Cluster) and of a rolling upgrade, which vitest.config.ts keeps out of npm test's run.
 */
async function failover(prepare) {
  ensureTestServers();
  await prepare();
  step('Failover and upgrade tests (vitest)');
  const status = run(bin('vitest'), ['run', ...process.argv.slice(3)], {
    env: { ...process.env, BFF_TEST_SET: 'failover' },
  });
  await shutdown(status === 0 ? 0 : 1);
}

/** The modes, each with the shared set-up. */
export const testModes = (prepare) => ({
  test: () => test(prepare),
  properties: () => properties(prepare),
  repeat: () => repeat(prepare),
  'failover-tests': () => failover(prepare),
});
