#!/usr/bin/env node
// The project's benchmarks: `npm run bench` (builds, then runs this). Plain Node ESM, built-ins only.
// Speed is measured here, never asserted in tests. Every figure worth quoting is a ratio against a
// baseline measured in the same run on the same machine; absolute numbers are printed for context only.
//
// Options (after `npm run bench --`): --connections N (4), --api-connections N (50, the api reads), --cpu-rate N (0:
// the api reads' CPU and heap per request read at full speed; N: in rounds of their own at N req/s, each
// round's achieved rate reported and a round short of it by over 5% refusing the figure; auto: the highest
// of a ladder of rates at most half the slowest paced target's full-speed req/s), --rounds N (5), --duration MS per target per
// round (1000), --warmup MS (1500), --max-requests N per target per round (20000), --walk-batches N (2),
// --walks N per batch (5), --out FILE (.dev/bench-results.json), --smoke (every scenario small and once:
// that it runs, not a figure; npm test does it), --only a,b (scenarios: sandbox-page,
// upstream-client, sandbox-rotation, api-reads, sync, events, consent-expiry, transaction-changes, reconcile, tracing-overhead, isolation, lanes; all by default), --targets key,key (api-reads only: just these
// of its targets, e.g. api-live,sandbox-live, to time or profile one route; the others' rows are left out). The apps the later three start listen
// on BENCH_API_PORT (3100) and BENCH_SANDBOX_PORT (4110), and api-reads' minimal Nest baselines on BENCH_NEST_PORT
// (3101) and BENCH_NEST_PG_PORT (3102, the one reading Postgres), and its /live api on BENCH_API_LIVE_PORT (3103), so a bench can run beside `npm start`.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { startPrivatePostgres } from '../kit/private-services.mjs';
import { serverCpuSeconds, serverMinorFaults } from './cpu.mjs';
import { report } from './report.mjs';
import { SCENARIOS } from './scenario-names.mjs';
import { apiReads } from './scenarios/api-reads.mjs';
import { consentExpiryBench } from './scenarios/consent-expiry.mjs';
import { eventsBench } from './scenarios/events.mjs';
import { isolationBench } from './scenarios/isolation.mjs';
import { lanesBench } from './scenarios/lanes.mjs';
import { reconcileBench } from './scenarios/reconcile.mjs';
import { sandboxRotation } from './scenarios/sandbox-rotation.mjs';
import { BenchFailure, sandboxTransactionPage } from './scenarios/sandbox-transactions.mjs';
import { syncBench } from './scenarios/sync.mjs';
import { tracingOverhead } from './scenarios/tracing-overhead.mjs';
import { transactionChangesBench } from './scenarios/transaction-changes.mjs';
import { upstreamClientWalk } from './scenarios/upstream-client.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The private Postgres's settings over the kit's: the machine's stock server's durability and size. */
const BENCH_POSTGRES_SETTINGS = {
  fsync: 'on',
  synchronous_commit: 'on',
  full_page_writes: 'on',
  max_connections: 100,
};
/** Whatever happens, the bench ends: past this the process reports and exits. */
const HARD_LIMIT_MS = 2_700_000;

const int = (name, value, lo, hi) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < lo || n > hi)
    throw new BenchFailure(`--${name} must be an integer in ${lo}..${hi}`);
  return n;
};

