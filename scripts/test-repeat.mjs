#!/usr/bin/env node
// The flake hunt: `npm run test:repeat -- --runs N [--load K] [vitest args…]`. Runs the tests N times
// (each run with a fresh TEST_SEED), optionally beside K busy loops that load the machine, and prints
// every test that failed at least once, with its first failure and the seed that replays the run, then
// the files where the time goes. Called by `scripts/dev.mjs repeat` after the usual set-up, so the
// environment (test database, queue prefix) is `npm test`'s. Exits 1 when any test failed in any run.
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, '.dev', 'repeat');
/** Lines of a failure shown in the summary: enough for the assertion and the first frames. */
const FAILURE_LINES = 12;

/** A wrong option: one line saying which and how to call it, exit 2. */
function usage(problem) {
  console.error(
    `test:repeat: ${problem}\nusage: npm run test:repeat -- --runs N [--load K] [--seed S] [vitest args…]`,
  );
  process.exit(2);
}

// Ours are --runs, --load and --seed; everything else is vitest's (file patterns, -t, --bail…).
const OPTIONS = { '--runs': 'runs', '--load': 'load', '--seed': 'seed' };
const values = { runs: '5', load: '0', seed: undefined };
const vitestArgs = [];
for (let i = 2; i < process.argv.length; i += 1) {
  const [name, inline] = process.argv[i].split(/=(.*)/s);
  if (OPTIONS[name]) values[OPTIONS[name]] = inline ?? process.argv[(i += 1)];
  else vitestArgs.push(process.argv[i]);
}
const runs = Number(values.runs);
const load = Number(values.load);
if (!Number.isInteger(runs) || runs < 1) usage(`--runs must be a positive integer, not ${values.runs}`);
if (!Number.isInteger(load) || load < 0) usage(`--load must be a non-negative integer, not ${values.load}`);
if (values.seed !== undefined && !Number.isInteger(Number(values.seed))) {
  usage(`--seed must be an integer, not ${values.seed}`);
}

/** Spins, and ends once orphaned (its parent killed before it could stop the loop). */
const BUSY_LOOP =
  'const parent = process.ppid; for (let i = 0; ; i++) if (!(i % 1e8) && process.ppid !== parent) process.exit();';

/** K processes spinning on a core each: the machine as busy as a shared CI host on a bad day. */
function startLoad(count) {
  const loops = [];
  for (let i = 0; i < count; i += 1) {
    loops.push(spawn(process.execPath, ['-e', BUSY_LOOP], { stdio: 'ignore' }));
  }
  const stop = () => loops.forEach((loop) => loop.kill('SIGKILL'));
  // However this script ends (Ctrl-C included), no loop outlives it.
  process.on('exit', stop);
  return stop;
}

function vitest(run, seed) {
  const report = join(OUT, `run-${run}.json`);
  rmSync(report, { force: true });
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(
      join(ROOT, 'node_modules', '.bin', 'vitest'),
      ['run', '--reporter=dot', '--reporter=json', `--outputFile.json=${report}`, ...vitestArgs],
      {
        cwd: ROOT,
        stdio: ['ignore', 'inherit', 'inherit'],
        env: { ...process.env, TEST_SEED: String(seed) },
      },
    );
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal === 'SIGINT' || signal === 'SIGTERM') return reject(new Error('interrupted'));
      const seconds = (Date.now() - started) / 1000;
      const parsed = existsSync(report) ? JSON.parse(readFileSync(report, 'utf8')) : undefined;
      resolve({ run, seed, code, seconds, report: parsed });
    });
  });
}

/** `file › describe › test` for each test that did not pass, plus files that failed outside any test. */
function failuresOf(result) {
  const failed = [];
  if (!result.report) {
    failed.push({ key: `(run ${result.run}: no report, vitest exited ${result.code})`, message: '' });
    return failed;
  }
  for (const file of result.report.testResults) {
    const path = relative(ROOT, file.name);
    const tests = file.assertionResults ?? [];
    for (const test of tests) {
      if (test.status !== 'failed') continue;
      failed.push({
        key: `${path} › ${test.fullName}`,
        file: path,
        message: (test.failureMessages ?? []).join('\n'),
      });
    }
    // A file whose set-up failed, or that crashed, fails with no failing test of its own.
    if (file.status === 'failed' && !tests.some((t) => t.status === 'failed')) {
      failed.push({ key: `${path} (the file)`, file: path, message: file.message ?? '' });
    }
  }
  // Vitest also fails a run for what no test owns: a global set-up that threw, an unhandled error.
  if (failed.length === 0 && result.code !== 0) {
    const reason = result.report.testResults.length === 0 ? 'no test ran' : 'an error outside any test';
    failed.push({
      key: `(run ${result.run}: vitest exited ${result.code}, ${reason}; see its output)`,
      message: '',
    });
  }
  return failed;
}

