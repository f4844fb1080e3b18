// Scenario "api reads": the merchant API's page-view reads, each against the minimal Nest + passport app
// serving the same bytes from memory and from Postgres (test/bench/baselines.mjs) and against bare Fastify;
// conditional reads (304) against the same reads' 200s; `/transactions/live` against the sandbox alone
// serving the page it forwards. The api and the sandbox run as their own processes (built from dist/) on a
// database of their own (DATABASE_URL's name + `_bench`), so figures and memory are theirs.
import { Buffer } from 'node:buffer';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { USER_PRESENT } from '../../kit/user-present.mjs';
import { conditionalHeaders, sandboxLivePage, startNestBaselines } from '../baselines.mjs';
import { BenchFailure } from '../bench-failure.mjs';
import { cpuMicros } from '../cpu.mjs';
import { call, expectStatus, inParallel } from '../http-helpers.mjs';
import { benchPorts, onboardMerchant, startApi, startBare, startSandboxAndApi } from '../processes.mjs';
import { measureRounds, ratioOf } from '../rounds.mjs';
import { readTargets, settledMemory } from './api-reads-targets.mjs';

const USERS = 100;
/** --smoke: a page of a few users. */
const SMOKE_USERS = 5;

export function benchDatabaseUrl() {
  const url = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/bff');
  url.pathname = `${url.pathname.replace(/^\//, '') || 'bff'}_bench`;
  return url.toString();
}

/** A user of the merchant with a bank connected through the redirect flow, as a browser would. */
export async function connectBank(apiUrl, auth, userId, institutionId = 'sandbox-redirect') {
  const consent = await expectStatus(
    'POST consent',
    call(apiUrl, 'POST', `/v1/users/${userId}/consents`, auth, {
      institutionId,
      redirectUrl: 'https://example.com/banks/done',
    }),
    201,
  );
  const approved = await call(
    consent.body.data.authorisationUrl,
    'POST',
    '',
    {},
    { decision: 'approve' },
    { form: true },
  );
  if (!approved.headers.location) throw new BenchFailure(`bank page: no redirect (HTTP ${approved.status})`);
  const back = await call(approved.headers.location, 'GET', '');
  if (!String(back.headers.location ?? '').includes('status=AUTHORIZED')) {
    throw new BenchFailure(
      `consent callback: ${back.status} ${back.headers.location ?? back.text.slice(0, 200)}`,
    );
  }
}