function readOptions() {
  const { values } = parseArgs({
    options: {
      connections: { type: 'string', default: '4' },
      'api-connections': { type: 'string', default: '50' },
      'cpu-rate': { type: 'string', default: '0' },
      rounds: { type: 'string', default: '5' },
      duration: { type: 'string', default: '1000' },
      warmup: { type: 'string', default: '1500' },
      'max-requests': { type: 'string', default: '20000' },
      'walk-batches': { type: 'string', default: '2' },
      walks: { type: 'string', default: '5' },
      out: { type: 'string', default: '.dev/bench-results.json' },
      only: { type: 'string', default: SCENARIOS.join(',') },
      targets: { type: 'string' },
      smoke: { type: 'boolean', default: false },
    },
  });
  // --smoke: every scenario at a small size, once, fast: that each still runs (npm test does it,
  // test/bench-smoke.e2e-spec.ts), never a figure to quote. Its sizes beat the options given.
  if (values.smoke) {
    Object.assign(values, {
      rounds: '1',
      duration: '100',
      warmup: '0',
      'max-requests': '2000',
      'walk-batches': '1',
      walks: '1',
      'api-connections': '4',
      // The paced rounds' steps too, at a rate picked as a real run would.
      'cpu-rate': 'auto',
    });
  }
  const only = values.only.split(',').map((s) => s.trim());
  const unknown = only.filter((s) => !SCENARIOS.includes(s));
  if (unknown.length)
    throw new BenchFailure(`--only takes ${SCENARIOS.join(', ')}; not ${unknown.join(', ')}`);
  return {
    connections: int('connections', values.connections, 1, 64),
    apiConnections: int('api-connections', values['api-connections'], 1, 64),
    cpuRate: values['cpu-rate'] === 'auto' ? 'auto' : int('cpu-rate', values['cpu-rate'], 0, 100_000),
    rounds: int('rounds', values.rounds, 1, 10),
    durationMs: int('duration', values.duration, 100, 10_000),
    warmupMs: int('warmup', values.warmup, 0, 10_000),
    maxRequests: int('max-requests', values['max-requests'], 1, 200_000),
    walkBatches: int('walk-batches', values['walk-batches'], 1, 10),
    walksPerBatch: int('walks', values.walks, 1, 50),
    out: resolve(ROOT, values.out),
    only,
    targets: values.targets?.split(',').map((s) => s.trim()),
    smoke: values.smoke,
  };
}

/** The load generator, in a worker thread: its own event loop, so it never queues behind the servers. */
class LoadClient {
  #worker = new Worker(new URL('./load-worker.mjs', import.meta.url));
  #pending = new Map();
  #next = 0;

  constructor() {
    const failAll = (error) => {
      for (const { reject } of this.#pending.values()) reject(error);
      this.#pending.clear();
    };
    this.#worker.on('message', ({ id, result, error }) => {
      const call = this.#pending.get(id);
      this.#pending.delete(id);
      if (error) call?.reject(new BenchFailure(`load generator: ${error}`));
      else call?.resolve(result);
    });
    this.#worker.on('error', (error) =>
      failAll(new BenchFailure(`load generator crashed: ${error.message}`)),
    );
    this.#worker.on('exit', (code) => failAll(new BenchFailure(`load generator exited (code ${code})`)));
  }

  run = (kind, job) =>
    new Promise((resolve, reject) => {
      const id = (this.#next += 1);
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, kind, job });
    });

  close() {
    return this.#worker.terminate();
  }
}

/** The server's version, as `psql` prints it (the bench states what it ran on). */
function postgresVersion(url) {
  const out = spawnSync('psql', [url, '-Atc', 'SHOW server_version'], { encoding: 'utf8' });
  return out.stdout?.trim() || 'unknown';
}

function machine() {
  const cpus = os.cpus();
  return {
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: os.availableParallelism?.() ?? cpus.length,
    cpuModel: cpus[0]?.model?.trim() ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    loadAverage: os.loadavg().map((n) => Math.round(n * 100) / 100),
  };
}

/**
 * Prints the report of the scenarios that ran and the JSON summary, and writes the summary to its file:
 * whether it was written.
 */
