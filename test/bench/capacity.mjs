#!/usr/bin/env node
// Beyond one Postgres: `npm run bench:capacity` (builds, then runs this). On a private Postgres with the
// stock `max_connections` (100), --processes api processes (14 by default: more than ten, each with a pool
// of DATABASE_POOL_MAX = 10) read a merchant's users page (every read to Postgres: the page caches off)
// with --connections-per-process keep-alive clients each for --seconds, twice: straight to Postgres, then
// through a private PgBouncer in transaction mode (--pool-size server connections). Two cores run all of
// it, so throughput says little: what it reports is connections and errors, the peak of Postgres's client
// backends (sampled on a connection held from the start) against what the pools could open, and every
// answer that was not a 200, by status and error code. Then the hot read (a stored transactions page, the
// caches off) by one api process, with every read on the primary and then with a streaming replica
// (DATABASE_REPLICA_URL): the api's, the primary's and the replica's CPU per page. Options: --processes N (14),
// --connections-per-process N (12), --seconds N (10), --pool-size N (20), --out FILE
// (.dev/capacity-results.json). The apps listen on BENCH_API_PORT (3100) and the ports after it, the
// sandbox on BENCH_SANDBOX_PORT (4110).
import { Buffer } from 'node:buffer';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startPrivatePgbouncer } from '../kit/private-pgbouncer.mjs';
import { startPrivatePostgres } from '../kit/private-services.mjs';
import { BenchFailure } from './bench-failure.mjs';
import { replicaReads } from './capacity-replica.mjs';
import { cpuMicros } from './cpu.mjs';
import { call, expectStatus } from './http-helpers.mjs';
import { benchPorts, onboardMerchant, startApi, startBenchSandbox, tuned } from './processes.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Postgres's default, which a deployment that never tuned it has. */
const MAX_CONNECTIONS = 100;
const USERS = 50;

const { values } = parseArgs({
  options: {
    processes: { type: 'string', default: '14' },
    'connections-per-process': { type: 'string', default: '12' },
    seconds: { type: 'string', default: '10' },
    'pool-size': { type: 'string', default: '20' },
    out: { type: 'string', default: '.dev/capacity-results.json' },
  },
});
const int = (name, lo, hi) => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < lo || n > hi)
    throw new BenchFailure(`--${name} must be an integer in ${lo}..${hi}`);
  return n;
};
const options = {
  processes: int('processes', 1, 40),
  perProcess: int('connections-per-process', 1, 100),
  seconds: int('seconds', 1, 600),
  poolSize: int('pool-size', 1, 90),
};
const log = (line) => console.log(`[capacity] ${line}`);

/** Postgres's client backends (the apps' connections and this bench's own), sampled until stopped. */
function sampleBackends(db) {
  let peak = 0;
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const { rows } = await db.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend'`,
      );
      peak = Math.max(peak, rows[0].n);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return async () => {
    stopped = true;
    await done;
    return peak;
  };
}

/**
 * `perProcess` keep-alive loops on each URL for `seconds`: answers by status, the error envelopes' codes,
 * and requests that got no answer at all, by why.
 */
async function load(urls, headers, seconds = options.seconds) {
  const statuses = {};
  const codes = {};
  const unanswered = {};
  const count = (tally, key) => (tally[key] = (tally[key] ?? 0) + 1);
  const agent = new http.Agent({ keepAlive: true, maxSockets: urls.length * options.perProcess });
  const get = (url) =>
    new Promise((done) => {
      const req = http.get(url, { agent, headers }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          count(statuses, res.statusCode);
          if (res.statusCode !== 200)
            count(codes, /"code":"([A-Z_]+)"/.exec(Buffer.concat(chunks).toString())?.[1] ?? 'none');
          done();
        });
      });
      req.setTimeout(60_000, () => req.destroy(new Error('no answer within 60 s')));
      req.on('error', (error) => {
        count(unanswered, error.code ?? error.message);
        done();
      });
    });
  const deadline = Date.now() + seconds * 1000;
  await Promise.all(
    urls.flatMap((url) =>
      Array.from({ length: options.perProcess }, async () => {
        while (Date.now() < deadline) await get(url);
      }),
    ),
  );
  agent.destroy();
  const sum = (tally) => Object.values(tally).reduce((a, b) => a + b, 0);
  return { requests: sum(statuses) + sum(unanswered), statuses, errorCodes: codes, unanswered };
}