const firstLines = (text) =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.includes('node_modules'))
    .slice(0, FAILURE_LINES)
    .map((line) => `      ${line}`)
    .join('\n');

/** Seeds a failure names itself (fast-check's replay command), besides the run's TEST_SEED. */
const propertySeed = (message) => /Replay this case: (.*)/.exec(message)?.[1];

function fileDurations(results) {
  const byFile = new Map();
  for (const result of results) {
    for (const file of result.report?.testResults ?? []) {
      const path = relative(ROOT, file.name);
      const list = byFile.get(path) ?? [];
      list.push((file.endTime - file.startTime) / 1000);
      byFile.set(path, list);
    }
  }
  const median = (list) => {
    const sorted = [...list].sort((a, b) => a - b);
    const mid = sorted.length / 2;
    return Number.isInteger(mid) ? (sorted[mid - 1] + sorted[mid]) / 2 : sorted[Math.floor(mid)];
  };
  return [...byFile].map(([path, list]) => ({ path, median: median(list), max: Math.max(...list) }));
}

/** The runs one after another, beside the load, each with the next seed from `firstSeed`. */
async function runAll(firstSeed) {
  const stopLoad = startLoad(load);
  const results = [];
  try {
    for (let run = 1; run <= runs; run += 1) {
      const seed = (firstSeed + run - 1) % 2 ** 31;
      console.log(`\n▸ run ${run} of ${runs} (TEST_SEED=${seed})`);
      const result = await vitest(run, seed);
      results.push(result);
      const failed = failuresOf(result);
      console.log(
        `  run ${run}: ${result.report?.numPassedTests ?? '?'} passed, ${failed.length} failed, ${result.seconds.toFixed(0)} s`,
      );
    }
  } finally {
    stopLoad();
  }
  return results;
}

/** Each test that failed in any run: the runs it failed in, and its first failure with that run's seed. */
function flakyOf(results) {
  const flaky = new Map();
  for (const result of results) {
    for (const { key, file, message } of failuresOf(result)) {
      const entry = flaky.get(key) ?? { runs: [], file, message, seed: result.seed };
      entry.runs.push(result.run);
      flaky.set(key, entry);
    }
  }
  return flaky;
}

/** The summary in Markdown: the runs, the tests that failed with how to replay each, the slowest files. */
function summaryOf(results, flaky) {
  const lines = [
    `# test:repeat, ${new Date().toISOString()}`,
    '',
    `${runs} run(s), load ${load}, vitest ${vitestArgs.join(' ') || '(every test)'}`,
    '',
    '| run | TEST_SEED | passed | failed | seconds |',
    '| --- | --- | --- | --- | --- |',
    ...results.map(
      (r) =>
        `| ${r.run} | ${r.seed} | ${r.report?.numPassedTests ?? '?'} | ${failuresOf(r).length} | ${r.seconds.toFixed(0)} |`,
    ),
    '',
  ];
  if (flaky.size === 0) lines.push('Every test passed in every run.');
  else {
    lines.push(`Tests that failed at least once (${flaky.size}):`, '');
    for (const [key, entry] of flaky) {
      const replay = propertySeed(entry.message);
      lines.push(
        `- ${key}: failed in ${entry.runs.length} of ${runs} (run ${entry.runs.join(', ')})`,
        `    replay: ${replay ?? `TEST_SEED=${entry.seed} npm run test:repeat -- --runs 1 ${entry.file ?? ''}`}`,
        firstLines(entry.message),
      );
    }
  }
  const slowest = fileDurations(results)
    .sort((a, b) => b.median - a.median)
    .slice(0, 15);
  lines.push(
    '',
    "Slowest files (median and max seconds over the runs; each file's own time, its process start-up not counted):",
    '',
  );
  for (const file of slowest)
    lines.push(`- ${file.median.toFixed(1)} s (max ${file.max.toFixed(1)}) ${file.path}`);
  return lines.join('\n');
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  // --seed (or TEST_SEED, as a failure's replay line gives it) is the first run's; the next runs count on.
  const given = values.seed ?? process.env.TEST_SEED;
  const firstSeed = given !== undefined && given !== '' ? Number(given) : randomInt(2 ** 31);
  console.log(
    `test:repeat: ${runs} run(s)${load ? ` beside ${load} busy loop(s)` : ''}` +
      `${vitestArgs.length ? ` of ${vitestArgs.join(' ')}` : ''}; seeds from ${firstSeed}`,
  );
  const results = await runAll(firstSeed);
  const flaky = flakyOf(results);
  const summary = summaryOf(results, flaky);
  writeFileSync(join(OUT, 'summary.md'), `${summary}\n`);
  console.log(`\n${summary}\n\n(also in ${relative(ROOT, join(OUT, 'summary.md'))})`);
  process.exit(flaky.size === 0 ? 0 : 1);
}

process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => process.exit(143));
main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
