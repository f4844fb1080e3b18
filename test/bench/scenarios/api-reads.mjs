// Scenario "api reads": the merchant API's page-view reads, each against bare Fastify serving the same
// bytes, and `/transactions/live` also against the sandbox alone serving the page it forwards. The api
// and the sandbox run as their own processes (built from dist/) on a database of their own
// (DATABASE_URL's name + `_bench`), so figures and memory are theirs.
import { Buffer } from 'node:buffer';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { BenchFailure } from '../bench-failure.mjs';
import {
  call,
  expectStatus,
  inParallel,
  onboardMerchant,
  startApp,
  startBare,
  startSandboxAndApi,
} from '../processes.mjs';
import { cpuMicros, measureRounds, ratioOf } from '../rounds.mjs';

/** Where the minimal Nest baseline listens (beside the api and sandbox bench ports). */
const MINIMAL_NEST_PORT = Number(process.env.BENCH_NEST_PORT ?? 3101);

const USERS = 100;
const SANDBOX_ADMIN = { authorization: `Bearer ${process.env.SANDBOX_ADMIN_TOKEN ?? 'sandbox-admin-token'}` };
const APP_ID = process.env.UPSTREAM_APPLICATION_ID ?? '00000000-0000-4000-8000-000000000001';
const APP_SECRET = process.env.UPSTREAM_APPLICATION_SECRET ?? 'sandbox-secret';
const RSS_TARGET_MIB = 250;

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
  const databaseUrl = benchDatabaseUrl();
  const env = { DATABASE_URL: databaseUrl, QUEUE_PREFIX: 'bff-bench' };
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
    const { sandbox, api } = await startSandboxAndApi(env, closers);

    progress(`on-boarding a merchant with ${USERS} users and a connected bank`);
    const { auth } = await onboardMerchant(api.url, `bench ${new Date().toISOString()}`);
    const run = Date.now().toString(36);
    const users = await inParallel(USERS, 8, async (i) => {
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
    const usersPath = `/v1/users?limit=${USERS}`;
    // The api's cheapest route (no credentials, no data, 28 bytes) through the same hooks, metrics and
    // global guards as every other: the ceiling any read of this api can reach on this machine.
    const probePath = '/health/live';

    // The page /live forwards, read from the sandbox directly: a consent of the same upstream user (as
    // the api registered it) at the same bank gives the same accounts and transactions.
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    const [{ application_user_id: applicationUserId }] = (
      await db.query('SELECT application_user_id FROM users WHERE id = $1', [user.id])
    ).rows;
    await db.end();
    const direct = await expectStatus(
      'POST /sandbox/admin/consents',
      call(sandbox.url, 'POST', '/sandbox/admin/consents', SANDBOX_ADMIN, {
        institutionId: 'sandbox-redirect',
        applicationUserId,
      }),
      201,
    );
    const upstreamCurrent = direct.body.data.accounts.find((a) => a.accountType === 'CURRENT');
    const sandboxLive = {
      path: `/accounts/${upstreamCurrent.id}/real-time/transactions`,
      headers: {
        authorization: `Basic ${Buffer.from(`${APP_ID}:${APP_SECRET}`).toString('base64')}`,
        consent: direct.body.data.consentToken,
      },
    };
    const sandboxPage = await expectStatus(
      'sandbox live page',
      call(sandbox.url, 'GET', sandboxLive.path, sandboxLive.headers),
    );
    const livePage = await expectStatus('GET live', call(api.url, 'GET', livePath, auth));
    const ids = (records) => records.map((t) => t.id).join();
    if (ids(sandboxPage.body.data) !== ids(livePage.body.data.transactions ?? livePage.body.data)) {
      throw new BenchFailure(
        `the api's /live page and the sandbox's page differ: ${livePage.text.slice(0, 300)} / ${sandboxPage.text.slice(0, 300)}`,
      );
    }

    const bodies = new Map();
    for (const path of [accountsPath, usersPath, livePath, probePath]) {
      bodies.set(
        path,
        Buffer.from((await expectStatus(`GET ${path}`, call(api.url, 'GET', path, auth))).text),
      );
    }
    const bare = await startBare(bodies);
    closers.push(() => bare.close());
    // The minimal Nest + passport app (test/bench/minimal-nest.mjs), its own process, the same bytes.
    const bodiesFile = join(mkdtempSync(join(tmpdir(), 'bench-nest-')), 'bodies.json');
    writeFileSync(
      bodiesFile,
      JSON.stringify(Object.fromEntries([...bodies].map(([path, body]) => [path, body.toString('utf8')]))),
    );
    const nest = await startApp(
      'minimal-nest',
      'test/bench/minimal-nest.mjs',
      {
        MINIMAL_BODIES: bodiesFile,
        MINIMAL_TOKEN: auth.authorization.slice('Bearer '.length),
        PORT: String(MINIMAL_NEST_PORT),
      },
      probePath,
      MINIMAL_NEST_PORT,
    );
    closers.push(() => nest.stop());
    // CPU per request: the api's and the sandbox's whole processes; bare Fastify's thread, the bench's main
    // thread (the load generator runs on worker threads).
    const apiCpu = { cpu: () => cpuMicros(api.pid), cpuOf: 'process' };
    const bareCpu = { cpu: () => cpuMicros(process.pid, process.pid), cpuOf: 'thread' };
    const nestCpu = { cpu: () => cpuMicros(nest.pid), cpuOf: 'process' };
    const pair = (key, label, path) => [
      {
        key: `bare-${key}`,
        label: `bare Fastify, same bytes as ${label}`,
        baseUrl: bare.url,
        paths: [path],
        ...bareCpu,
      },
      {
        key: `nest-${key}`,
        label: `minimal Nest + passport, same bytes as ${label}`,
        baseUrl: nest.url,
        paths: [path],
        headers: auth,
        ...nestCpu,
      },
      { key: `api-${key}`, label: `api ${label}`, baseUrl: api.url, paths: [path], headers: auth, ...apiCpu },
    ];
    const targets = [
      ...pair('accounts', 'GET /v1/users/{id}/accounts', accountsPath),
      ...pair('users', `GET /v1/users?limit=${USERS}`, usersPath),
      ...pair('live', 'GET /v1/accounts/{id}/transactions/live', livePath),
      ...pair('probe', 'GET /health/live (the ceiling)', probePath),
      {
        key: 'sandbox-live',
        label: 'sandbox alone, the page /live forwards',
        baseUrl: sandbox.url,
        paths: [sandboxLive],
        cpu: () => cpuMicros(sandbox.pid),
        cpuOf: 'process',
      },
    ];
    for (const t of targets) t.bodyBytes = (bodies.get(t.paths[0]) ?? Buffer.from(sandboxPage.text)).length;
    // The api is measured as the issue's figures were: 50 keep-alive connections.
    const unknown = (options.targets ?? []).filter((key) => !targets.some((t) => t.key === key));
    if (unknown.length || options.targets?.length === 0)
      throw new BenchFailure(`--targets takes some of ${targets.map((t) => t.key).join(', ')}`);
    const chosen = options.targets ? targets.filter((t) => options.targets.includes(t.key)) : targets;
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
    }
    relate('api-live', 'sandbox-live', 'ratioToSandbox');

    // Memory: the api's RSS when the load stops, then polled (every 100 ms, 30 s deadline) until it is
    // back under the target.
    const atEnd = api.memory();
    const stoppedAt = Date.now();
    let settled = atEnd;
    while (settled.rssMiB >= RSS_TARGET_MIB && Date.now() - stoppedAt < 30_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      settled = api.memory();
    }
    const settledAfterS = (Date.now() - stoppedAt) / 1000;
    // With --targets, a target not measured is not met.
    const readsMet = ['accounts', 'users'].every(
      (k) => byKey[`api-${k}`]?.ratio?.rpsMedianOfRounds >= 0.25 && byKey[`api-${k}`].latencyMs.p99 < 50,
    );
    const liveMet = byKey['api-live']?.ratioToSandbox?.rpsMedianOfRounds >= 0.5;
    // CPU per request against the minimal Nest + passport app serving the same bytes (issue 57's measure).
    const versusNest = ['accounts', 'users', 'probe']
      .filter((k) => byKey[`api-${k}`]?.ratioToNest?.cpu !== undefined)
      .map((k) => `${k} ×${byKey[`api-${k}`].ratioToNest.cpu.toFixed(2)}`);
    return {
      kind: 'api-reads',
      name: `api: page-view reads against bare Fastify, /live against the sandbox alone (${options.apiConnections} connections)`,
      rows,
      memory: { atEnd, settled, settledAfterS },
      targets: { readsVsBare: 0.25, readsP99Ms: 50, liveVsSandbox: 0.5, rssMiB: RSS_TARGET_MIB },
      meetsTarget: { reads: readsMet, live: liveMet, memory: settled.rssMiB < RSS_TARGET_MIB },
      notes: [
        `targets: reads ≥ ×0.25 of bare with p99 < 50 ms → ${readsMet ? 'met' : 'NOT met'}; /live ≥ ×0.5 of the sandbox alone → ${liveMet ? 'met' : 'NOT met'} (median of rounds)`,
        ...(versusNest.length > 0
          ? [`api CPU per request vs the minimal Nest + passport app: ${versusNest.join(', ')}`]
          : []),
        `api memory: RSS ${atEnd.rssMiB.toFixed(0)} MiB when the load stopped (peak ${atEnd.peakRssMiB.toFixed(0)} MiB), ${settled.rssMiB.toFixed(0)} MiB ${settledAfterS.toFixed(0)} s later → under ${RSS_TARGET_MIB} MiB within 30 s: ${settled.rssMiB < RSS_TARGET_MIB ? 'met' : 'NOT met'}`,
      ],
    };
  } finally {
    for (const close of closers.reverse()) {
      await close().catch((error) => progress(`close failed: ${error.message}`));
    }
  }
}