/** The api processes on `env`, the read spread over them, what Postgres saw; the processes stopped after. */
async function measure(label, env, { sandbox, monitor, merchant }) {
  const closers = [];
  const ports = benchPorts();
  try {
    const apis = [];
    for (let i = 0; i < options.processes; i += 1)
      apis.push(await startApi(`api-${i + 1}`, env, sandbox, ports.api + i, closers));
    const urls = apis.map((api) => `${api.url}/v1/users?limit=${USERS}`);
    const peak = sampleBackends(monitor);
    const cpuBefore = apis.map((api) => cpuMicros(api.pid));
    const result = await load(urls, merchant.auth);
    const apiCpuMs = apis.reduce((sum, api, i) => sum + (cpuMicros(api.pid) - cpuBefore[i]) / 1000, 0);
    const backends = await peak();
    const exited = apis.filter((api) => api.exited() !== null).length;
    // Per 200 answered: a refusal is cheap, and would flatter the run that refused most.
    const apiCpuMsPer200 = apiCpuMs / (result.statuses[200] ?? 1);
    const row = {
      label,
      apiCpuMsPer200,
      processes: options.processes,
      poolCapacity: options.processes * 10,
      peakBackends: backends,
      exited,
      ...result,
    };
    log(
      `${label}: api CPU ${apiCpuMsPer200.toFixed(2)} ms per 200, peak ${backends} Postgres client backends (max_connections ${MAX_CONNECTIONS}), ${result.requests} requests, statuses ${JSON.stringify(result.statuses)}, error codes ${JSON.stringify(result.errorCodes)}, unanswered ${JSON.stringify(result.unanswered)}, ${exited} process(es) exited`,
    );
    return row;
  } finally {
    for (const close of closers.reverse()) await close();
  }
}

async function main() {
  const closers = [];
  try {
    // The kit's cluster allows 200; the stock 100 is what a deployment outgrows.
    const postgres = await startPrivatePostgres({ settings: { max_connections: MAX_CONNECTIONS } });
    closers.push(() => postgres.destroy());
    const { migrate, defaultMigrationsDir } = await import(
      new URL('dist/libs/database/src/migrator.js', `file://${ROOT}`).href
    );
    await migrate(postgres.url, defaultMigrationsDir());
    const monitor = new pg.Client({ connectionString: postgres.url });
    await monitor.connect();
    closers.push(() => monitor.end());
    // What the pooler cannot carry from the apps: the statement bound (docs/operations.md#behind-pgbouncer).
    await monitor.query(`ALTER ROLE postgres IN DATABASE bff SET statement_timeout = '30s'`);
    const pooler = await startPrivatePgbouncer({ postgresUrl: postgres.url, poolSize: options.poolSize });
    closers.push(() => pooler.destroy());

    const sandbox = await startBenchSandbox();
    closers.push(() => sandbox.stop());
    const base = {
      ...tuned({ storedPageCacheMb: 0, readCacheMb: 0 }),
      QUEUE_PREFIX: 'bff-bench-capacity',
      UPSTREAM_WEBHOOK_AUTO_REGISTER: 'false',
      DATABASE_POOL_MAX: '10',
    };
    const direct = { ...base, DATABASE_URL: postgres.url, DATABASE_POOLER: 'none' };
    const pooled = {
      ...base,
      DATABASE_URL: pooler.url('bff'),
      DATABASE_POOLER: 'transaction',
      DATABASE_DIRECT_URL: postgres.url,
    };

    // The data, through one api process first: a merchant and its users page.
    const setupClosers = [];
    const setup = await startApi('api-setup', direct, sandbox, benchPorts().api, setupClosers);
    const merchant = await onboardMerchant(setup.url, 'Capacity Co');
    for (let i = 0; i < USERS; i += 1)
      await expectStatus(
        'POST /v1/users',
        call(setup.url, 'POST', '/v1/users', merchant.auth, { reference: `customer-${i}` }),
        201,
      );
    for (const close of setupClosers) await close();

    const context = { sandbox, monitor, merchant };
    const rows = [
      await measure('straight to Postgres', direct, context),
      await measure('through PgBouncer (transaction)', pooled, context),
    ];
    const pools = await pooler.show('POOLS');
    const replicaRows = await replicaReads({ postgres, sandbox, base, load, log });
    const summary = {
      date: new Date().toISOString(),
      machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB`,
      node: process.version,
      maxConnections: MAX_CONNECTIONS,
      options,
      rows,
      pgbouncerPools: pools,
      replicaReads: replicaRows,
    };
    const out = resolve(ROOT, values.out);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(summary, null, 2)}\n`);
    log(`written to ${out}`);
  } finally {
    for (const close of closers.reverse()) await close().catch((error) => log(`cleanup: ${error.message}`));
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error instanceof BenchFailure ? `[capacity] ${error.message}` : error);
    process.exit(1);
  },
);
