// Scenario "tracing overhead": the hot reads (a user's accounts, a page of stored transactions) from an api
// with tracing on, exporting every span (OTLP http/protobuf, the default protocol; every request sampled)
// to a local receiver that accepts and discards them, against the same reads from an api with tracing
// off, in the same run: both api processes run throughout on one database, and each round loads each
// target once, in a rotated order. Besides req/s, each round reads the CPU time the measured api process
// spent (all its threads: the exporter's batches too) per request served: on a shared machine that figure
// moves far less than req/s. Its own database (DATABASE_URL's name + `_bench_tracing`).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { BenchFailure } from '../bench-failure.mjs';
import { latencyStats, median } from '../load-generator.mjs';
import {
  benchDatabaseUrl,
  benchPorts,
  call,
  expectStatus,
  startApp,
  startHeadless,
  startSandboxAndApi,
  until,
} from '../processes.mjs';
import { failureOf } from '../rounds.mjs';
import { connectBank } from './api-reads.mjs';

const ADMIN_TOKEN = process.env.ADMIN_TOKEN ?? 'dev-admin-token-change-me';
const QUEUE_PREFIX = 'bff-bench-tracing';
const TARGET = 0.85;
const dist = (path) => fileURLToPath(new URL(`../../../dist/${path}`, import.meta.url));

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

/** CPU seconds a process has used so far, all threads (Linux /proc; utime + stime in clock ticks). */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Each target once per round, in a rotated order; the first round warms up and is not counted. Per
 * target: req/s, pooled latencies, and CPU milliseconds of its api process per request, by round.
 */
async function measure({ load, options, progress }, targets) {
  const acc = new Map(targets.map((t) => [t.key, { samples: [], rounds: [] }]));
  for (let round = 0; round <= options.rounds; round += 1) {
    for (let i = 0; i < targets.length; i += 1) {
      const t = targets[(i + round) % targets.length];
      progress(`round ${round}/${options.rounds}${round === 0 ? ' (warm-up)' : ''}: ${t.label}`);
      const before = cpuSeconds(t.pid);
      const result = await load('load', {
        baseUrl: t.baseUrl,
        paths: t.paths,
        headers: t.headers,
        connections: options.apiConnections,
        warmupMs: 0,
        warmupRequests: 0,
        durationMs: round === 0 ? options.warmupMs : options.durationMs,
        requests: options.maxRequests,
      });
      if (result.errorCount > 0) throw failureOf(t.label, result);
      if (round === 0) continue;
      const a = acc.get(t.key);
      a.samples.push(result.samples);
      a.rounds.push({
        requests: result.completed,
        rps: (result.completed * 1000) / result.elapsedMs,
        cpuMsPerRequest: ((cpuSeconds(t.pid) - before) * 1000) / result.completed,
      });
    }
  }
  return targets.map((t) => {
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
    SYNC_DISPATCH_EVERY_SECONDS: '0',
    EVENTS_SWEEP_SECONDS: '0',
    WORKER_METRICS_PORT: '0',
  };
  const { dropDatabase, ensureDatabase, migrate, defaultMigrationsDir } = await import(
    dist('libs/database/src/migrator.js')
  );
  progress(`database ${new URL(databaseUrl).pathname.slice(1)}: dropped, created, migrated`);
  await dropDatabase(databaseUrl);
  await ensureDatabase(databaseUrl);
  await migrate(databaseUrl, defaultMigrationsDir());

  const receiver = await startDiscardingReceiver();
  const closers = [() => receiver.close()];
  try {
    const { sandbox, api } = await startSandboxAndApi(env, closers);
    const port = Number(process.env.BENCH_TRACED_API_PORT ?? benchPorts().api + 1);
    const traced = await startApp(
      'api_traced',
      'dist/apps/api/src/main.js',
      {
        ...env,
        API_PORT: String(port),
        API_HOST: '127.0.0.1',
        API_PUBLIC_URL: `http://127.0.0.1:${port}`,
        UPSTREAM_BASE_URL: sandbox.url,
        RATE_LIMIT_PER_MINUTE: '1000000',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      },
      '/health/ready',
      port,
    );
    closers.push(() => traced.stop());
    const worker = startHeadless('worker', 'dist/apps/worker/src/main.js', {
      ...env,
      UPSTREAM_BASE_URL: sandbox.url,
    });
    closers.push(() => worker.stop());

    progress('on-boarding a merchant, connecting a bank and waiting for its first sync');
    const merchant = await expectStatus(
      'POST /admin/merchants',
      call(
        api.url,
        'POST',
        '/admin/merchants',
        { authorization: `Bearer ${ADMIN_TOKEN}` },
        { name: 'bench tracing' },
      ),
      201,
    );
    const auth = { authorization: `Bearer ${merchant.body.data.apiKey.key}` };
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
    for (const base of [api.url, traced.url]) {
      for (const path of [accountsPath, transactionsPath])
        await expectStatus(`GET ${path}`, call(base, 'GET', path, auth));
    }

    const pair = (key, label, path) => [
      {
        key: `off-${key}`,
        label: `tracing off: ${label}`,
        baseUrl: api.url,
        pid: api.pid,
        paths: [path],
        headers: auth,
      },
      {
        key: `on-${key}`,
        label: `tracing on:  ${label}`,
        baseUrl: traced.url,
        pid: traced.pid,
        paths: [path],
        headers: auth,
      },
    ];
    const targets = [
      ...pair('accounts', 'GET /v1/users/{id}/accounts', accountsPath),
      ...pair('transactions', 'GET /v1/accounts/{id}/transactions?limit=100', transactionsPath),
    ];
    const exportsBefore = { ...receiver.received };
    const rows = await measure({ load, options, progress }, targets);
    const byKey = Object.fromEntries(rows.map((r) => [r.key, r]));
    for (const key of ['accounts', 'transactions'])
      byKey[`on-${key}`].ratio = versus(byKey[`on-${key}`], byKey[`off-${key}`]);
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
    const times = (n) => `×${n.toFixed(2)}`;
    return {
      kind: 'tracing-overhead',
      name: `tracing overhead: the hot reads with tracing on (every span exported) vs off (${options.apiConnections} connections)`,
      rows,
      exported,
      target: TARGET,
      meetsTarget: met,
      notes: [
        ...rows.map(
          (r) =>
            `${r.label}: ${r.rps.toFixed(1)} req/s, ${r.cpuMsPerRequest.toFixed(3)} CPU ms/request, p50 ${r.latencyMs.p50.toFixed(2)} ms, p99 ${r.latencyMs.p99.toFixed(2)} ms` +
            (r.ratio
              ? ` → on ÷ off: req/s ${times(r.ratio.rps)} (rounds ${r.ratio.rpsByRound.map(times).join(' ')}), requests per CPU second ${times(r.ratio.cpu)} (rounds ${r.ratio.cpuByRound.map(times).join(' ')})`
              : ''),
        ),
        `exported while measured: ${exported.requests} OTLP requests, ${exported.mib.toFixed(1)} MiB (${process.env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf'}; sampler ${process.env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on'})`,
        `target: tracing on ≥ ×${TARGET} of off in req/s for both reads (median of rounds) → ${met ? 'met' : 'NOT met'}`,
      ],
    };
  } finally {
    for (const close of closers.reverse()) {
      await close().catch((error) => progress(`close failed: ${error.message}`));
    }
    await dropDatabase(databaseUrl).catch(() => undefined);
  }
}
