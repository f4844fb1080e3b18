import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { UserRepository } from '#libs/domain/users';
import { ALL_QUEUES, JobProducerService } from '#libs/queue';
import { WorkerMetricsServer } from '../apps/worker/src/metrics/worker-metrics.server.js';
import {
  accountsWhenSynced,
  ApiClient,
  connectBank,
  createPaymentRow,
  createUser,
  createVrpConsentRow,
  eventually,
  freePort,
  sandboxOf,
  tuned,
  upstreamConsentId,
  useReceiver,
  useStack,
  useTenant,
} from './kit/index.js';
import {
  alertRules,
  dashboardExpressions,
  metricNamesIn,
  samplesOf,
  type Scrape,
  scrape,
  valueOf,
} from './kit/metrics-kit.js';

const INSTITUTION = 'sandbox-redirect';
const JOB_STATES = ['waiting', 'prioritized', 'active', 'delayed', 'waiting-children', 'failed'];

/**
 * The domain metrics after a real flow, scraped from the api's /metrics and the worker's own listener: a
 * bank connected (its first sync meeting a 429) and another revoked at the bank (its webhook through the
 * inbox), events delivered to one endpoint and failing at a dead one, the api's breaker opened by a bank
 * failing, and payments in flight: one parked for a person, one the bank has not acknowledged for 40
 * minutes. The worker's database and queue gauges are read every second here
 * (tuning.workerMetricsRefreshSeconds).
 */
