import { beforeAll, describe, expect, it } from 'vitest';
import { DatabasePool } from '#libs/database';
import { PaymentStatusPoller } from '#libs/domain/payments';
import { UpstreamCallsService } from '#libs/domain/upstream-calls';
import {
  accountsWhenSynced,
  type ApiResponse,
  atBank,
  connect,
  dataOf,
  eventually,
  onboard,
  paymentBodies,
  syncAtFailingBank,
  type Tenant,
  uniqueName,
  useStack,
  WAIT,
} from './kit/index.js';

interface Call {
  id: string;
  operation: string;
  status: number | null;
  errorCode: string | null;
  attempt: number;
  tracingId: string | null;
  syncRunId: string | null;
  consentId: string | null;
  paymentId: string | null;
}

const FIELDS = [
  'at',
  'attempt',
  'consentId',
  'durationMs',
  'errorCode',
  'id',
  'institutionId',
  'operation',
  'paymentId',
  'status',
  'syncRunId',
  'tracingId',
];

/**
 * The upstream call log on the real stack: a sync that failed at the bank is found from the customer's
 * reference, and its calls name the upstream's tracing id of each failed attempt; a call the upstream
 * failed and a retry then passed still leads to its run through the lookup, and a payment's call to the
 * payment; no other merchant sees them.
 */
