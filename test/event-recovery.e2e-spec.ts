import { beforeAll, describe, expect, it } from 'vitest';
import { DatabasePool } from '#libs/database';
import {
  dataOf,
  EventReceiver,
  eventually,
  onboard,
  pastDeliveries,
  type Tenant,
  tuned,
  uniqueName,
  useReceiver,
  useStack,
} from './kit/index.js';

const HOUR = 3_600_000;
const FAILED = 1_000;
/** Smaller than FAILED, so one recovery takes several calls. */
const BATCH = 400;

interface Recovery {
  scheduled: number;
  more: boolean;
}

/**
 * POST /v1/event-endpoints/{id}/recover (docs/events.md): every delivery of the endpoint that failed for
 * good since a time is sent again through the real api and worker, in bounded batches, each exactly once
 * however often and however concurrently the merchant asks; refused for a disabled endpoint and for a
 * time outside what is kept.
 */
describe('api: recovering an endpoint’s failed deliveries', () => {
  // Its own database: the failed deliveries are written straight into it, and no other file's relay or
  // worker may see them.
  const stack = useStack({
    ownDatabase: 'event_recovery',
    worker: true,
    overrides: { EVENT_RETENTION_DAYS: '3', ...tuned({ eventRecoveryBatch: BATCH }) },
  });
  let tenant: Tenant;
  let db: DatabasePool;
  const receiver = useReceiver();
  let endpointId: string;

  beforeAll(async () => {
    db = stack.api.app.get(DatabasePool);
    tenant = await onboard(stack);
    endpointId = dataOf<{ endpoint: { id: string } }>(
      await tenant.client.post('/v1/event-endpoints', { url: receiver.url }),
      201,
    ).endpoint.id;
  });

  /** `count` deliveries to the endpoint in `status`, made `ageHours` ago (kit: `pastDeliveries`). */
  const deliveries = (
    count: number,
    status: 'FAILED' | 'SUCCEEDED',
    ageHours: number,
    endpoint = endpointId,
  ) =>
    pastDeliveries(db, {
      merchantId: tenant.merchant.merchant.id,
      userId: tenant.userId,
      endpointId: endpoint,
      count,
      status,
      ageHours,
    });

  const recover = (since: Date | string, key = uniqueName('recover')) =>
    tenant.client.post(
      `/v1/event-endpoints/${endpointId}/recover`,
      { since: typeof since === 'string' ? since : since.toISOString() },
      { headers: { 'idempotency-key': key } },
    );

  it('sends each of 1,000 failed deliveries exactly once, in batches, however often it is asked', async () => {
    const before = await deliveries(20, 'FAILED', 5);
    const delivered = await deliveries(20, 'SUCCEEDED', 1);
    const failed = await deliveries(FAILED, 'FAILED', 1);
    const since = new Date(Date.now() - 2 * HOUR);

    // Two callers at once, each calling until nothing is left: together they schedule each once.
    const caller = async () => {
      let scheduled = 0;
      for (let call = 0; call < 10; call++) {
        const answer = dataOf<Recovery>(await recover(since), 202);
        expect(answer.scheduled).toBeLessThanOrEqual(BATCH);
        scheduled += answer.scheduled;
        if (!answer.more) return scheduled;
      }
      throw new Error('a recovery that never ends');
    };
    const [first, second] = await Promise.all([caller(), caller()]);
    expect(first + second).toBe(FAILED);

    const received = () => receiver.requests.map((r) => String(r.headers['webhook-id']));
    await eventually('every failed delivery received', () =>
      new Set(received()).size >= FAILED ? true : undefined,
    );
    // Each delivery's attempt recorded: nothing of it is still on its way.
    await eventually('every recovered delivery recorded as delivered', async () => {
      const [row] = await db.rows<{ pending: number }>({
        name: 'recovery-test.pending',
        text: `SELECT count(*)::int AS pending FROM event_deliveries WHERE endpoint_id = $1 AND status = 'PENDING'`,
        values: [endpointId],
      });
      return row.pending === 0 ? true : undefined;
    });
    expect(received().length).toBe(FAILED);
    expect(new Set(received())).toEqual(new Set(failed));
    expect(received().filter((id) => before.includes(id) || delivered.includes(id))).toEqual([]);

    // The earlier attempt stays in the log: the recovered one is the second.
    const [log] = await db.rows<{ attempts: number; entries: number }>({
      name: 'recovery-test.attempts',
      text: `SELECT min(d.attempts)::int AS attempts,
          (SELECT count(*)::int FROM event_delivery_attempts a WHERE a.delivery_id = ANY(array_agg(d.id))) AS entries
        FROM event_deliveries d WHERE d.event_id = ANY($1::uuid[]) AND d.endpoint_id = $2`,
      values: [failed, endpointId],
    });
    expect(log).toEqual({ attempts: 2, entries: 2 * FAILED });

    // Nothing failed is left since then; the older ones are still there for an earlier `since`.
    expect(dataOf<Recovery>(await recover(since), 202)).toEqual({ scheduled: 0, more: false });
  });

  it('answers a replay with the same Idempotency-Key as the first time, scheduling nothing more', async () => {
    const failed = await deliveries(3, 'FAILED', 4);
    const key = uniqueName('recover-once');
    const since = new Date(Date.now() - 4.5 * HOUR);
    const first = dataOf<Recovery>(await recover(since, key), 202);
    expect(first).toEqual({ scheduled: failed.length, more: false });
    expect(dataOf<Recovery>(await recover(since, key), 202)).toEqual(first);
  });

  it('sends again, once a recovery, what failed again after the first; each call audited, a replay not', async () => {
    // An endpoint of its own, whose first five requests fail: past the retry window (24 h), so a
    // recovered delivery that fails again is FAILED at once, for the next recovery to send again.
    const flaky = new EventReceiver([500, 500, 500, 500, 500]);
    await flaky.start();
    try {
      const endpoint = dataOf<{ endpoint: { id: string } }>(
        await tenant.client.post('/v1/event-endpoints', { url: flaky.url }),
        201,
      ).endpoint.id;
      const failed = await deliveries(12, 'FAILED', 30, endpoint);
      const since = new Date(Date.now() - 31 * HOUR);
      const recoverIt = (key: string) =>
        tenant.client.post(
          `/v1/event-endpoints/${endpoint}/recover`,
          { since: since.toISOString() },
          { headers: { 'idempotency-key': key } },
        );
      const statuses = async () =>
        db.rows<{ eventId: string; status: string; attempts: number }>({
          name: 'recovery-test.statuses',
          text: `SELECT event_id::text AS "eventId", status::text AS status, attempts FROM event_deliveries
            WHERE endpoint_id = $1`,
          values: [endpoint],
        });
      const settled = (what: string) =>
        eventually(what, async () => {
          const rows = await statuses();
          return rows.every((r) => r.status !== 'PENDING') ? rows : undefined;
        });
      const received = () => flaky.requests.map((r) => String(r.headers['webhook-id']));

      const [first, second] = [uniqueName('recover-1'), uniqueName('recover-2')];
      expect(dataOf<Recovery>(await recoverIt(first), 202)).toEqual({ scheduled: 12, more: false });
      // The same key again: the first answer, nothing scheduled twice.
      expect(dataOf<Recovery>(await recoverIt(first), 202)).toEqual({ scheduled: 12, more: false });
      const afterFirst = await settled('the first recovery sent');
      const refailed = flaky.requests
        .filter((r) => r.status >= 300)
        .map((r) => String(r.headers['webhook-id']));
      expect(refailed).toHaveLength(5);
      expect(received().sort()).toEqual([...failed].sort());
      expect(
        afterFirst
          .filter((r) => r.status === 'FAILED')
          .map((r) => r.eventId)
          .sort(),
      ).toEqual([...refailed].sort());

      // Another recovery sends those five again, and only them, once.
      expect(dataOf<Recovery>(await recoverIt(second), 202)).toEqual({ scheduled: 5, more: false });
      const afterSecond = await settled('the second recovery sent');
      expect(received()).toHaveLength(12 + 5);
      expect(received().slice(12).sort()).toEqual([...refailed].sort());
      for (const row of afterSecond) {
        expect([row.status, row.attempts], row.eventId).toEqual([
          'SUCCEEDED',
          refailed.includes(row.eventId) ? 3 : 2,
        ]);
      }
      // Nothing left: a third call schedules nothing, and is audited like the others.
      expect(dataOf<Recovery>(await recoverIt(uniqueName('recover-3')), 202)).toEqual({
        scheduled: 0,
        more: false,
      });

      // One entry a call made, none for the replay, each naming the endpoint and only the field sent.
      const audit = dataOf<{ action: string; resource: { type: string; id: string }; fields: string[] }[]>(
        await tenant.client.get('/v1/merchant/audit?action=event-endpoint.recover&limit=100'),
      ).filter((entry) => entry.resource.id === endpoint);
      expect(audit).toEqual(
        Array.from({ length: 3 }, () =>
          expect.objectContaining({
            action: 'event-endpoint.recover',
            resource: { type: 'event-endpoint', id: endpoint },
            fields: ['since'],
          }),
        ),
      );
    } finally {
      await flaky.stop();
    }
  });

  it('refuses a since in the future, older than retention or missing, and another merchant’s endpoint', async () => {
    const refused = async (body: Record<string, unknown>, status: number, code: string) => {
      const answer = await tenant.client.post(`/v1/event-endpoints/${endpointId}/recover`, body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(status);
      expect((answer.body as { error: { code: string } }).error.code).toBe(code);
      return (answer.body as { error: { message: string } }).error.message;
    };
    expect(
      await refused({ since: new Date(Date.now() + HOUR).toISOString() }, 400, 'VALIDATION_FAILED'),
    ).toMatch(/future/);
    expect(
      await refused({ since: new Date(Date.now() - 4 * 24 * HOUR).toISOString() }, 400, 'VALIDATION_FAILED'),
    ).toMatch(/EVENT_RETENTION_DAYS/);
    await refused({}, 400, 'VALIDATION_FAILED');
    await refused({ since: 'yesterday' }, 400, 'VALIDATION_FAILED');

    const other = await onboard(stack);
    const answer = await other.client.post(`/v1/event-endpoints/${endpointId}/recover`, {
      since: new Date().toISOString(),
    });
    expect(answer.status).toBe(404);
  });

  it('refuses a disabled endpoint, saying to enable it first', async () => {
    await db.rows({
      name: 'recovery-test.disable',
      text: `UPDATE event_endpoints SET disabled_at = now(), disabled_reason = 'test' WHERE id = $1`,
      values: [endpointId],
    });
    const answer = await recover(new Date(Date.now() - HOUR));
    expect(answer.status).toBe(409);
    expect((answer.body as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/enable it/),
    });
  });
});
