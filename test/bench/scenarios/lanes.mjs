// Scenario "lanes": work a person waits for, behind bulk work. A merchant's 75 accounts are synced on
// request twice: with the worker idle, and right after 10,000 upstream webhooks arrived (their fan-out
// queued in the worker). The figure is the p95 of request → run succeeded (sync_runs.queued_at →
// finished_at), flooded against idle, beside the worker's and Postgres's CPU seconds in each case. Its own
// database: DATABASE_URL's name + `_bench_lanes`, dropped and created.
import { fileURLToPath } from 'node:url';
import { BenchFailure } from '../bench-failure.mjs';
import { benchDatabaseUrl, freshStore } from '../bench-store.mjs';
import { cpuMicros } from '../cpu.mjs';
import { call, expectStatus, inParallel } from '../http-helpers.mjs';
import { percentile } from '../load-generator.mjs';
import {
  onboardMerchant,
  SCHEDULES_OFF,
  startConsumingWorker,
  startSandboxAndApi,
  until,
} from '../processes.mjs';
import { connectBank } from './api-reads.mjs';
import { signedWebhooks } from './events.mjs';

const QUEUE_PREFIX = 'bff-bench-lanes';
/** Consents at sandbox-redirect, three accounts each: the syncs asked for. */
const FULL = { consents: 25, flood: 10_000 };
/** --smoke: the same two cases, a few syncs behind a small flood. */
const SMOKE = { consents: 2, flood: 200 };
const TARGET_RATIO = 1.5;
/** The application the flood's webhooks name (events.mjs's `signedWebhooks`). */
const APPLICATION = 'bench-app';
const dist = (path) => fileURLToPath(new URL(`../../../dist/${path}`, import.meta.url));

/** Asks for a sync of every account at once and waits for every run to succeed: ms from request to end. */
async function syncAll(apiUrl, auth, db, accounts) {
  const runs = await inParallel(accounts.length, 16, async (i) => {
    const res = await expectStatus(
      'POST sync',
      call(apiUrl, 'POST', `/v1/accounts/${accounts[i]}/sync`, auth),
      202,
    );
    return res.body.data.syncId;
  });
  const done = await until(
    `${runs.length} syncs succeeded`,
    async () => {
      const { rows } = await db.query(
        `SELECT status, extract(epoch FROM finished_at - queued_at) * 1000 AS ms
           FROM sync_runs WHERE id = ANY($1::uuid[])`,
        [runs],
      );
      if (rows.some((r) => r.status === 'FAILED')) throw new BenchFailure('a sync asked for failed');
      return rows.every((r) => r.status === 'SUCCEEDED') ? rows.map((r) => Number(r.ms)) : undefined;
    },
    600_000,
    100,
  );
  return done.sort((a, b) => a - b);
}

