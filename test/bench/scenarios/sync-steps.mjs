// The sync bench's steps (sync.mjs): connecting banks, waiting for syncs and reading their figures, COPY
// of the same rows, a process run to its end with its peak memory.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';
import { fileURLToPath } from 'node:url';
import copyStreams from 'pg-copy-streams';
import { BenchFailure } from '../bench-failure.mjs';
import { cpuMicros, minorFaults } from '../cpu.mjs';
import { call, expectStatus, inParallel } from '../http-helpers.mjs';
import { median } from '../load-generator.mjs';
import { memoryOf, until } from '../processes.mjs';
import { connectBank } from './api-reads.mjs';

const COLUMNS = `id, merchant_id, account_id, dedupe_key, date, booking_date_time, value_date_time, status, amount,
  currency, description, reference, raw, created_at, updated_at`;
const dist = (path) => fileURLToPath(new URL(`../../../dist/${path}`, import.meta.url));

/** A process's CPU seconds and page faults so far, for costMeter. */
export const processCosts = (pid) => ({ cpu: () => cpuMicros(pid) / 1e6, faults: () => minorFaults(pid) });

/**
 * What a phase cost some processes (name → { cpu(), faults() }), read now and when the returned function is
 * called: CPU seconds, and page faults, each a first touch of fresh memory, a cost CPU figures hide.
 */
export function costMeter(processes) {
  const read = () => Object.entries(processes).map(([name, p]) => [name, p.cpu(), p.faults()]);
  const before = read();
  return () => {
    const after = read();
    const cpu = {};
    const faults = {};
    after.forEach(([name, c, f], i) => {
      cpu[name] = c - before[i][1];
      faults[name] = f - before[i][2];
    });
    return { cpu, faults };
  };
}

/** Samples a process's RSS every 100 ms until stopped: the peak over a phase, not only at its end. */
export function watchMemory(pid) {
  let peak = 0;
  const timer = setInterval(() => {
    try {
      const { rssMiB } = memoryOf(pid);
      // An exiting process's status no longer shows its RSS.
      if (Number.isFinite(rssMiB)) peak = Math.max(peak, rssMiB);
    } catch {
      clearInterval(timer);
    }
  }, 100);
  return { stop: () => (clearInterval(timer), peak) };
}

/** How many times COPY loads the rows: its rate is the median. */
export const COPY_ROUNDS = 3;

/**
 * The size of each CopyData message the baseline sends, as psql and the worker (libs/database copy-rows)
 * send a stream in pieces: one message of the whole text would cost Postgres a buffer as large, faulted in.
 */
const COPY_MESSAGE_BYTES = 64 << 10;

/** COPY of `rows` (COPY text format) into a fresh table like `transactions`, indexes included: rows/s. */
export async function copyRate(db, text, rows, rounds = COPY_ROUNDS) {
  await db.query('DROP TABLE IF EXISTS bench_copy_target');
  await db.query('CREATE TABLE bench_copy_target (LIKE transactions INCLUDING ALL)');
  const rates = [];
  for (let i = 0; i < rounds; i += 1) {
    await db.query('TRUNCATE bench_copy_target');
    const started = performance.now();
    await new Promise((resolve, reject) => {
      const stream = db.query(copyStreams.from(`COPY bench_copy_target (${COLUMNS}) FROM STDIN`));
      stream.on('error', reject);
      stream.on('finish', resolve);
      for (let at = 0; at < text.length; at += COPY_MESSAGE_BYTES) {
        stream.write(text.subarray(at, at + COPY_MESSAGE_BYTES));
      }
      stream.end();
    });
    rates.push(rows / ((performance.now() - started) / 1000));
  }
  await db.query('DROP TABLE bench_copy_target');
  return median(rates);
}

export async function copyOut(db) {
  const chunks = [];
  await new Promise((resolve, reject) => {
    const stream = db.query(copyStreams.to(`COPY (SELECT ${COLUMNS} FROM transactions) TO STDOUT`));
    stream.on('data', (c) => chunks.push(c));
    stream.on('error', reject);
    stream.on('end', resolve);
  });
  return Buffer.concat(chunks);
}

export function runProcess(script, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [dist(script)], {
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const memory = watchMemory(child.pid);
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('exit', (code) => {
      const peak = memory.stop();
      if (code !== 0) reject(new BenchFailure(`${script} exited ${code}: ${out.slice(-500)}`));
      else resolve({ out, peakRssMiB: peak });
    });
  });
}

