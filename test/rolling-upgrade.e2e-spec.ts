import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defaultMigrationsDir,
  describeRefusals,
  dropDatabase,
  ensureDatabase,
  incompatibleStatements,
  migrate,
  readMigrations,
} from '#libs/database';
import {
  ApiClient,
  buildRelease,
  type BuiltRelease,
  CONTRACT_FIXTURE,
  eventually,
  EXPAND_FIXTURE,
  fixtureMigration,
  MIGRATION_FIXTURES,
  paymentBodies,
  readReleases,
  type RunningHttpApp,
  spawnApi,
  spawnWorker,
  startSandbox,
  testConfig,
  uniqueName,
  uniqueQueuePrefix,
  WAIT,
  type WorkerProcess,
} from './kit/index.js';

// A rolling upgrade as an operator runs it (docs/upgrades.md): the previous release (the last
// of prisma/releases.json, built from git) serves merchants on a database it migrated itself; under that
// traffic this release's migrator applies this release's migrations and an expansion fixture (so the
// step is exercised even when the release adds none); this release's api and worker start beside it, the
// traffic moves to them, and the previous release is drained and stopped. Every request the previous
// release was sent must be answered without a 5xx, and every write it acknowledged must be there.

type Version = 'previous' | 'current';
interface Answer {
  version: Version;
  request: string;
  /** 0 when no answer came (the connection failed). */
  status: number;
  startedAt: number;
  endedAt: number;
}

const ADMIN_TOKEN = 'upgrade-admin-token';
/** Answers each phase waits for on the version it tests, before going on: enough to meet every route. */
const ANSWERS_PER_PHASE = 40;
const CLIENTS = 3;
/**
 * Users stored before the upgrade, so that the expansion's backfill and index take seconds, holding the
 * lock its ADD COLUMN took on "users" until the migration commits, as a release's would on a real table.
 */
const SEEDED_USERS = 100_000;
/**
 * Guards against a hang, sized for npm test's load: the build is about 50 s alone on two cores (tsc),
 * the upgrade about 40 s, and both can take twice that beside the suite's other files.
 */
const BUILD_TIMEOUT = 600_000;
const UPGRADE_TIMEOUT = 300_000;
const ROOT = fileURLToPath(new URL('../', import.meta.url));

