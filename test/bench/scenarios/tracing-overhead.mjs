// Scenario "tracing overhead": the hot reads (a user's accounts, a page of stored transactions) from an api
// with tracing on, exporting (OTLP http/protobuf, the default protocol) to a local receiver that accepts
// and discards what it is sent, against the same reads from an api with tracing off, in the same run. Two
// traced apis: one samples every request (the default, and the worst case), one 1 request in 10. All three
// run throughout on one database; each round loads a read's three apis in mirrored order (see measure).
// Besides req/s, each round reads the CPU time the measured api process spent (all its threads: the
// exporter's batches too) per request served. Its own database (DATABASE_URL's name + `_bench_tracing`).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { availableParallelism } from 'node:os';
import { BenchFailure } from '../bench-failure.mjs';
import { benchDatabaseUrl, recreateDatabase } from '../bench-store.mjs';
import { call, expectStatus } from '../http-helpers.mjs';
import { latencyStats, median } from '../load-generator.mjs';
import {
  benchPorts,
  onboardMerchant,
  startApi,
  startHeadless,
  startSandboxAndApi,
  tuned,
  until,
} from '../processes.mjs';
import { failureOf } from '../rounds.mjs';
import { connectBank } from './api-reads.mjs';

const QUEUE_PREFIX = 'bff-bench-tracing';
const TARGET = 0.85;
/** The second traced api's head sampling: parentbased_traceidratio with this ratio. */
const SAMPLED_RATIO = 0.1;

