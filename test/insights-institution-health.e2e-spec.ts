import { beforeAll, describe, expect, it } from 'vitest';
import { InstitutionHealthRepository, UpstreamCallRecorder } from '#libs/domain/upstream-calls';
import { UserRepository } from '#libs/domain/users';
import { WorkerMetricsServer } from '../apps/worker/src/metrics/worker-metrics.server.js';
import { createBffClient } from '../libs/merchant-sdk/src/index.js';
import {
  accountsWhenSynced,
  type ApiClient,
  type ApiResponse,
  connect,
  createUser,
  dataOf,
  eventually,
  freePort,
  syncAtFailingBank,
  type Tenant,
  tuned,
  USER_PRESENT,
  useStack,
  useTenant,
} from './kit/index.js';
import { scrape, valueOf } from './kit/metrics-kit.js';

interface Call {
  institutionId: string | null;
  errorCode: string | null;
  durationMs: number;
  at: string;
}
interface Figures {
  institutionId: string;
  calls: number;
  errors: number;
  errorRate: number;
  p95DurationMs: number;
}
interface Health {
  from: string;
  to: string;
  bucket: 'hour' | 'day';
  institutions: Figures[];
  buckets: (Figures & { start: string })[];
}

/** The bank's or the upstream's failures (docs/insights.md), written here as the test's own reading of it. */
const BANK_FAILURES = new Set(['INSTITUTION', 'UNAVAILABLE', 'RATE_LIMITED', 'PROTOCOL']);

/** percentile_disc(0.95): the first duration, in order, at or past 95% of them. */
function p95(durations: number[]): number {
  const sorted = [...durations].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(0.95 * sorted.length)) - 1];
}

/** Figures of `calls` by the key `keyOf` gives each (its institution, or its hour and institution). */
function countedBy(calls: Call[], keyOf: (call: Call) => string) {
  const groups = new Map<string, Call[]>();
  for (const call of calls) groups.set(keyOf(call), [...(groups.get(keyOf(call)) ?? []), call]);
  return new Map(
    [...groups].map(([key, group]) => {
      const errors = group.filter((c) => c.errorCode !== null && BANK_FAILURES.has(c.errorCode)).length;
      const figures = { calls: group.length, errors, errorRate: errors / group.length };
      return [key, { ...figures, p95DurationMs: p95(group.map((c) => c.durationMs)) }];
    }),
  );
}

/** The answer's rows by the same keys as `countedBy`'s. */
const answered = (rows: (Figures & { start?: string })[]) =>
  new Map(
    rows.map(({ institutionId, start, ...figures }) => [
      start ? `${start} ${institutionId}` : institutionId,
      figures,
    ]),
  );

const hourOf = (call: Call) => `${call.at.slice(0, 13)}:00:00Z ${call.institutionId}`;

/**
 * Institution health (GET /v1/insights/institution-health) against a count the test makes itself from
 * each consent's call log (GET /v1/consents/{id}/upstream-calls: its creation, callback, runs and live
 * reads): syncs at two sandbox banks under scripted faults (5xx, 429, dropped connections, slow answers,
 * a 400 refusal that is no error of the bank's) for two merchants apart, the operator's view of both,
 * and the worker's last-hour gauges.
 */