describe('domain metrics after the flow', () => {
  const stack = useStack(async () => ({
    ownDatabase: 'metrics_domain',
    worker: true,
    overrides: {
      WORKER_METRICS_PORT: String(await freePort()),
      ...tuned({ workerMetricsRefreshSeconds: 1 }),
    },
  }));
  const tenant = useTenant(stack);
  const sandbox = sandboxOf(stack);
  const receiver = useReceiver();
  let workerMetrics: string;
  let syncedAccounts: number;
  let accepted: number;
  let api: Scrape;
  let worker: Scrape;
  let parkedId: string;
  let liveAccountId: string;

  const fault = async (rule: Record<string, unknown>) =>
    expect((await sandbox.admin('POST', '/faults', rule)).status).toBe(201);

  beforeAll(async () => {
    workerMetrics = `${stack.worker!.app.get(WorkerMetricsServer).url}/metrics`;
    expect((await tenant.client.post('/v1/event-endpoints', { url: receiver.url })).status).toBe(201);
    const dead = `http://127.0.0.1:${await freePort()}/gone`;
    expect((await tenant.client.post('/v1/event-endpoints', { url: dead })).status).toBe(201);
    const registered = await stack.operator.post('/admin/upstream/webhooks', {
      callbackUrl: `${stack.api.url}/v1/webhooks/upstream`,
    });
    expect(registered.status).toBe(201);

    // Institutions listed by each process: their ids may label its upstream metrics (others are `other`).
    expect((await stack.operator.post('/admin/institutions/refresh')).status).toBe(200);
    const refresh = await stack.api.app
      .get(JobProducerService)
      .enqueue('maintenance.refresh-institutions', {});
    await eventually('the worker listed the institutions', async () =>
      (await refresh.isCompleted()) ? true : undefined,
    );

    // The first sync meets the upstream's 429 once and retries.
    await fault({ method: 'GET', path: '/accounts/*/transactions', status: 429, count: 1 });
    const apps = { apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url };
    const inThreeDays = new Date(Date.now() + 3 * 86_400_000).toISOString();
    await connectBank(apps, tenant.merchant.apiKey.key, tenant.userId, INSTITUTION, {
      expiresAt: inThreeDays,
    });
    const accounts = await accountsWhenSynced(tenant.client, tenant.userId);
    liveAccountId = accounts[0].id;
    syncedAccounts = accounts.length;

    // Another user's consent, revoked at the bank: the sandbox's webhook goes through the inbox.
    const other = await createUser(stack.api.app.get(UserRepository), tenant.merchant.merchant.id);
    const revokedId = await connectBank(apps, tenant.merchant.apiKey.key, other.id, INSTITUTION);
    await accountsWhenSynced(tenant.client, other.id);
    const revoked = await sandbox.admin(
      'POST',
      `/consents/${await upstreamConsentId(stack, revokedId)}/revoke`,
    );
    expect(revoked.status).toBeLessThan(300);
    await eventually('the revocation delivered', () =>
      receiver.accepted().some((event) => event.type === 'consent.revoked') ? true : undefined,
    );

    // Payments as the submission and the poll leave them, written straight in: a VRP payment parked (a
    // repeated send refused) two hours after its creation, one SUBMITTING for 40 minutes (created
    // earlier: the age is the status's), one at a status of the bank's we do not name, and one final.
    // Their checks are an hour away or none, so the worker's status poll leaves them as they are.
    const prisma = stack.api.app.get(PrismaService);
    const vrpConsent = await createVrpConsentRow(
      prisma,
      stack.api.config,
      { id: tenant.userId, merchantId: tenant.merchant.merchant.id },
      { consentId: 'metrics-vrp-consent', consentToken: 'metrics-vrp-token' },
    );
    const inAnHour = new Date(Date.now() + 3_600_000);
    const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
    const parked = await createPaymentRow(prisma, vrpConsent, {
      kind: 'VRP',
      status: 'SUBMITTING',
      nextStatusCheckAt: null,
      pollStopped: 'A repeated send was refused: 409',
    });
    parkedId = parked.id;
    const submitting = await createPaymentRow(prisma, vrpConsent, {
      kind: 'VRP',
      status: 'SUBMITTING',
      nextStatusCheckAt: inAnHour,
    });
    await createPaymentRow(prisma, vrpConsent, {
      kind: 'VRP',
      status: 'ACCEPTED_SETTLEMENT_IN_PROCESS',
      nextStatusCheckAt: inAnHour,
    });
    await createPaymentRow(prisma, vrpConsent, { kind: 'VRP', status: 'COMPLETED', nextStatusCheckAt: null });
    await prisma.payment.update({ where: { id: parked.id }, data: { createdAt: minutesAgo(120) } });
    await prisma.payment.update({
      where: { id: submitting.id },
      data: { createdAt: minutesAgo(180), statusUpdatedAt: minutesAgo(40) },
    });

    // The worker's figures once they all hold (its gauges are read every second here).
    worker = await eventually('the worker’s domain metrics', async () => {
      // Counted once the endpoint's answer is recorded, so only after the receiver has the event.
      accepted = receiver.accepted().length;
      const w = await scrape(workerMetrics);
      const settled =
        (valueOf(w, 'bff_event_delivery_attempts_total', { result: 'delivered' }) ?? 0) >= accepted &&
        valueOf(w, 'bff_sync_lag_seconds_count') === syncedAccounts &&
        valueOf(w, 'bff_consents', { status: 'REVOKED', kind: 'ACCOUNT' }) === 1 &&
        (valueOf(w, 'bff_event_delivery_attempts_total', { result: 'retrying' }) ?? 0) >= 1 &&
        valueOf(w, 'bff_event_endpoints', { state: 'failing' }) === 1 &&
        valueOf(w, 'bff_inbox_events', { status: 'received' }) === 0 &&
        valueOf(w, 'bff_payments_parked') === 1 &&
        valueOf(w, 'bff_payments_submitting') === 1 &&
        // Read after the payments were backdated (rows are written first, then aged).
        (valueOf(w, 'bff_payments_submitting_oldest_seconds') ?? 0) > 1800 &&
        (valueOf(w, 'bff_payments_parked_oldest_seconds') ?? 0) > 3600 &&
        // The first sync's 429, once its call is written (within about a second).
        (valueOf(w, 'bff_institution_last_hour_error_ratio', { institution: INSTITUTION }) ?? 0) > 0;
      return settled ? w : undefined;
    });

    // The api's live read meets a 429 once, then the bank fails until the api's breaker for it opens
    // (scraped at once: it shows open for 30 s, then awaits its test call).
    const live = `/v1/accounts/${accounts[0].id}/transactions/live`;
    await fault({ method: 'GET', path: '/accounts/*/real-time/transactions', status: 429, count: 1 });
    expect((await tenant.client.get(live)).status).toBe(200);
    await fault({ method: 'GET', path: '/accounts/*/real-time/transactions', status: 424, count: 5 });
    for (let i = 0; i < 2; i++) expect((await tenant.client.get(live)).status).toBeGreaterThanOrEqual(400);
    api = await scrape(`${stack.api.url}/metrics`);
  }, 180_000);

  it('sync lag: a histogram of the synced accounts, all synced within 5 minutes; none awaiting a first sync', () => {
    expect(syncedAccounts).toBeGreaterThan(0);
    expect(valueOf(worker, 'bff_sync_lag_seconds_count')).toBe(syncedAccounts);
    expect(valueOf(worker, 'bff_sync_lag_seconds_bucket', { le: '300' })).toBe(syncedAccounts);
    expect(valueOf(worker, 'bff_sync_lag_seconds_bucket', { le: '+Inf' })).toBe(syncedAccounts);
    const sum = valueOf(worker, 'bff_sync_lag_seconds_sum')!;
    expect(sum).toBeGreaterThanOrEqual(0);
    expect(sum).toBeLessThan(300 * syncedAccounts);
    expect(valueOf(worker, 'bff_sync_accounts_awaiting_first_sync')).toBe(0);
  });

  it('consents by status and kind, and the one expiring in three days as not yet asked to renew', () => {
    expect(valueOf(worker, 'bff_consents', { status: 'AUTHORIZED', kind: 'ACCOUNT' })).toBe(1);
    expect(valueOf(worker, 'bff_consents', { status: 'REVOKED', kind: 'ACCOUNT' })).toBe(1);
    expect(valueOf(worker, 'bff_consents', { status: 'EXPIRED', kind: 'PAYMENT' })).toBe(0);
    expect(valueOf(worker, 'bff_consents_expiring', { within: '7d', renewal: 'not_requested' })).toBe(1);
    expect(valueOf(worker, 'bff_consents_expiring', { within: '1d', renewal: 'not_requested' })).toBe(0);
    expect(valueOf(worker, 'bff_consents_expiring', { within: '7d', renewal: 'requested' })).toBe(0);
  });

  it("the last day's connections by institution and outcome: both authorised, the revoked one too", () => {
    const of = (outcome: string) =>
      valueOf(worker, 'bff_consent_conversion_last_day', { institution: 'sandbox-redirect', outcome });
    expect(of('started')).toBe(2);
    expect(of('authorised')).toBe(2);
    const ended = ['rejected', 'abandoned', 'failed', 'pending'].map(of);
    expect(ended).toEqual([0, 0, 0, 0]);
    expect(of('first_synced')).toBeGreaterThanOrEqual(1);
  });

  it("the last hour's calls by institution: the 429 the first sync met is the bank's error", () => {
    const institution = { institution: INSTITUTION };
    const calls = valueOf(worker, 'bff_institution_last_hour_calls', institution)!;
    expect(calls).toBeGreaterThan(1);
    const ratio = valueOf(worker, 'bff_institution_last_hour_error_ratio', institution)!;
    expect(ratio * calls).toBeCloseTo(Math.round(ratio * calls), 9);
    expect(ratio).toBeGreaterThan(0);
    expect(ratio).toBeLessThan(1);
    expect(valueOf(worker, 'bff_institution_last_hour_p95_seconds', institution)).toBeGreaterThan(0);
  });

  it('queue depth per state and the oldest waiting job, for every queue', () => {
    for (const queue of ALL_QUEUES) {
      for (const state of JOB_STATES) {
        expect(
          valueOf(worker, 'bff_queue_jobs', { queue, state }),
          `${queue} ${state}`,
        ).toBeGreaterThanOrEqual(0);
      }
      expect(valueOf(worker, 'bff_queue_oldest_waiting_seconds', { queue })).toBeGreaterThanOrEqual(0);
    }
    // The dead endpoint's deliveries wait in the events queue for their retry.
    expect(valueOf(worker, 'bff_queue_jobs', { queue: 'events', state: 'delayed' })).toBeGreaterThanOrEqual(
      1,
    );
    for (const source of ['queues', 'database']) {
      expect(valueOf(worker, 'bff_metrics_snapshot_age_seconds', { source })).toBeLessThan(30);
    }
  });

  it('deliveries: attempts by result, their lag, the pending ones, and the failing endpoint', () => {
    const delivered = valueOf(worker, 'bff_event_delivery_attempts_total', { result: 'delivered' })!;
    expect(accepted).toBeGreaterThanOrEqual(3);
    expect(delivered).toBeGreaterThanOrEqual(accepted);
    expect(valueOf(worker, 'bff_event_delivery_lag_seconds_count')).toBe(delivered);
    expect(valueOf(worker, 'bff_event_delivery_lag_seconds_bucket', { le: '+Inf' })).toBe(delivered);
    expect(
      valueOf(worker, 'bff_event_delivery_attempts_total', { result: 'retrying' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      valueOf(worker, 'bff_event_deliveries_pending', { state: 'waiting_retry' }),
    ).toBeGreaterThanOrEqual(1);
    expect(valueOf(worker, 'bff_event_deliveries_pending', { state: 'due' })).toBeGreaterThanOrEqual(0);
    expect(valueOf(worker, 'bff_event_delivery_oldest_due_seconds')).toBeGreaterThanOrEqual(0);
    expect(valueOf(worker, 'bff_event_endpoints', { state: 'healthy' })).toBe(1);
    expect(valueOf(worker, 'bff_event_endpoints', { state: 'failing' })).toBe(1);
    expect(valueOf(worker, 'bff_event_endpoints', { state: 'disabled' })).toBe(0);
    expect(valueOf(worker, 'bff_event_endpoint_longest_failing_seconds')).toBeGreaterThan(0);
  });

  it('the inbox: the sandbox’s webhook processed, nothing waiting or failed', () => {
    expect(valueOf(worker, 'bff_inbox_events', { status: 'received' })).toBe(0);
    expect(valueOf(worker, 'bff_inbox_events', { status: 'failed' })).toBe(0);
    expect(valueOf(worker, 'bff_inbox_oldest_received_seconds')).toBe(0);
  });

  it('payments not final by status and kind: the final one left out, a status of the bank’s as OTHER', () => {
    expect(valueOf(worker, 'bff_payments', { status: 'SUBMITTING', kind: 'VRP' })).toBe(2);
    expect(valueOf(worker, 'bff_payments', { status: 'OTHER', kind: 'VRP' })).toBe(1);
    for (const status of ['AWAITING_AUTHORIZATION', 'SUBMITTING', 'PENDING', 'OTHER'])
      expect(valueOf(worker, 'bff_payments', { status, kind: 'SINGLE' }), status).toBe(0);
    expect(valueOf(worker, 'bff_payments', { status: 'PENDING', kind: 'VRP' })).toBe(0);
    expect(samplesOf(worker, 'bff_payments')).toHaveLength(8);
  });

  it('the parked payment, as the operator’s list has it, and its age since its creation', async () => {
    const listed = await stack.operator.get('/admin/payments/parked');
    expect(listed.status).toBe(200);
    const ids = (listed.body as { data: { id: string }[] }).data.map((payment) => payment.id);
    expect(ids).toEqual([parkedId]);
    expect(valueOf(worker, 'bff_payments_parked')).toBe(ids.length);
    const age = valueOf(worker, 'bff_payments_parked_oldest_seconds')!;
    expect(age).toBeGreaterThanOrEqual(7200 - 5);
    expect(age).toBeLessThan(7200 + 300);
  });

  it('the payment SUBMITTING and not parked, aged since it became SUBMITTING', () => {
    expect(valueOf(worker, 'bff_payments_submitting')).toBe(1);
    const age = valueOf(worker, 'bff_payments_submitting_oldest_seconds')!;
    expect(age).toBeGreaterThanOrEqual(2400 - 5);
    expect(age).toBeLessThan(2400 + 300);
  });

  it('429s per institution in the process that met them; breaker state per institution', () => {
    const rateLimited = { institution: INSTITUTION, source: 'upstream' };
    expect(valueOf(worker, 'bff_upstream_rate_limited_total', rateLimited)).toBe(1);
    expect(valueOf(api, 'bff_upstream_rate_limited_total', rateLimited)).toBe(1);
    expect(valueOf(api, 'bff_upstream_circuit_state', { institution: INSTITUTION, state: 'open' })).toBe(1);
    expect(valueOf(api, 'bff_upstream_circuit_state', { institution: 'upstream', state: 'open' })).toBe(0);
    expect(valueOf(worker, 'bff_upstream_circuit_state', { institution: 'upstream', state: 'open' })).toBe(0);
    expect(samplesOf(worker, 'bff_upstream_circuit_state', { institution: INSTITUTION })).toEqual([]);
  });

  it('names a bank in the breaker metric of a process that never listed the banks itself', async () => {
    // A process started on a database whose institutions cache is already filled: it reads the cache,
    // not the upstream's listing, and must still label the bank's breaker by its id, not `other`.
    const another = await stack.startApi();
    const client = new ApiClient(another.url, tenant.merchant.apiKey.key);
    await fault({ method: 'GET', path: '/accounts/*/real-time/transactions', status: 424, count: 5 });
    const live = `/v1/accounts/${liveAccountId}/transactions/live`;
    for (let i = 0; i < 2; i++) expect((await client.get(live)).status).toBeGreaterThanOrEqual(400);
    const scraped = await scrape(`${another.url}/metrics`);
    expect(valueOf(scraped, 'bff_upstream_circuit_state', { institution: INSTITUTION, state: 'open' })).toBe(
      1,
    );
    expect(samplesOf(scraped, 'bff_upstream_circuit_state', { institution: 'other' })).toEqual([]);
  });

  it('each process its own: the api shows no database or queue gauge, the worker its process metrics', () => {
    for (const name of [
      'bff_sync_lag_seconds',
      'bff_queue_jobs',
      'bff_consents',
      'bff_inbox_events',
      'bff_payments',
    ]) {
      expect(api.names.has(name), name).toBe(false);
    }
    expect(samplesOf(worker, 'process_cpu_user_seconds_total', { app: 'worker' })).toHaveLength(1);
    expect(samplesOf(api, 'http_requests_total', { app: 'api', status: '200' }).length).toBeGreaterThan(0);
    // No merchant, user or account id becomes a label.
    const ids = [tenant.merchant.merchant.id, tenant.userId];
    for (const scraped of [api, worker]) for (const id of ids) expect(scraped.text).not.toContain(id);
  });

  it('every bff_ metric the api or the worker exposes is in docs/observability.md’s table', () => {
    const docs = readFileSync(new URL('../docs/observability.md', import.meta.url), 'utf8');
    const documented = new Set([...docs.matchAll(/^\| `([a-z0-9_]+)`/gm)].map((match) => match[1]));
    const family = (name: string) => name.replace(/_(bucket|sum|count)$/, '');
    const exposed = [...api.names, ...worker.names].filter((name) => name.startsWith('bff_'));
    expect(exposed.filter((name) => !documented.has(family(name)))).toEqual([]);
  });

  it('every metric the dashboard and the alert rules read is one the api or the worker exposes', () => {
    const exposed = new Set([...api.names, ...worker.names]);
    const expressions = [
      ...alertRules().map((rule) => ({ panel: `alert ${rule.alert}`, expr: rule.expr })),
      ...dashboardExpressions(),
    ];
    expect(expressions.length).toBeGreaterThan(20);
    const unknown = expressions.flatMap(({ panel, expr }) =>
      metricNamesIn(expr)
        .filter((name) => !exposed.has(name))
        .map((name) => `${panel}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });
});