/**
 * `count` users of the merchant (references `${reference}0`, `${reference}1`…), each with a bank connected
 * through the api and the sandbox: a current account of 6,500 transactions, a savings account of 467 and a
 * credit card of none, their first syncs queued. Their user ids.
 */
export function connectBanks(apiUrl, auth, count, reference) {
  return inParallel(count, 4, async (i) => {
    const user = await expectStatus(
      'POST /v1/users',
      call(apiUrl, 'POST', '/v1/users', auth, { reference: `${reference}${i}` }),
      201,
    );
    await connectBank(apiUrl, auth, user.body.data.id);
    return user.body.data.id;
  });
}

/** Until every account of the users has a sync run ended; a failed run or a worker gone fails the bench. */
export async function untilSyncsEnded(db, workers, userIds, ms = 300_000) {
  await until(
    'every initial sync ended',
    async () => {
      const gone = workers.find((w) => w.exited() !== null);
      if (gone) throw new BenchFailure(`${gone.name} exited: ${gone.logs()}`);
      const { rows } = await db.query(
        `SELECT (SELECT count(*)::int FROM accounts WHERE user_id = ANY($1)) AS accounts,
           count(*) FILTER (WHERE r.status IN ('SUCCEEDED', 'FAILED'))::int AS ended,
           count(*) FILTER (WHERE r.status = 'FAILED')::int AS failed
         FROM sync_runs r JOIN accounts a ON a.id = r.account_id WHERE a.user_id = ANY($1)`,
        [userIds],
      );
      if (rows[0].failed > 0)
        throw new BenchFailure(
          `${rows[0].failed} sync(s) failed: ${workers.map((w) => w.logs()).join('\n')}`,
        );
      return rows[0].ended === rows[0].accounts ? true : undefined;
    },
    ms,
  );
}

/**
 * The users' accounts' sync runs, taken as one batch: the rows they stored, from the first run's start to
 * the last one's end, and where their time went (summed over runs that overlap).
 */
export async function syncFigures(db, userIds) {
  const { rows } = await db.query(
    `SELECT (SELECT count(*)::int FROM transactions t JOIN accounts a ON a.id = t.account_id
              WHERE a.user_id = ANY($1)) AS rows,
       extract(epoch FROM max(r.finished_at) - min(r.started_at)) * 1000 AS ms,
       sum((r.checkpoint->>'upstreamMs')::numeric)::int AS "upstreamMs",
       sum((r.checkpoint->>'writeMs')::numeric)::int AS "writeMs",
       sum(extract(epoch FROM r.finished_at - r.started_at) * 1000)::int AS "runMs"
     FROM sync_runs r JOIN accounts a ON a.id = r.account_id WHERE a.user_id = ANY($1)`,
    [userIds],
  );
  return rows[0];
}

/** The users' first current account (6,500 transactions from the sandbox) and its first sync's ms. */
export async function currentAccountFirstSync(db, userIds) {
  const { rows } = await db.query(
    `SELECT a.id, extract(epoch FROM r.finished_at - r.started_at) * 1000 AS ms
     FROM accounts a JOIN sync_runs r ON r.account_id = a.id
     WHERE a.type = 'CURRENT' AND a.user_id = ANY($1) ORDER BY a.id, r.id LIMIT 1`,
    [userIds],
  );
  return rows[0];
}

/** A sync of the account asked for through the api, until it succeeded: the run as the api shows it, and its ms. */
export async function syncNow(apiUrl, auth, accountId) {
  const requested = await expectStatus(
    'POST sync',
    call(apiUrl, 'POST', `/v1/accounts/${accountId}/sync`, auth),
    202,
  );
  const run = await until(
    'the incremental sync ended',
    async () => {
      const found = (await call(apiUrl, 'GET', `/v1/syncs/${requested.body.data.syncId}`, auth)).body.data;
      if (found.status === 'failed')
        throw new BenchFailure(`incremental sync failed: ${JSON.stringify(found.error)}`);
      return found.status === 'succeeded' ? found : undefined;
    },
    60_000,
  );
  return { run, ms: Date.parse(run.finishedAt) - Date.parse(run.startedAt) };
}