describe('insights: institution health from the upstream call log', () => {
  // Its own database: the operator's figures and the worker's gauges cover every merchant there is.
  const stack = useStack(async () => ({
    ownDatabase: 'institution_health',
    worker: true,
    overrides: {
      WORKER_METRICS_PORT: String(await freePort()),
      ...tuned({ workerMetricsRefreshSeconds: 1 }),
    },
  }));
  const tenant = useTenant(stack);
  const other = useTenant(stack);
  /** Each tenant's consents, whose call logs hold every call made for it. */
  const consents = new Map<Tenant, string[]>();

  const connected = async (t: Tenant, institutionId: string) => {
    const userId = (await createUser(stack.api.app.get(UserRepository), t.merchant.merchant.id)).id;
    consents.set(t, [...(consents.get(t) ?? []), await connect(stack, { ...t, userId }, institutionId)]);
    return accountsWhenSynced(t.client, userId);
  };

  /**
   * Every call of the tenant's consents to a bank, walked through each log's pages. A call naming no bank
   * (the callback's exchange of the bank's one-time token) is no bank's to count.
   */
  const callsOf = async (t: Tenant): Promise<Call[]> => {
    const calls: Call[] = [];
    for (const consentId of consents.get(t) ?? []) {
      let path: string | undefined = `/v1/consents/${consentId}/upstream-calls?limit=100`;
      while (path) {
        const page: ApiResponse<{ data: Call[]; links?: { next?: string } }> = await t.client.get(path);
        expect(page.status).toBe(200);
        calls.push(...page.body.data);
        path = page.body.links?.next;
      }
    }
    return calls.filter((call) => call.institutionId !== null);
  };

  /** The answer once it holds every call the logs hold (the recorder writes about once a second). */
  const settled = (what: string, read: () => Promise<Health>, calls: () => Promise<Call[]>) =>
    eventually(what, async () => {
      const [log, health] = [await calls(), await read()];
      expect(health.institutions.reduce((sum, row) => sum + row.calls, 0)).toBe(log.length);
      return { log, health };
    });

  beforeAll(async () => {
    const [account] = await connected(tenant, 'sandbox-redirect');
    // The bank's failures the client retries past: two 503s, a 429, a dropped connection; then slow
    // answers (a spread for the p95), and a 400 refusal the sync does not retry.
    for (const fault of [
      { status: 503, count: 2 },
      { status: 429, retryAfterSeconds: 0, count: 1 },
      { drop: true, count: 1 },
      { latencyMs: 300, count: 3 },
      { status: 400, count: 4 },
    ])
      await syncAtFailingBank(stack, tenant, account, fault, USER_PRESENT);
    // A bank failing every third call on its own (a 500, then a 424), the first sync retrying past them.
    await connected(tenant, 'sandbox-flaky');
    // The other merchant's calls, one a 503, at the first bank.
    const [theirs] = await connected(other, 'sandbox-redirect');
    await syncAtFailingBank(stack, other, theirs, { status: 503, count: 1 });
    // Every call made so far written: the recorders write once a second, later on a loaded machine, and
    // a figure read before the last run's calls arrive would agree with a log read as early.
    await Promise.all([stack.api, stack.worker!].map(({ app }) => app.get(UpstreamCallRecorder).flush()));
  });

  it("counts the merchant's own calls, bank by bank and hour by hour, as its call logs do", async () => {
    const bff = createBffClient({ baseUrl: stack.api.url, token: tenant.merchant.apiKey.key });
    const { log, health } = await settled(
      "the merchant's calls written",
      () => bff.insights.institutionHealth(),
      () => callsOf(tenant),
    );
    const today = new Date().toISOString().slice(0, 10);
    expect([health.to, health.bucket]).toEqual([today, 'hour']);
    expect(answered(health.institutions)).toEqual(countedBy(log, (call) => call.institutionId!));
    expect(answered(health.buckets)).toEqual(countedBy(log, hourOf));
    // What the script made of it: the retried failures counted, the 400 refusal among the calls only.
    const redirect = health.institutions.find((row) => row.institutionId === 'sandbox-redirect')!;
    expect(redirect.errors).toBe(4);
    expect(log.filter((call) => call.errorCode === 'CALLER')).toHaveLength(1);
    const flaky = health.institutions.find((row) => row.institutionId === 'sandbox-flaky')!;
    expect(flaky.errors).toBeGreaterThan(0);
    // The other merchant sees its own calls alone.
    const theirs = await settled(
      "the other merchant's calls written",
      async () => dataOf<Health>(await other.client.get('/v1/insights/institution-health')),
      () => callsOf(other),
    );
    expect(answered(theirs.health.institutions)).toEqual(
      countedBy(theirs.log, (call) => call.institutionId!),
    );
    expect(theirs.health.institutions.map((row) => row.institutionId)).toEqual(['sandbox-redirect']);
  });

  it("answers the operator every merchant's calls together, or one merchant's", async () => {
    const both = async () => [...(await callsOf(tenant)), ...(await callsOf(other))];
    const { log, health } = await settled(
      "every merchant's calls written",
      async () => dataOf<Health>(await stack.operator.get('/admin/insights/institution-health')),
      both,
    );
    expect(answered(health.institutions)).toEqual(countedBy(log, (call) => call.institutionId!));
    expect(answered(health.buckets)).toEqual(countedBy(log, hourOf));
    // Read one after the other, so again when a later call (a consent's settle check) came between them.
    const id = other.merchant.merchant.id;
    await eventually("the operator's view of one merchant, as the merchant's own", async () => {
      const own = dataOf<Health>(await other.client.get('/v1/insights/institution-health'));
      const one = dataOf<Health>(
        await stack.operator.get(`/admin/insights/institution-health?merchantId=${id}`),
      );
      expect(one).toEqual(own);
      return true;
    });
  });

  it('buckets a range longer than 7 days by the day', async () => {
    const to = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10);
    const { log, health } = await settled(
      "the merchant's calls written",
      async () =>
        dataOf<Health>(await tenant.client.get(`/v1/insights/institution-health?from=${from}&to=${to}`)),
      () => callsOf(tenant),
    );
    expect([health.from, health.to, health.bucket]).toEqual([from, to, 'day']);
    const dayOf = (call: Call) => `${call.at.slice(0, 10)}T00:00:00Z ${call.institutionId}`;
    expect(answered(health.buckets)).toEqual(countedBy(log, dayOf));
  });

  it('refuses a range it cannot read, naming the field, on both routes', async () => {
    const clients: [ApiClient, string][] = [
      [tenant.client, '/v1/insights/institution-health'],
      [stack.operator, '/admin/insights/institution-health'],
    ];
    for (const [client, path] of clients) {
      for (const [query, field] of [
        ['from=2026-02-30', 'from'],
        ['to=yesterday', 'to'],
        ['from=2026-11-10&to=2026-11-01', 'from'],
        ['from=2024-01-01&to=2026-01-01', 'from'],
      ]) {
        const refused = await client.get<{ error: { code: string; details: { field: string }[] } }>(
          `${path}?${query}`,
        );
        expect(refused.status, `${path}?${query}`).toBe(400);
        expect(refused.body.error.code).toBe('VALIDATION_FAILED');
        expect(refused.body.error.details.map((d) => d.field)).toEqual([field]);
      }
    }
    expect((await tenant.client.get('/admin/insights/institution-health')).status).toBe(403);
  });

  it("shows the last hour's figures as the worker's gauges, and the rest of the banks together", async () => {
    const { log } = await settled(
      "every merchant's calls written",
      async () => dataOf<Health>(await stack.operator.get('/admin/insights/institution-health')),
      async () => [...(await callsOf(tenant)), ...(await callsOf(other))],
    );
    const expected = countedBy(log, (call) => call.institutionId!);
    const url = `${stack.worker!.app.get(WorkerMetricsServer).url}/metrics`;
    await eventually('the gauges of every call', async () => {
      const worker = await scrape(url);
      for (const [institution, figures] of expected) {
        expect(valueOf(worker, 'bff_institution_last_hour_calls', { institution })).toBe(figures.calls);
        expect(valueOf(worker, 'bff_institution_last_hour_error_ratio', { institution })).toBe(
          figures.errorRate,
        );
        expect(valueOf(worker, 'bff_institution_last_hour_p95_seconds', { institution })).toBe(
          figures.p95DurationMs / 1000,
        );
      }
      return true;
    });
    // Beyond the 50 busiest banks the gauges read the rest's figures together: here, all but one.
    const hourAgo = new Date(Date.now() - 3_600_000);
    const rest = await stack.api.app
      .get(InstitutionHealthRepository)
      .sinceExcept(hourAgo, ['sandbox-redirect']);
    expect(rest).toEqual(expected.get('sandbox-flaky'));
  });
});