describe('upstream call log', () => {
  // Its own database: the retention sweep below acts on every row.
  const stack = useStack({ ownDatabase: 'call_log', worker: true });
  let tenant: Tenant;
  let other: Tenant;
  let reference: string;
  let account: { id: string; upstreamAccountId: string };

  beforeAll(async () => {
    [tenant, other] = [await onboard(stack), await onboard(stack)];
    reference = dataOf<{ reference: string }>(
      await tenant.client.get(`/v1/users/${tenant.userId}`),
    ).reference;
    await connect(stack, tenant);
    [account] = await accountsWhenSynced(tenant.client, tenant.userId);
  });

  /** The calls of a run, once the recorder has written the run's last one (within about a second). */
  const callsOf = (path: string, until: (calls: Call[]) => boolean) =>
    eventually(
      `the calls of ${path}`,
      async () => {
        const calls = dataOf<Call[]>(await tenant.client.get(`${path}?limit=100`));
        return until(calls) ? calls : undefined;
      },
      WAIT.step,
    );

  it("finds a sync failed at the bank from the customer's reference, with each failed call's tracing id", async () => {
    // Refused, so not retried: the run fails at once, its error carrying the upstream's tracing id.
    const failed = await syncAtFailingBank(stack, tenant, account);
    expect(failed.status).toBe('failed');
    const tracingId = failed.error.upstream.tracingId as string;

    // As support would: the customer by reference, their account, its runs, the failed one's calls.
    const found = dataOf<{ users: { id: string }[] }>(
      await tenant.client.get(`/v1/lookup?id=${encodeURIComponent(reference)}`),
    );
    const [accountOf] = dataOf<{ id: string; consentId: string }[]>(
      await tenant.client.get(`/v1/users/${found.users[0].id}/accounts`),
    );
    const runs = dataOf<{ id: string; status: string }[]>(
      await tenant.client.get(`/v1/accounts/${accountOf.id}/syncs`),
    );
    const run = runs.find((r) => r.status === 'failed')!;
    expect(run.id).toBe(failed.id);
    const calls = await callsOf(`/v1/syncs/${run.id}/upstream-calls`, (c) =>
      c.some((x) => x.errorCode !== null),
    );
    const failures = calls.filter((c) => c.errorCode !== null);
    expect(failures.map((c) => [c.operation, c.status])).toEqual([['getTransactions', 400]]);
    expect(failures[0].tracingId).toBe(tracingId);
    for (const call of calls) {
      expect(Object.keys(call).sort()).toEqual(FIELDS);
      expect(call.syncRunId).toBe(run.id);
      expect(call.consentId).toBe(accountOf.consentId);
    }
    // Walked a call a page, by the cursors, the pages hold the same calls in the same order.
    const walked: string[] = [];
    let next: string | null | undefined = `/v1/syncs/${run.id}/upstream-calls?limit=1`;
    while (next) {
      const page: ApiResponse<{ data: Call[]; links?: { next?: string } }> = await tenant.client.get(next);
      walked.push(...dataOf<Call[]>(page).map((c) => c.id));
      next = page.body.links?.next;
    }
    expect(walked).toEqual(calls.map((c) => c.id));
    // Newest first, and the consent's log holds the run's calls too.
    expect(calls.map((c) => Number(c.id))).toEqual(calls.map((c) => Number(c.id)).sort((a, b) => b - a));
    const consentCalls = dataOf<Call[]>(
      await tenant.client.get(`/v1/consents/${calls[0].consentId}/upstream-calls?limit=100`),
    );
    expect(consentCalls.map((c) => c.id)).toEqual(expect.arrayContaining(calls.map((c) => c.id)));
  });

  it('leads from the tracing id of a failed attempt that a retry got past to its run', async () => {
    // Retried by the client: the run succeeds, and only the call log keeps the failed attempt.
    const passed = await syncAtFailingBank(stack, tenant, account, { status: 503, count: 1 });
    expect(passed.status).toBe('succeeded');
    const calls = await callsOf(`/v1/syncs/${passed.id}/upstream-calls`, (c) =>
      c.some((x) => x.errorCode !== null),
    );
    const retried = calls.find((c) => c.errorCode !== null)!;
    expect([retried.status, retried.attempt]).toEqual([503, 1]);
    expect(
      calls.some((c) => c.operation === retried.operation && c.attempt === 2 && c.errorCode === null),
    ).toBe(true);
    const lookup = dataOf<{ syncRuns: { id: string }[] }>(
      await tenant.client.get(`/v1/lookup?id=${encodeURIComponent(retried.tracingId!)}`),
    );
    expect(lookup.syncRuns.map((r) => r.id)).toEqual([passed.id]);
    // Not another merchant's to read: the same 404 as an unknown id.
    for (const path of [
      `/v1/syncs/${passed.id}/upstream-calls`,
      `/v1/consents/${retried.consentId}/upstream-calls`,
    ]) {
      expect((await other.client.get(path)).status).toBe(404);
    }
    expect(
      (await other.client.get(`/v1/lookup?id=${encodeURIComponent(retried.tracingId!)}`)).body,
    ).toMatchObject({
      data: { syncRuns: [] },
    });
  });

  it("files the consent's own calls: its creation and the live reads made with it", async () => {
    const [{ consentId }] = dataOf<{ consentId: string }[]>(
      await tenant.client.get(`/v1/users/${tenant.userId}/accounts`),
    );
    expect((await tenant.client.get(`/v1/accounts/${account.id}/transactions/live`)).status).toBe(200);
    const calls = await callsOf(`/v1/consents/${consentId}/upstream-calls`, (c) =>
      c.some((x) => x.operation === 'getRealTimeTransactions'),
    );
    const own = calls.filter((c) => c.syncRunId === null);
    // Its creation (with the bank's rules read for it), the callback's reads, and the live read.
    expect(own.map((c) => c.operation)).toEqual(
      expect.arrayContaining([
        'initiateAccountRequest',
        'getConsentBySingleAccessConsent',
        'getRealTimeTransactions',
      ]),
    );
    for (const call of own) expect([call.consentId, call.errorCode]).toEqual([consentId, null]);
  });

  it("finds a payment by the upstream's tracing id of any of its calls, and no other merchant does", async () => {
    const created = dataOf<{ id: string; authorisationUrl: string }>(
      await tenant.client.post(`/v1/users/${tenant.userId}/payments`, paymentBodies.single(), {
        headers: { 'idempotency-key': uniqueName('pay') },
      }),
      201,
    );
    await atBank(stack, created.authorisationUrl);
    // The status poll checks it at the bank under its own name, due at once under the test config; until
    // it is final, so that nothing changes it while it is compared below.
    const poller = stack.worker!.app.get(PaymentStatusPoller);
    const { payment, calls } = await eventually(
      'the payment final, with its calls logged',
      async () => {
        await poller.pollDue();
        const read = dataOf<{ id: string; status: string }>(
          await tenant.client.get(`/v1/payments/${created.id}`),
        );
        const logged = dataOf<Call[]>(
          await tenant.client.get(`/v1/payments/${created.id}/upstream-calls?limit=100`),
        );
        const final = !['AWAITING_AUTHORIZATION', 'SUBMITTING', 'PENDING'].includes(read.status);
        return final && logged.some((c) => c.tracingId) ? { payment: read, calls: logged } : undefined;
      },
      WAIT.step,
    );
    const lookUp = async (client: Tenant['client'], id: string) =>
      dataOf<{ payments: unknown[]; syncRuns: unknown[]; more: { payments: boolean } }>(
        await client.get(`/v1/lookup?id=${encodeURIComponent(id)}`),
      );
    expect(new Set(calls.map((c) => c.paymentId))).toEqual(new Set([created.id]));
    for (const call of calls.filter((c) => c.tracingId)) {
      // As GET /v1/payments/{id} answers it; a payment's calls name no run.
      expect(await lookUp(tenant.client, call.tracingId!)).toMatchObject({
        payments: [payment],
        syncRuns: [],
        more: { payments: false },
      });
      expect(await lookUp(other.client, call.tracingId!)).toMatchObject({ payments: [], syncRuns: [] });
    }
    // Its own id finds it too, for its merchant only.
    expect((await lookUp(tenant.client, created.id)).payments).toEqual([payment]);
    expect((await lookUp(other.client, created.id)).payments).toEqual([]);
  });

  it('answers 404 for an unknown run and keeps calls only as long as events', async () => {
    expect(
      (await tenant.client.get('/v1/syncs/00000000-0000-7000-8000-000000000000/upstream-calls')).status,
    ).toBe(404);
    const db = stack.api.app.get(DatabasePool);
    const days = stack.api.config.retention.eventDays;
    // By id, not by count: the worker keeps logging calls meanwhile.
    const ids = async () =>
      (
        await db.rows<{ id: string }>({
          text: 'SELECT id::text FROM upstream_calls ORDER BY upstream_calls.id LIMIT 2',
          values: [],
        })
      ).map((r) => r.id);
    const [oldest, kept] = await ids();
    expect(kept).toBeDefined();
    await db.rows({
      text: `UPDATE upstream_calls SET at = now() - make_interval(days => $1 + 1) WHERE id = $2`,
      values: [days, oldest],
    });
    expect(await stack.worker!.app.get(UpstreamCallsService).prune()).toEqual({ upstreamCalls: 1 });
    const left = await ids();
    expect(left).not.toContain(oldest);
    expect(left[0]).toBe(kept);
  });
});