export async function apiReads({ load, options, progress }) {
  const userCount = options.smoke ? SMOKE_USERS : USERS;
  const databaseUrl = benchDatabaseUrl();
  // The api at its default log level (info), what an operator runs: a read that succeeds writes no
  // access-log line there (it is logged at debug). BENCH_API_LOG_LEVEL=debug: with the line, to price it.
  const env = {
    DATABASE_URL: databaseUrl,
    QUEUE_PREFIX: 'bff-bench',
    LOG_LEVEL: process.env.BENCH_API_LOG_LEVEL,
  };
  progress(`migrating ${new URL(databaseUrl).pathname.slice(1)}`);
  const migrated = spawnSync(
    process.execPath,
    [fileURLToPath(new URL('../../../dist/libs/database/src/migrate.cli.js', import.meta.url))],
    { env: { ...process.env, ...env, LOG_LEVEL: 'warn' }, encoding: 'utf8' },
  );
  if (migrated.status !== 0)
    throw new BenchFailure(`migration failed: ${migrated.stderr || migrated.stdout}`);

  const closers = [];
  try {
    // Each app prints its collections (--trace-gc): the heap a read allocates, beside its CPU.
    const { sandbox, api } = await startSandboxAndApi(env, closers, { traceGc: true });
    // /live in an api process of its own: its 200 KiB pages leave collection work that would otherwise fall
    // on whichever read came next in the same process, and its own CPU per request would miss it.
    const apiLive = await startApi('api-live', env, sandbox, benchPorts().apiLive, closers, {
      traceGc: true,
    });

    progress(`on-boarding a merchant with ${userCount} users and a connected bank`);
    // As a merchant's app sends them while its user looks: live reads are the user's, not a bank's daily
    // allowance of reads without them (which four reads would spend).
    const { auth: key } = await onboardMerchant(api.url, `bench ${new Date().toISOString()}`);
    const auth = { ...key, ...USER_PRESENT };
    const run = Date.now().toString(36);
    const users = await inParallel(userCount, 8, async (i) => {
      const res = await expectStatus(
        'POST /v1/users',
        call(api.url, 'POST', '/v1/users', auth, { reference: `bench-${run}-${i}` }),
        201,
      );
      return res.body.data;
    });
    const user = users[0];
    await connectBank(api.url, auth, user.id);
    const accountsPath = `/v1/users/${user.id}/accounts`;
    const accounts = (await expectStatus('GET accounts', call(api.url, 'GET', accountsPath, auth))).body.data;
    const current = accounts.find((a) => a.type === 'CURRENT');
    if (!current) throw new BenchFailure('no CURRENT account after connecting the bank');
    const livePath = `/v1/accounts/${current.id}/transactions/live`;
    const usersPath = `/v1/users?limit=${userCount}`;
    // The api's cheapest route (no credentials, no data, 28 bytes) through the same hooks, metrics and
    // global guards as every other: the ceiling any read of this api can reach on this machine.
    const probePath = '/health/live';

    const { sandboxLive, sandboxPage } = await sandboxLivePage({
      databaseUrl,
      sandbox,
      userId: user.id,
      apiUrl: api.url,
      livePath,
      auth,
    });

    const bodies = new Map();
    for (const path of [accountsPath, usersPath, livePath, probePath]) {
      bodies.set(
        path,
        Buffer.from((await expectStatus(`GET ${path}`, call(api.url, 'GET', path, auth))).text),
      );
    }
    const bare = await startBare(bodies);
    closers.push(() => bare.close());
    const { nest, nestPg } = await startNestBaselines({
      bodies,
      auth,
      probePath,
      databaseUrl,
      fromPostgres: [accountsPath, usersPath],
      closers,
    });
    // CPU per request: the api's, the baselines' and the sandbox's whole processes; bare Fastify's thread,
    // the bench's main thread (the load generator runs on worker threads).
    const processCpu = (app) => ({
      cpu: () => cpuMicros(app.pid),
      cpuOf: 'process',
      ...(app.collectedMiB ? { collected: app.collectedMiB } : {}),
    });
    const bareCpu = { cpu: () => cpuMicros(process.pid, process.pid), cpuOf: 'thread' };
    // The hot reads (accounts, users) also against Nest reading Postgres, and as conditional reads.
    // The CPU and heap per request of each read at one even pace (--cpu-rate), but /live's: its ratio is
    // by req/s, and neither the api nor the sandbox serves 200 KiB pages at that pace.
    const reads = (key, label, path, { hot = false, served = api, cpuRate } = {}) =>
      [
        { key: `bare-${key}`, label: `bare Fastify, same bytes as ${label}`, baseUrl: bare.url, ...bareCpu },
        { key: `nest-${key}`, label: `minimal Nest + passport, same bytes as ${label}`, app: nest },
        hot && {
          key: `nestpg-${key}`,
          label: `minimal Nest + passport reading Postgres, same bytes as ${label}`,
          app: nestPg,
        },
        { key: `api-${key}`, label: `api ${label}`, app: served },
        // Its If-None-Match is the ETag of a first 200, asked for once it is chosen (conditionalHeaders).
        hot && {
          key: `api-${key}-304`,
          label: `api ${label}, If-None-Match → 304`,
          app: api,
          expectStatus: 304,
        },
      ]
        .filter(Boolean)
        .map(({ app, ...t }) => ({
          ...(app ? { baseUrl: app.url, headers: auth, ...processCpu(app) } : {}),
          ...t,
          ...(cpuRate === undefined ? {} : { cpuRate }),
          paths: [path],
          bodyBytes: t.expectStatus === 304 ? 0 : bodies.get(path).length,
        }));
    const targets = [
      ...reads('accounts', 'GET /v1/users/{id}/accounts', accountsPath, { hot: true }),
      ...reads('users', `GET /v1/users?limit=${userCount}`, usersPath, { hot: true }),
      ...reads('live', 'GET /v1/accounts/{id}/transactions/live (its own api process)', livePath, {
        served: apiLive,
        cpuRate: 0,
      }),
      ...reads('probe', 'GET /health/live (the ceiling)', probePath),
      {
        key: 'sandbox-live',
        label: 'sandbox alone, the page /live forwards',
        baseUrl: sandbox.url,
        paths: [sandboxLive],
        bodyBytes: Buffer.byteLength(sandboxPage.text),
        ...processCpu(sandbox),
        cpuRate: 0,
      },
    ];
    const unknown = (options.targets ?? []).filter((key) => !targets.some((t) => t.key === key));
    if (unknown.length || options.targets?.length === 0)
      throw new BenchFailure(`--targets takes some of ${targets.map((t) => t.key).join(', ')}`);
    const chosen = options.targets ? targets.filter((t) => options.targets.includes(t.key)) : targets;
    for (const t of chosen.filter((c) => c.expectStatus === 304)) {
      t.headers = await conditionalHeaders(api.url, t, auth);
    }
    // The api is measured as the issue's figures were: 50 keep-alive connections.
    const rows = await measureRounds(
      { load, options: { ...options, connections: options.apiConnections }, progress },
      chosen,
    );
    const byKey = Object.fromEntries(rows.map((r) => [r.key, r]));
    const relate = (key, base, field) => {
      if (byKey[key] && byKey[base]) byKey[key][field] = ratioOf(byKey[key], byKey[base]);
    };
    for (const key of ['accounts', 'users', 'live', 'probe']) {
      relate(`api-${key}`, `bare-${key}`, 'ratio');
      relate(`api-${key}`, `nest-${key}`, 'ratioToNest');
      relate(`api-${key}`, `nestpg-${key}`, 'ratioToNestPg');
      relate(`api-${key}-304`, `api-${key}`, 'ratioTo200');
    }
    relate('api-live', 'sandbox-live', 'ratioToSandbox');

    // Memory: the api's RSS when the load stops, then polled (every 100 ms, 30 s deadline) until it is
    // back under the target.
    const measured = [api, apiLive].filter((app) => chosen.some((t) => t.baseUrl === app.url));
    const memory = await settledMemory(measured);
    const checks = readTargets(byKey, options.apiConnections, memory);
    return {
      kind: 'api-reads',
      name: `api: page-view reads against a minimal Nest app (from memory, from Postgres) and bare Fastify, 304s against 200s, /live against the sandbox alone (${options.apiConnections} connections)`,
      rows,
      memory,
      targets: Object.fromEntries(checks.map((c) => [c.key, c.target])),
      meetsTarget: Object.fromEntries(checks.map((c) => [c.key, c.met])),
      notes: [
        ...memory.map(
          ({ name, atEnd, settled, settledAfterS }) =>
            `${name} memory: RSS ${atEnd.rssMiB.toFixed(0)} MiB when the load stopped (peak ${atEnd.peakRssMiB.toFixed(0)} MiB), ${settled.rssMiB.toFixed(0)} MiB ${settledAfterS.toFixed(0)} s later`,
        ),
        ...rows
          .filter((r) => r.settleCpuMsPerS.length > 0 && !r.key.startsWith('bare-'))
          .map(
            (r) =>
              `${r.key}: CPU ms each second after the full-speed rounds, with no request: ${r.settleCpuMsPerS.map((ms) => ms.toFixed(0)).join(', ')}`,
          ),
        ...checks.map(
          (c) =>
            `target: ${c.target} → ${c.met === 'not measured' ? 'not measured' : c.met === 'refused' ? `REFUSED: ${c.figure}` : `${c.figure}: ${c.met ? 'met' : 'NOT met'}`}`,
        ),
      ],
    };
  } finally {
    for (const close of closers.reverse()) {
      await close().catch((error) => progress(`close failed: ${error.message}`));
    }
  }
}