export async function lanesBench({ load, options, progress, postgresCpu }) {
  const { consents: CONSENTS, flood: FLOOD } = options.smoke ? SMOKE : FULL;
  const databaseUrl = benchDatabaseUrl('lanes');
  const env = { DATABASE_URL: databaseUrl, QUEUE_PREFIX, ...SCHEDULES_OFF };
  const { SecretBox, generateWebhookSecret, webhookHeaders } = await import(dist('libs/crypto/src/index.js'));
  const { loadConfig } = await import(dist('libs/config/src/index.js'));
  const {
    queues: [syncQueue, eventsQueue],
    db,
    closers,
  } = await freshStore(databaseUrl, QUEUE_PREFIX, ['sync', 'events'], progress);
  try {
    // The receiver's secret, sealed as the admin route stores it (with the keys the apps will load).
    const secret = generateWebhookSecret();
    const box = new SecretBox(loadConfig({ ...process.env, ...env }).crypto.encryptionKeys);
    const sealed = box.seal(secret, `upstream-webhook:${APPLICATION}`);
    await db.query(
      `INSERT INTO upstream_webhooks (id, application_id, callback_url, secret_ciphertext, secret_key_id, updated_at)
       VALUES (gen_random_uuid(), $1, 'http://127.0.0.1/v1/webhooks/upstream', $2, $3, now())`,
      [APPLICATION, sealed.ciphertext, sealed.keyId],
    );
    const { sandbox, api } = await startSandboxAndApi(env, closers);
    const worker = await startConsumingWorker(
      { ...env, UPSTREAM_BASE_URL: sandbox.url },
      syncQueue,
      closers,
      60_000,
    );
    const { auth } = await onboardMerchant(api.url, 'lanes bench');
    progress(`connecting ${CONSENTS} consents (${CONSENTS * 3} accounts) and their first syncs`);
    await inParallel(CONSENTS, 5, async (i) => {
      const user = await expectStatus(
        'POST /v1/users',
        call(api.url, 'POST', '/v1/users', auth, { reference: `lanes-${i}` }),
        201,
      );
      await connectBank(api.url, auth, user.body.data.id);
    });
    const accounts = await until(
      'every first sync ended',
      async () => {
        const { rows } = await db.query(
          `SELECT a.id, bool_or(r.status = 'SUCCEEDED') AS synced FROM accounts a
             LEFT JOIN sync_runs r ON r.account_id = a.id GROUP BY a.id`,
        );
        return rows.length === CONSENTS * 3 && rows.every((r) => r.synced)
          ? rows.map((r) => r.id)
          : undefined;
      },
      300_000,
      200,
    );

    const measured = async (label, before) => {
      const cpu = { worker: cpuMicros(worker.pid), postgres: postgresCpu() };
      const extra = await before();
      const ms = await syncAll(api.url, auth, db, accounts);
      return {
        label,
        ...extra,
        p50Ms: percentile(ms, 50),
        p95Ms: percentile(ms, 95),
        maxMs: ms.at(-1),
        workerCpuS: (cpuMicros(worker.pid) - cpu.worker) / 1e6,
        postgresCpuS: postgresCpu() - cpu.postgres,
      };
    };
    progress(`idle: ${accounts.length} syncs asked at once`);
    const idle = await measured('idle', async () => ({}));
    progress(`flooded: ${FLOOD.toLocaleString('en')} upstream webhooks, then ${accounts.length} syncs`);
    const flooded = await measured('flooded', async () => {
      const sent = await load('load', {
        baseUrl: api.url,
        paths: signedWebhooks(webhookHeaders, secret, FLOOD, 'lanes', 'success'),
        connections: options.apiConnections,
        requests: FLOOD,
        durationMs: 30_000,
        expectStatus: 200,
      });
      if (sent.errorCount > 0 || sent.completed < FLOOD) {
        const e = sent.errors[0];
        throw new BenchFailure(`webhook flood: ${sent.completed} sent; ${e?.status ?? ''} ${e?.error ?? ''}`);
      }
      return { backlog: await eventsQueue.getJobCountByTypes('wait', 'prioritized', 'active') };
    });
    await until(
      'the flood fanned out',
      async () =>
        (await eventsQueue.getJobCountByTypes('wait', 'prioritized', 'active')) === 0 ? true : undefined,
      600_000,
      500,
    );
    const ratio = flooded.p95Ms / idle.p95Ms;
    const ms = (n) => `${Math.round(n)} ms`;
    return {
      kind: 'lanes',
      name: `lanes: ${accounts.length} syncs asked for, idle vs behind ${FLOOD.toLocaleString('en')} upstream webhooks`,
      cases: [idle, flooded],
      meetsTarget: ratio <= TARGET_RATIO,
      notes: [
        ...[idle, flooded].map(
          (c) =>
            `${c.label.padEnd(7)}: request → succeeded p50 ${ms(c.p50Ms)}, p95 ${ms(c.p95Ms)}, max ${ms(c.maxMs)}; ` +
            `CPU: worker ${c.workerCpuS.toFixed(1)} s, Postgres ${c.postgresCpuS.toFixed(1)} s` +
            (c.backlog === undefined ? '' : `; fan-out jobs waiting when the syncs were asked: ${c.backlog}`),
        ),
        `target: flooded p95 within ×${TARGET_RATIO} of idle → ×${ratio.toFixed(2)}: ${ratio <= TARGET_RATIO ? 'met' : 'NOT met'}`,
      ],
    };
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  }
}
