// Scenario "reconcile": the upstream calls one full reconciliation pass makes over 10,000 authorised
// consents (2,500 users with 4 each), counted at the sandbox by rules that only count (`/consents`
// listings and `/consents/{id}` single reads), as the worker runs it (`consents.reconcile` jobs until
// every consent was checked). Reading one consent at a time, a pass made one single read per consent:
// the baseline printed beside it. Own database (DATABASE_URL's name + `_bench_reconcile`) and sandbox.
import { Queue } from 'bullmq';
import pg from 'pg';
import { BenchFailure } from '../bench-failure.mjs';
import { benchDatabaseUrl, recreateDatabase } from '../bench-store.mjs';
import { call, expectStatus, inParallel } from '../http-helpers.mjs';
import { jobFinished, SCHEDULES_OFF, startBenchSandbox, startConsumingWorker } from '../processes.mjs';

const FULL_USERS = 2_500;
/** --smoke: a pass over a hundred consents. */
const SMOKE_USERS = 25;
const PER_USER = 4;
const QUEUE_PREFIX = 'bff-bench-reconcile';
/** The target: at least this many times fewer upstream calls than one read per consent. */
const TARGET_FACTOR = 10;
const ADMIN = { authorization: `Bearer ${process.env.SANDBOX_ADMIN_TOKEN ?? 'sandbox-admin-token'}` };

export async function reconcileBench({ options, progress }) {
  const USERS = options.smoke ? SMOKE_USERS : FULL_USERS;
  const CONSENTS = USERS * PER_USER;
  const databaseUrl = benchDatabaseUrl('reconcile');
  await recreateDatabase(databaseUrl, progress);
  const sandbox = await startBenchSandbox();
  const closers = [() => sandbox.stop()];
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
  const queue = new Queue('consents', { connection: { url: redisUrl }, prefix: `{${QUEUE_PREFIX}}` });
  closers.push(() => queue.close());
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  closers.push(() => db.end());
  try {
    await queue.obliterate({ force: true });
    progress(`${CONSENTS.toLocaleString('en')} authorised consents at the sandbox, ${PER_USER} per user`);
    const upstreamIds = await inParallel(CONSENTS, 16, async (i) => {
      const res = await expectStatus(
        'POST /sandbox/admin/consents',
        call(sandbox.url, 'POST', '/sandbox/admin/consents', ADMIN, {
          institutionId: 'sandbox-redirect',
          applicationUserId: `bench-reconcile-${Math.floor(i / PER_USER)}`,
        }),
        201,
      );
      return res.body.data.id;
    });
    if (upstreamIds.some((id) => typeof id !== 'string')) throw new BenchFailure('a consent without an id');
    await db.query(
      `WITH m AS (INSERT INTO merchants (id, name, updated_at) VALUES (gen_random_uuid(), 'reconcile bench', now()) RETURNING id),
            u AS (INSERT INTO users (id, merchant_id, reference, application_user_id, updated_at)
                  SELECT gen_random_uuid(), m.id, 'bench-reconcile-' || n, 'bench-reconcile-' || n, now()
                  FROM m, generate_series(0, $1 - 1) AS n RETURNING id, merchant_id, application_user_id)
       INSERT INTO consents (id, merchant_id, user_id, kind, flow, upstream_consent_id, institution_id, status, expires_at, updated_at)
       SELECT uuid_generate_v7(), u.merchant_id, u.id, 'ACCOUNT', 'REDIRECT', ids.id, 'sandbox-redirect',
              'AUTHORIZED', now() + interval '60 days', now()
       FROM unnest($2::text[]) WITH ORDINALITY AS ids (id, n)
       JOIN u ON u.application_user_id = 'bench-reconcile-' || ((ids.n - 1) / $3)`,
      [USERS, upstreamIds, PER_USER],
    );

    const counter = async (path) =>
      (
        await expectStatus(
          `POST /sandbox/admin/faults ${path}`,
          call(sandbox.url, 'POST', '/sandbox/admin/faults', ADMIN, { method: 'GET', path, latencyMs: 1 }),
          201,
        )
      ).body.data.id;
    const counters = { listings: await counter('/consents'), reads: await counter('/consents/*') };

    progress('the worker, its schedules off: each reconciliation runs when this bench adds its job');
    await startConsumingWorker(
      { ...SCHEDULES_OFF, DATABASE_URL: databaseUrl, QUEUE_PREFIX, UPSTREAM_BASE_URL: sandbox.url },
      queue,
      closers,
      30_000,
    );
    const started = Date.now();
    let checked = 0;
    let runs = 0;
    while (checked < CONSENTS) {
      const job = await queue.add('consents.reconcile', {}, { attempts: 1 });
      const done = await jobFinished(queue, job, `reconciliation run ${runs + 1}`, 300_000);
      runs += 1;
      const result = done.returnvalue ?? {};
      if (result.failed) throw new BenchFailure(`reconciliation run ${runs}: ${result.failed} failed`);
      if (!result.checked) throw new BenchFailure(`reconciliation run ${runs} checked nothing`);
      checked += result.checked;
    }
    const seconds = (Date.now() - started) / 1000;
    const faults = (
      await expectStatus(
        'GET /sandbox/admin/faults',
        call(sandbox.url, 'GET', '/sandbox/admin/faults', ADMIN),
      )
    ).body.data;
    const hits = (id) => faults.find((rule) => rule.id === id)?.hits ?? 0;
    const listings = hits(counters.listings);
    const reads = hits(counters.reads);
    const calls = listings + reads;
    const factor = CONSENTS / calls;
    const met = factor >= TARGET_FACTOR;
    progress(`${calls} upstream calls for ${CONSENTS} consents`);
    return {
      kind: 'reconcile',
      name: `reconciliation of ${CONSENTS.toLocaleString('en')} authorised consents (${USERS.toLocaleString('en')} users × ${PER_USER})`,
      consents: CONSENTS,
      runs,
      listings,
      reads,
      seconds,
      meetsTarget: met,
      notes: [
        `${runs} run(s), ${seconds.toFixed(1)} s: ${listings} listing(s) + ${reads} single read(s) = ${calls} upstream calls`,
        `one read per consent (before): ${CONSENTS.toLocaleString('en')} calls; now ×${factor.toFixed(0)} fewer`,
        `target at least ×${TARGET_FACTOR} fewer → ${met ? 'met' : 'NOT met'}`,
      ],
    };
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  }
}