describe('rolling upgrade: the previous release serves while this release migrates and takes over', () => {
  const previous = readReleases().at(-1)!;
  let release: BuiltRelease;
  let databaseUrl: string;
  let sandbox: RunningHttpApp;
  let migrationsDir: string;
  const processes: WorkerProcess[] = [];
  let env: Record<string, string>;

  const startApi = async (root: string) => {
    const api = await spawnApi(env, { root });
    processes.push(api);
    return api;
  };
  const startWorker = (root: string) => {
    const worker = spawnWorker(env, { root });
    processes.push(worker);
    return worker;
  };

  beforeAll(async () => {
    // Fails, never skips, when the release's commit is not in this clone (test/kit/releases.ts).
    release = await buildRelease(previous);
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/bff_upgrade_${process.pid}_${Math.random().toString(36).slice(2, 8)}_test`;
    databaseUrl = url.toString();
    await ensureDatabase(databaseUrl);
    // The database as the previous release left it: its own migrator, on its own migrations.
    execFileSync(process.execPath, [join(release.root, 'dist/libs/database/src/migrate.cli.js')], {
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
      stdio: 'pipe',
    });
    // This release's migrations, and the expansion a release of its kind would add.
    migrationsDir = await mkdtemp(join(tmpdir(), 'upgrade-migrations-'));
    await cp(defaultMigrationsDir(), migrationsDir, { recursive: true });
    await cp(join(MIGRATION_FIXTURES, EXPAND_FIXTURE), join(migrationsDir, EXPAND_FIXTURE), {
      recursive: true,
    });
    sandbox = await startSandbox(testConfig());
    env = {
      DATABASE_URL: databaseUrl,
      QUEUE_PREFIX: uniqueQueuePrefix('upgrade'),
      UPSTREAM_BASE_URL: sandbox.url,
      ADMIN_TOKEN,
      LOG_LEVEL: 'error',
      // Our own load is never refused: a 429 here would hide what the upgrade does.
      RATE_LIMIT_PER_MINUTE: '100000',
      WORKER_METRICS_PORT: '0',
    };
  }, BUILD_TIMEOUT);

  afterAll(async () => {
    for (const child of processes.reverse()) await child.stop();
    await sandbox?.close();
    if (migrationsDir) await rm(migrationsDir, { recursive: true, force: true });
    if (databaseUrl) await dropDatabase(databaseUrl);
  });

  it(
    'answers every request of the previous release without a 5xx, and keeps every write it acknowledged',
    async () => {
      const oldApi = await startApi(release.root);
      const oldWorker = startWorker(release.root);
      const operator = new ApiClient(oldApi.url, ADMIN_TOKEN);
      const merchant = await operator.post('/admin/merchants', { name: uniqueName('upgrade') });
      expect(merchant.status).toBe(201);
      const { apiKey, merchant: created } = (
        merchant.body as { data: { apiKey: { key: string }; merchant: { id: string } } }
      ).data;
      const key = apiKey.key;
      const db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
      await db.query(
        `INSERT INTO users (id, merchant_id, reference, application_user_id, updated_at)
       SELECT gen_random_uuid(), $1, 'seeded-' || g, 'seeded-' || g, now() FROM generate_series(1, $2) g`,
        [created.id, SEEDED_USERS],
      );

      let target: { version: Version; client: ApiClient } = {
        version: 'previous',
        client: new ApiClient(oldApi.url, key),
      };
      const answers: Answer[] = [];
      const inFlight = { previous: 0, current: 0 };
      const acknowledged = { users: [] as string[], consents: [] as string[], payments: [] as string[] };
      /** One request to whichever version takes the traffic when it is sent. */
      const send = async (
        request: string,
        call: (client: ApiClient) => Promise<{ status: number; body: any }>,
      ) => {
        const { version, client } = target;
        const startedAt = Date.now();
        inFlight[version] += 1;
        try {
          const answer = await call(client).catch(() => ({ status: 0, body: undefined }));
          answers.push({ version, request, status: answer.status, startedAt, endedAt: Date.now() });
          return answer;
        } finally {
          inFlight[version] -= 1;
        }
      };
      const idOf = (answer: { status: number; body: any }, list: string[]) => {
        const id =
          answer.status === 201 || answer.status === 200 ? (answer.body?.data?.id as string) : undefined;
        if (id) list.push(id);
        return id;
      };

      // Each client creates a user, starts a consent and a payment for it, and reads them back, in a loop.
      let running = true;
      const client = async (n: number) => {
        for (let i = 0; running; i += 1) {
          const reference = `upgrade-${n}-${i}-${randomUUID().slice(0, 8)}`;
          const userId = idOf(
            await send('POST /v1/users', (c) => c.post('/v1/users', { reference })),
            acknowledged.users,
          );
          if (!userId) continue;
          idOf(
            await send('POST /v1/users/{id}/consents', (c) =>
              c.post(`/v1/users/${userId}/consents`, {
                institutionId: 'sandbox-redirect',
                redirectUrl: 'https://app.merchant.example/banks/done',
              }),
            ),
            acknowledged.consents,
          );
          idOf(
            await send('POST /v1/users/{id}/payments', (c) =>
              c.post(`/v1/users/${userId}/payments`, paymentBodies.single(), {
                headers: { 'idempotency-key': randomUUID() },
              }),
            ),
            acknowledged.payments,
          );
          await send('GET /v1/users/{id}', (c) => c.get(`/v1/users/${userId}`));
          await send('GET /v1/users', (c) => c.get('/v1/users?limit=5'));
          await send('GET /v1/users/{id}/payments', (c) => c.get(`/v1/users/${userId}/payments`));
        }
      };
      const countAnswered = (version: Version, after = 0) =>
        answers.filter((a) => a.version === version && a.startedAt >= after).length;
      const answeredAtLeast = (what: string, version: Version, after = 0) =>
        eventually(
          what,
          () => (countAnswered(version, after) >= ANSWERS_PER_PHASE ? true : undefined),
          WAIT.work,
        );
      const clients = Array.from({ length: CLIENTS }, (_, n) => client(n));

      try {
        await answeredAtLeast('the previous release answering its traffic', 'previous');

        // 1. Migrate, under the previous release's traffic, with this release's migrator.
        const migrationStarted = Date.now();
        const migrated = await migrate(databaseUrl, migrationsDir);
        const migrationEnded = Date.now();
        expect(migrated.applied).toContain(EXPAND_FIXTURE);
        await answeredAtLeast(
          'the previous release answering on the migrated schema',
          'previous',
          migrationEnded,
        );

        // 2. Start this release beside it, on the same database and queues.
        const newApi = await startApi(ROOT);
        const newWorker = startWorker(ROOT);
        const shiftedAt = Date.now();
        target = { version: 'current', client: new ApiClient(newApi.url, key) };
        await answeredAtLeast('this release answering the traffic', 'current', shiftedAt);

        // 3. Drain the previous release: its last requests answered, then stopped as a deploy stops it.
        await eventually('the previous release’s last requests answered', () =>
          inFlight.previous === 0 ? true : undefined,
        );
        // No process ended unasked: the previous release lived through the migration.
        expect([oldApi, oldWorker, newApi, newWorker].map((p) => p.ended())).toEqual([
          false,
          false,
          false,
          false,
        ]);
        const stopping = Date.now();
        const oldApiEnd = await oldApi.signalled('SIGTERM');
        const oldWorkerEnd = await oldWorker.signalled('SIGTERM');
        expect(oldApiEnd.code, oldApi.output()).toBe(0);
        expect(oldWorkerEnd.code, oldWorker.output()).toBe(0);
        await answeredAtLeast('this release answering after the previous one stopped', 'current', stopping);

        running = false;
        await Promise.all(clients);
        expect([newApi.ended(), newWorker.ended()]).toEqual([false, false]);

        const old = answers.filter((a) => a.version === 'previous');
        const during = old.filter((a) => a.endedAt >= migrationStarted && a.startedAt <= migrationEnded);
        const slowest = Math.max(...during.map((a) => a.endedAt - a.startedAt));
        const failed = answers.filter((a) => a.status === 0 || a.status >= 500);
        console.log(
          `rolling upgrade from ${previous.name}: build ${release.buildSeconds} s (0 = reused), ` +
            `its dependencies ${release.sameDependencies ? 'the same as ours' : 'differ from ours (run on ours)'}, ` +
            `migration ${migrationEnded - migrationStarted} ms (${migrated.applied.join(', ')}, ${migrated.lockRetries} lock retries), ` +
            `previous release: ${old.length} requests (${during.length} during the migration, the slowest ${slowest} ms; ` +
            `${countAnswered('previous', migrationEnded)} after it), this release: ${countAnswered('current')}, ` +
            `5xx or no answer: ${failed.length}; previous api stopped in ${oldApiEnd.ms} ms; ` +
            `acknowledged: ${acknowledged.users.length} users, ${acknowledged.consents.length} consents, ` +
            `${acknowledged.payments.length} payments`,
        );
        expect(
          failed.map((a) => `${a.version} ${a.request}: ${a.status}`),
          `the apis' errors:\n${oldApi.output().slice(-4000)}\n${newApi.output().slice(-2000)}`,
        ).toEqual([]);
        const statuses = new Set(answers.map((a) => a.status));
        expect(
          [...statuses].every((s) => s === 200 || s === 201),
          [...statuses].join(', '),
        ).toBe(true);

        // Every write either version acknowledged is in the database.
        for (const [table, ids] of Object.entries(acknowledged)) {
          const { rows } = await db.query<{ n: string }>(
            `SELECT count(*) AS n FROM "${table}" WHERE id = ANY($1::uuid[])`,
            [ids],
          );
          expect(Number(rows[0].n), `${table} acknowledged and then missing`).toBe(ids.length);
        }
      } finally {
        running = false;
        await Promise.all(clients);
        await db.end();
      }
    },
    UPGRADE_TIMEOUT,
  );

  it('would break the previous release with a contraction, which the rule refuses', async () => {
    const contraction = fixtureMigration(CONTRACT_FIXTURE);
    const released = await readMigrations(defaultMigrationsDir());
    const refusals = incompatibleStatements({
      released,
      window: [contraction],
      releases: readReleases().map((r) => r.name),
    });
    expect(describeRefusals(refusals)).toContain('RENAME COLUMN "reference"');

    // Applied anyway, the previous release, which reads that column, fails its merchants.
    const oldApi = await startApi(release.root);
    const operator = new ApiClient(oldApi.url, ADMIN_TOKEN);
    const merchant = await operator.post('/admin/merchants', { name: uniqueName('contracted') });
    const key = (merchant.body as { data: { apiKey: { key: string } } }).data.apiKey.key;
    const client = new ApiClient(oldApi.url, key);
    expect((await client.post('/v1/users', { reference: 'before' })).status).toBe(201);
    await cp(join(MIGRATION_FIXTURES, CONTRACT_FIXTURE), join(migrationsDir, CONTRACT_FIXTURE), {
      recursive: true,
    });
    expect((await migrate(databaseUrl, migrationsDir)).applied).toEqual([CONTRACT_FIXTURE]);
    const after = await client.post('/v1/users', { reference: 'after' });
    expect(after.status, JSON.stringify(after.body)).toBe(500);
  });
});
