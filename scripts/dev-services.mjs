// Postgres and Redis for scripts/dev.mjs: left alone when they answer, started when they are local and
// not running (and stopped again on the way out), a clear failure otherwise. Node built-ins only.
import { existsSync, readdirSync } from 'node:fs';
import { isLocal, reachable, waitUntil } from './dev-probes.mjs';
import { cleanups, fail, mustRun, run, step } from './dev-steps.mjs';

async function waitFor(check, what, deadlineMs) {
  if (!(await waitUntil(check, deadlineMs))) fail(`${what} did not come up within ${deadlineMs / 1000}s`);
}

/** The newest local Postgres cluster's version (Debian's layout), or undefined. */
function localPostgresVersion() {
  const versions = existsSync('/etc/postgresql')
    ? readdirSync('/etc/postgresql')
        .filter((v) => /^\d+(\.\d+)?$/.test(v))
        .sort((a, b) => Number(a) - Number(b))
    : [];
  return versions.at(-1);
}

export async function ensurePostgres(databaseUrl) {
  const url = new URL(databaseUrl);
  const host = url.hostname;
  const port = Number(url.port || 5432);
  if (await reachable(host, port)) return;
  if (!isLocal(host)) fail(`Postgres at ${host}:${port} is not reachable (DATABASE_URL).`);
  const version = localPostgresVersion();
  if (version === undefined) {
    fail(
      `Postgres is not running on ${host}:${port} and no local cluster was found. Start one, or run: docker compose up -d postgres redis`,
    );
  }
  step(`Starting Postgres ${version}`);
  mustRun('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start']);
  cleanups.push(() =>
    run('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'stop'], { stdio: 'ignore' }),
  );
  await waitFor(() => reachable(host, port), 'Postgres', 30_000);
}

export async function ensureRedis(redisUrl) {
  const url = new URL(redisUrl);
  const host = url.hostname;
  const port = Number(url.port || 6379);
  if (await reachable(host, port)) return;
  if (!isLocal(host)) fail(`Redis at ${host}:${port} is not reachable (REDIS_URL).`);
  step('Starting Redis');
  const status = run('redis-server', [
    '--daemonize',
    'yes',
    '--bind',
    '127.0.0.1',
    '--port',
    String(port),
    '--save',
    '',
    '--appendonly',
    'no',
  ]);
  if (status !== 0)
    fail(
      `Redis is not running on ${host}:${port} and redis-server could not start it. Or run: docker compose up -d postgres redis`,
    );
  cleanups.push(() => run('redis-cli', ['-p', String(port), 'shutdown', 'nosave'], { stdio: 'ignore' }));
  await waitFor(() => reachable(host, port), 'Redis', 30_000);
}