function writeResults(summary, startedAt, progress) {
  summary.loadAverageAtEnd = os.loadavg().map((n) => Math.round(n * 100) / 100);
  summary.seconds = (Date.now() - startedAt) / 1000;
  if (summary.scenarios.length > 0) console.log(report(summary));
  console.log('');
  console.log(JSON.stringify(summary, null, 2));
  const out = summary.options?.out ?? resolve(ROOT, '.dev/bench-results.json');
  try {
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(summary, null, 2)}\n`);
    progress(`results written to ${relative(process.cwd(), out)} (${summary.seconds.toFixed(1)} s)`);
    return true;
  } catch (error) {
    console.error(`bench: could not write ${out}: ${error.message}`);
    return false;
  }
}

async function main() {
  const startedAt = new Date();
  // Stopped from outside: exit, so that the private Postgres is stopped and removed (the kit's exit hook).
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      console.error(`bench: ${signal}; stopping`);
      process.exit(130);
    });
  }

  const args = process.argv.slice(2).join(' ');
  const command =
    process.env.npm_lifecycle_event === 'bench'
      ? `npm run bench${args ? ` -- ${args}` : ''}`
      : `node ${relative(process.cwd(), fileURLToPath(import.meta.url)) || 'test/bench/run.mjs'}${args ? ` ${args}` : ''}`;
  const summary = {
    ok: false,
    command,
    startedAt: startedAt.toISOString(),
    machine: machine(),
    options: null,
    scenarios: [],
    failed: [],
  };
  const progress = (message) =>
    console.error(`[bench ${((Date.now() - startedAt) / 1000).toFixed(1)}s] ${message}`);
  // Past the limit the run stops where it is, but what the scenarios before measured is still written.
  const hardLimit = setTimeout(() => {
    summary.error = `still running after ${HARD_LIMIT_MS / 1000} s; gave up`;
    console.error(`bench: FAILED — ${summary.error}`);
    writeResults(summary, startedAt, progress);
    process.exit(2);
  }, HARD_LIMIT_MS);
  hardLimit.unref();
  let load;
  let postgres;
  let exitCode = 0;
  try {
    summary.options = readOptions();
    // A Postgres of the bench's own, so that what it costs is the bench's alone (serverCpuSeconds): on the
    // machine's shared server other tenants' backends would count, and ended ones could not. With the
    // stock server's durability (the kit's own test settings turn fsync and synchronous commits off).
    progress('starting a private Postgres');
    postgres = await startPrivatePostgres({ settings: BENCH_POSTGRES_SETTINGS });
    process.env.DATABASE_URL = postgres.url;
    summary.postgres = { settings: BENCH_POSTGRES_SETTINGS, version: postgresVersion(postgres.url) };
    load = new LoadClient();
    const context = {
      load: load.run,
      options: summary.options,
      progress,
      postgresCpu: () => serverCpuSeconds(postgres.postmasterPid()),
      postgresFaults: () => serverMinorFaults(postgres.postmasterPid()),
    };
    const runs = {
      'sandbox-page': () => sandboxTransactionPage(context),
      'upstream-client': () => upstreamClientWalk(context),
      'sandbox-rotation': () => sandboxRotation(context),
      'api-reads': () => apiReads(context),
      sync: () => syncBench(context),
      events: () => eventsBench(context),
      'consent-expiry': () => consentExpiryBench(context),
      'transaction-changes': () => transactionChangesBench(context),
      reconcile: () => reconcileBench(context),
      'tracing-overhead': () => tracingOverhead(context),
      isolation: () => isolationBench(context),
      lanes: () => lanesBench(context),
    };
    const unmapped = SCENARIOS.filter((name) => !runs[name]);
    if (unmapped.length) throw new BenchFailure(`no function for scenario(s) ${unmapped.join(', ')}`);
    // A scenario that fails is reported and the next one runs: one broken statement costs its own
    // figures, not every later scenario's, and a smoke run names every scenario that no longer runs.
    for (const name of SCENARIOS.filter((n) => summary.options.only.includes(n))) {
      progress(`scenario ${name}`);
      try {
        summary.scenarios.push({ scenario: name, ...(await runs[name]()) });
      } catch (error) {
        const message = error instanceof BenchFailure ? error.message : (error?.stack ?? String(error));
        summary.failed.push({ scenario: name, error: message });
        console.error(`bench: ${name} FAILED — ${message}`);
      }
    }
    summary.ok = summary.failed.length === 0;
  } catch (error) {
    summary.error = error instanceof BenchFailure ? error.message : (error?.stack ?? String(error));
    console.error(`bench: FAILED — ${summary.error}`);
  } finally {
    await load?.close();
    await postgres?.destroy();
  }
  if (!summary.ok) exitCode = 1;
  if (!writeResults(summary, startedAt, progress)) exitCode = 1;
  process.exitCode = exitCode;
  // Servers are closed and the worker is gone; if some handle still holds the loop, do not hang on it.
  setTimeout(() => {
    console.error('bench: handles still open after the run; exiting anyway');
    process.exit(exitCode);
  }, 3000).unref();
}

await main();