/** An OTLP/HTTP receiver that reads every export whole, answers success and keeps only the counts. */
async function startDiscardingReceiver() {
  const received = { requests: 0, bytes: 0 };
  const server = createServer((request, response) => {
    request.on('data', (chunk) => (received.bytes += chunk.length));
    request.on('end', () => {
      received.requests += 1;
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The measured apis on the last CPU; this process (the load generator's threads) and the other apps on the
 * others, when the machine has two or more and taskset (util-linux) is there. On a machine of two cores, a
 * load generator and an api scheduled onto one core by turns moved a round's CPU time per request by more
 * than the difference measured; apart, rounds agree far better. The apis take turns, so sharing the
 * core is fair. Answers the note to print.
 */
function pinApart(measured, others) {
  const cpus = availableParallelism();
  if (cpus < 2) return 'not pinned (one CPU)';
  const last = cpus - 1;
  const rest = last > 1 ? `0-${last - 1}` : '0';
  try {
    for (const app of measured) execFileSync('taskset', ['-a', '-p', '-c', String(last), String(app.pid)]);
    for (const pid of [process.pid, ...others.map((app) => app.pid)])
      execFileSync('taskset', ['-a', '-p', '-c', rest, String(pid)]);
  } catch (error) {
    return `not pinned (taskset: ${error.message.split('\n')[0]})`;
  }
  return `apis pinned to CPU ${last}; the load generator, sandbox and worker to CPU ${rest}`;
}

/** CPU seconds a process has used so far, all threads (Linux /proc; utime + stime in clock ticks). */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Load one target for one slice: its requests, elapsed time, latencies and the CPU its api process spent.
 */
async function slice({ load, options }, t, durationMs) {
  const before = cpuSeconds(t.pid);
  const result = await load('load', {
    baseUrl: t.baseUrl,
    paths: t.paths,
    headers: t.headers,
    connections: options.apiConnections,
    warmupMs: 0,
    warmupRequests: 0,
    durationMs,
    requests: options.maxRequests,
  });
  if (result.errorCount > 0) throw failureOf(t.label, result);
  return { result, cpuSeconds: cpuSeconds(t.pid) - before };
}

/**
 * Per read, its targets (off first) are loaded in mirrored order each round (A B C C B A, the starting
 * target rotating by round), so each target's two slices sit around the same moment and a drift in the
 * machine's load (this machine is shared) falls on all of them alike; a round's ratio compares the sums
 * of those slices. The first round warms up and is not counted. Per target: req/s, pooled latencies and
 * CPU milliseconds of its api process per request, by round.
 */
async function measure({ load, options, progress }, reads) {
  const acc = new Map(reads.flat().map((t) => [t.key, { samples: [], rounds: [] }]));
  for (let round = 0; round <= options.rounds; round += 1) {
    for (const targets of reads) {
      const rotated = targets.map((_, i) => targets[(i + round) % targets.length]);
      const sums = new Map(targets.map((t) => [t.key, { completed: 0, elapsedMs: 0, cpuSeconds: 0 }]));
      for (const t of [...rotated, ...[...rotated].reverse()]) {
        progress(`round ${round}/${options.rounds}${round === 0 ? ' (warm-up)' : ''}: ${t.label}`);
        const { result, cpuSeconds: cpu } = await slice(
          { load, options },
          t,
          round === 0 ? options.warmupMs / 2 : options.durationMs,
        );
        const sum = sums.get(t.key);
        sum.completed += result.completed;
        sum.elapsedMs += result.elapsedMs;
        sum.cpuSeconds += cpu;
        if (round > 0) acc.get(t.key).samples.push(result.samples);
      }
      if (round === 0) continue;
      for (const t of targets) {
        const sum = sums.get(t.key);
        acc.get(t.key).rounds.push({
          requests: sum.completed,
          rps: (sum.completed * 1000) / sum.elapsedMs,
          cpuMsPerRequest: (sum.cpuSeconds * 1000) / sum.completed,
        });
      }
    }
  }
  return reads.flat().map((t) => {
    const { samples, rounds } = acc.get(t.key);
    const all = Float64Array.from(samples.flatMap((s) => [...s]));
    return {
      key: t.key,
      label: t.label,
      requests: rounds.reduce((n, r) => n + r.requests, 0),
      rps: median(rounds.map((r) => r.rps)),
      cpuMsPerRequest: median(rounds.map((r) => r.cpuMsPerRequest)),
      latencyMs: latencyStats(all),
      rounds,
    };
  });
}

/** Traced ÷ untraced, per round (the same round's figures), and the median of the rounds. */
function versus(on, off) {
  const rps = on.rounds.map((r, i) => r.rps / off.rounds[i].rps);
  const cpu = on.rounds.map((r, i) => off.rounds[i].cpuMsPerRequest / r.cpuMsPerRequest);
  return { rpsByRound: rps, rps: median(rps), cpuByRound: cpu, cpu: median(cpu) };
}

export async function tracingOverhead({ load, options, progress }) {
  const databaseUrl = benchDatabaseUrl('tracing');
  const env = {
    DATABASE_URL: databaseUrl,
    QUEUE_PREFIX,
    ...tuned({ syncDispatchEverySeconds: 0, eventsSweepEverySeconds: 0 }),
  };
  const dropBenchDatabase = await recreateDatabase(databaseUrl, progress);

  const receiver = await startDiscardingReceiver();
  const closers = [() => receiver.close()];
  try {
    const { sandbox, api } = await startSandboxAndApi(env, closers);
    // Two traced apis beside the untraced one: every request sampled (the worst case, and the default),
    // and 1 request in 10 (what docs/observability.md#tracing suggests for busy read traffic).
    const basePort = Number(process.env.BENCH_TRACED_API_PORT ?? benchPorts().api + 1);
    const startTraced = (name, port, sampler) =>
      startApi(
        name,
        { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ...sampler },
        sandbox,
        port,
        closers,
      );
    const traced = await startTraced('api_traced', basePort, {});
    const sampledPort = Number(process.env.BENCH_SAMPLED_API_PORT ?? basePort + 1);
    const sampled = await startTraced('api_sampled', sampledPort, {
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: String(SAMPLED_RATIO),
    });
    const worker = startHeadless('worker', 'dist/apps/worker/src/main.js', {
      ...env,
      UPSTREAM_BASE_URL: sandbox.url,
    });
    closers.push(() => worker.stop());

    progress('on-boarding a merchant, connecting a bank and waiting for its first sync');
    const { auth } = await onboardMerchant(api.url, 'bench tracing');
    const user = await expectStatus(
      'POST /v1/users',
      call(api.url, 'POST', '/v1/users', auth, { reference: `bench-tracing-${Date.now().toString(36)}` }),
      201,
    );
    const userId = user.body.data.id;
    await connectBank(api.url, auth, userId);
    const accountsPath = `/v1/users/${userId}/accounts`;
    const accounts = (await expectStatus('GET accounts', call(api.url, 'GET', accountsPath, auth))).body.data;
    const current = accounts.find((a) => a.type === 'CURRENT');
    if (!current) throw new BenchFailure('no CURRENT account after connecting the bank');
    await until(
      'the first sync of the CURRENT account',
      async () => {
        const res = await call(api.url, 'GET', `/v1/accounts/${current.id}`, auth);
        return res.body?.data?.sync?.status === 'synced' ? true : undefined;
      },
      120_000,
    );
    const transactionsPath = `/v1/accounts/${current.id}/transactions?limit=100`;
    for (const base of [api.url, traced.url, sampled.url]) {
      for (const path of [accountsPath, transactionsPath])
        await expectStatus(`GET ${path}`, call(base, 'GET', path, auth));
    }

    const read = (key, label, path) =>
      [
        ['off', 'tracing off:', api],
        ['on', 'tracing on: ', traced],
        ['sampled', `sampled ${SAMPLED_RATIO}:`, sampled],
      ].map(([mode, prefix, app]) => ({
        key: `${mode}-${key}`,
        label: `${prefix} ${label}`,
        baseUrl: app.url,
        pid: app.pid,
        paths: [path],
        headers: auth,
      }));
    const reads = [
      read('accounts', 'GET /v1/users/{id}/accounts', accountsPath),
      read('transactions', 'GET /v1/accounts/{id}/transactions?limit=100', transactionsPath),
    ];
    const exportsBefore = { ...receiver.received };
    const pinned = pinApart([api, traced, sampled], [sandbox, worker]);
    const rows = await measure({ load, options, progress }, reads);
    const byKey = Object.fromEntries(rows.map((r) => [r.key, r]));
    for (const key of ['accounts', 'transactions'])
      for (const mode of ['on', 'sampled'])
        byKey[`${mode}-${key}`].ratio = versus(byKey[`${mode}-${key}`], byKey[`off-${key}`]);
    // Whatever was still buffered is exported within the SDK's schedule (5 s): wait for it, then count.
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    const exported = {
      requests: receiver.received.requests - exportsBefore.requests,
      mib: (receiver.received.bytes - exportsBefore.bytes) / 2 ** 20,
    };
    if (exported.requests === 0)
      throw new BenchFailure('the traced api exported nothing: tracing was not on');
    const ratios = ['accounts', 'transactions'].map((k) => byKey[`on-${k}`].ratio.rps);
    const met = ratios.every((r) => r >= TARGET);
    const sampledMet = ['accounts', 'transactions'].every((k) => byKey[`sampled-${k}`].ratio.rps >= TARGET);
    const times = (n) => `×${n.toFixed(2)}`;
    return {
      kind: 'tracing-overhead',
      name: `tracing overhead: the hot reads with tracing on (every request sampled, and 1 in ${Math.round(1 / SAMPLED_RATIO)}) vs off (${options.apiConnections} connections)`,
      rows,
      exported,
      target: TARGET,
      meetsTarget: met,
      sampledMeetsTarget: sampledMet,
      notes: [
        ...rows.map(
          (r) =>
            `${r.label}: ${r.rps.toFixed(1)} req/s, ${r.cpuMsPerRequest.toFixed(3)} CPU ms/request, p50 ${r.latencyMs.p50.toFixed(2)} ms, p99 ${r.latencyMs.p99.toFixed(2)} ms` +
            (r.ratio
              ? ` → ÷ off: req/s ${times(r.ratio.rps)} (rounds ${r.ratio.rpsByRound.map(times).join(' ')}), requests per CPU second ${times(r.ratio.cpu)} (rounds ${r.ratio.cpuByRound.map(times).join(' ')})`
              : ''),
        ),
        pinned,
        `exported while measured: ${exported.requests} OTLP requests, ${exported.mib.toFixed(1)} MiB (${process.env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf'}; one span per hot read, the request's: both are answered from the read cache)`,
        `target: tracing on ≥ ×${TARGET} of off in req/s for both reads (median of rounds): every request sampled → ${met ? 'met' : 'NOT met'}; 1 in ${Math.round(1 / SAMPLED_RATIO)} sampled → ${sampledMet ? 'met' : 'NOT met'}`,
      ],
    };
  } finally {
    for (const close of closers.reverse()) {
      await close().catch((error) => progress(`close failed: ${error.message}`));
    }
    await dropBenchDatabase().catch(() => undefined);
  }
}
