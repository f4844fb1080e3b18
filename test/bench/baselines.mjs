// What the api reads are measured against, started and checked before any load: the minimal Nest apps
// (test/bench/minimal-nest.mjs), each its own process serving the api's bytes, one from memory (`nest-*`),
// one reading Postgres on every request (`nestpg-*`); the sandbox alone serving the page
// `/transactions/live` forwards; and the conditional reads (304) measured against the api's 200s.
import { Buffer } from 'node:buffer';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { USER_PRESENT } from '../kit/user-present.mjs';
import { BenchFailure } from './bench-failure.mjs';
import { call, expectStatus } from './http-helpers.mjs';
import { startApp } from './processes.mjs';

/** Where the baselines listen (beside the api and sandbox bench ports). */
const NEST_PORT = Number(process.env.BENCH_NEST_PORT ?? 3101);
const NEST_PG_PORT = Number(process.env.BENCH_NEST_PG_PORT ?? 3102);
const SANDBOX_ADMIN = { authorization: `Bearer ${process.env.SANDBOX_ADMIN_TOKEN ?? 'sandbox-admin-token'}` };
const APP_ID = process.env.UPSTREAM_APPLICATION_ID ?? '00000000-0000-4000-8000-000000000001';
const APP_SECRET = process.env.UPSTREAM_APPLICATION_SECRET ?? 'sandbox-secret';

/**
 * Starts both Nest baselines on `bodies` (path → the api's bytes), taking `auth`'s bearer token, ready once
 * `probePath` answers; each is pushed onto `closers` as soon as it runs. Each path either serves (the one
 * reading Postgres: those of `fromPostgres`) is read once, and the run fails unless the bytes are the
 * api's: a ratio to other bytes would lie.
 */
export async function startNestBaselines({ bodies, auth, probePath, databaseUrl, fromPostgres, closers }) {
  const bodiesFile = join(mkdtempSync(join(tmpdir(), 'bench-nest-')), 'bodies.json');
  writeFileSync(
    bodiesFile,
    JSON.stringify(Object.fromEntries([...bodies].map(([path, body]) => [path, body.toString('utf8')]))),
  );
  const env = { MINIMAL_BODIES: bodiesFile, MINIMAL_TOKEN: auth.authorization.slice('Bearer '.length) };
  const start = async (name, port, more) => {
    const app = await startApp(
      name,
      'test/bench/minimal-nest.mjs',
      { ...env, ...more, PORT: String(port) },
      probePath,
      port,
      // Its collections too, so the heap a read allocates compares like its CPU.
      { traceGc: true },
    );
    closers.push(() => app.stop());
    return app;
  };
  const nest = await start('minimal-nest', NEST_PORT, {});
  const nestPg = await start('minimal-nest-pg', NEST_PG_PORT, { MINIMAL_DATABASE_URL: databaseUrl });
  for (const [app, paths] of [
    [nest, [...bodies.keys()]],
    [nestPg, fromPostgres],
  ]) {
    for (const path of paths) {
      const res = await call(app.url, 'GET', path, auth);
      if (res.status !== 200 || !Buffer.from(res.text).equals(bodies.get(path))) {
        throw new BenchFailure(
          `${app.name} GET ${path}: HTTP ${res.status}, not the api's bytes: ${res.text.slice(0, 300)} / ${bodies.get(path).toString('utf8').slice(0, 300)}`,
        );
      }
    }
  }
  return { nest, nestPg };
}

/**
 * The page `/transactions/live` forwards, read from the sandbox directly: a consent of the same upstream
 * user (as the api registered it) at the same bank gives the same accounts and transactions. Fails unless
 * the api's page lists the same transactions.
 */
export async function sandboxLivePage({ databaseUrl, sandbox, userId, apiUrl, livePath, auth }) {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const [{ application_user_id: applicationUserId }] = (
    await db.query('SELECT application_user_id FROM users WHERE id = $1', [userId])
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
      // The user present, as the api's `auth` says: the bank counts no read of the page.
      ...USER_PRESENT,
    },
  };
  const sandboxPage = await expectStatus(
    'sandbox live page',
    call(sandbox.url, 'GET', sandboxLive.path, sandboxLive.headers),
  );
  const livePage = await expectStatus('GET live', call(apiUrl, 'GET', livePath, auth));
  const ids = (records) => records.map((t) => t.id).join();
  if (ids(sandboxPage.body.data) !== ids(livePage.body.data.transactions ?? livePage.body.data)) {
    throw new BenchFailure(
      `the api's /live page and the sandbox's page differ: ${livePage.text.slice(0, 300)} / ${sandboxPage.text.slice(0, 300)}`,
    );
  }
  return { sandboxLive, sandboxPage };
}

/**
 * A 304 target's headers: If-None-Match with the ETag of a first 200 of its read, checked once to answer
 * 304, so the load measures conditional reads (the load generator counts any other status as an error).
 */
export async function conditionalHeaders(apiUrl, target, auth) {
  const path = target.paths[0];
  const first = await expectStatus(`GET ${path}`, call(apiUrl, 'GET', path, auth));
  const etag = first.headers.etag;
  if (!etag) {
    throw new BenchFailure(
      `${target.key}: the api sent no ETag header on GET ${path}, so there is no conditional read to measure (leave it out with --targets)`,
    );
  }
  const headers = { ...auth, 'if-none-match': etag };
  const again = await call(apiUrl, 'GET', path, headers);
  if (again.status !== 304) {
    throw new BenchFailure(
      `${target.key}: GET ${path} with If-None-Match: ${etag} answered HTTP ${again.status}, not 304`,
    );
  }
  return headers;
}
