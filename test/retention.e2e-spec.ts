import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabasePool, RETENTION_BATCH } from '#libs/database';
import { CONNECT_ATTEMPT_KEPT_DAYS, ConnectFunnelService } from '#libs/domain/consents';
import { EventsRetentionService } from '#libs/domain/events';
import { InboxRetentionService } from '#libs/domain/inbox';
import { ConsoleSessionRepository } from '#libs/domain/merchants';
import { uuidV7 } from '#libs/ids';
import {
  accountsWhenSynced,
  assertProperty,
  connect,
  dataOf,
  onboard,
  runWhenEnded,
  send,
  sessionToken,
  type Stack,
  startStack,
  tuned,
  USER_PRESENT,
  useStack,
  useTenant,
} from './kit/index.js';
import { SseClient } from './kit/sse-client.js';

const DAYS = 30;
/** Ages in hours, none within an hour of the cutoff (the sweep reads the clock a moment later). */
const age = fc.integer({ min: 0, max: 60 * 24 }).filter((h) => Math.abs(h - DAYS * 24) > 1);

interface EventFixture {
  ageHours: number;
  relayed: boolean;
  delivery: 'none' | 'PENDING' | 'SUCCEEDED' | 'FAILED';
}

describe('retention: old events, deliveries and processed webhooks go; nothing still needed does', () => {
  // The sweep acts on every row of its database, and no worker relays behind the test's back.
  const stack = useStack({
    ownDatabase: 'retention',
    overrides: { EVENT_RETENTION_DAYS: String(DAYS), ...tuned({ inboxRetentionDays: DAYS }) },
  });
  const tenant = useTenant(stack);
  let db: DatabasePool;
  let endpointId: string;

  beforeAll(async () => {
    db = stack.api.app.get(DatabasePool);
    const created = await tenant.client.post('/v1/event-endpoints', {
      url: 'http://127.0.0.1:9/hooks',
      types: [],
    });
    endpointId = dataOf(created, 201).endpoint.id;
  });

  /** Events of the tenant's user as fixtures say, numbered after the relay's high-water mark when relayed. */
  async function insertEvents(fixtures: EventFixture[]): Promise<{ id: string; fixture: EventFixture }[]> {
    // Each row carries its fixture's index in `data`, so RETURNING can say which row is which.
    const rows = await db.rows<{ id: string; ord: number }>({
      name: 'retention-test.insert-events',
      text: `WITH base AS (SELECT last_stream_seq FROM outbox_relay_state WHERE id = 1),
        advanced AS (UPDATE outbox_relay_state SET last_stream_seq = last_stream_seq + $4 WHERE id = 1)
        INSERT INTO merchant_events (id, merchant_id, user_id, type, data, created_at, stream_seq)
        SELECT uuid_generate_v7(), $1, $2, 'sync.succeeded', jsonb_build_object('ord', f.ord),
          now() - make_interval(hours => f.age_hours),
          CASE WHEN f.relayed THEN (SELECT last_stream_seq FROM base) + f.ord + 1 END
        FROM jsonb_to_recordset($3::jsonb) AS f(ord int, age_hours int, relayed boolean)
        RETURNING id, (data->>'ord')::int AS ord`,
      values: [
        tenant.merchant.merchant.id,
        tenant.userId,
        JSON.stringify(fixtures.map((f, ord) => ({ ord, age_hours: f.ageHours, relayed: f.relayed }))),
        fixtures.length + 1,
      ],
    });
    const all = rows.map((r) => ({ id: r.id, fixture: fixtures[r.ord] }));
    const withDelivery = all.filter((e) => e.fixture.delivery !== 'none');
    if (withDelivery.length > 0) {
      await db.rows({
        name: 'retention-test.insert-deliveries',
        text: `INSERT INTO event_deliveries (merchant_id, endpoint_id, event_id, status, next_attempt_at, updated_at)
          SELECT $1, $2, d.event_id, d.status::delivery_status,
            CASE WHEN d.status = 'PENDING' THEN now() + interval '1 hour' END, now()
          FROM jsonb_to_recordset($3::jsonb) AS d(event_id uuid, status text)`,
        values: [
          tenant.merchant.merchant.id,
          endpointId,
          JSON.stringify(withDelivery.map((e) => ({ event_id: e.id, status: e.fixture.delivery }))),
        ],
      });
    }
    return all;
  }

  const removable = (f: EventFixture) => f.ageHours > DAYS * 24 && f.relayed && f.delivery !== 'PENDING';

  it('removes exactly the relayed events past the retention with no delivery still tried, their deliveries with them, at any count', async () => {
    const retention = stack.api.app.get(EventsRetentionService);
    const fixture = fc.record<EventFixture>({
      ageHours: age,
      relayed: fc.boolean(),
      delivery: fc.constantFrom('none', 'PENDING', 'SUCCEEDED', 'FAILED'),
    });
    await assertProperty(
      fc.asyncProperty(
        fc.array(fixture, { maxLength: 40 }),
        fc.nat({ max: 3 }),
        async (fixtures, batches) => {
          // Now and then more than a few batches' worth, all due: the sweep must not stop after one.
          const bulk = Array.from({ length: batches === 3 ? RETENTION_BATCH * 2 + 7 : 0 }, () => ({
            ageHours: 45 * 24,
            relayed: true,
            delivery: 'SUCCEEDED' as const,
          }));
          const inserted = await insertEvents([...fixtures, ...bulk]);
          const result = await retention.prune();
          expect(result.events).toBeGreaterThanOrEqual(inserted.filter((e) => removable(e.fixture)).length);
          const left = new Set(
            (
              await db.rows<{ id: string }>({
                name: 'retention-test.left',
                text: 'SELECT id FROM merchant_events WHERE id = ANY($1::uuid[])',
                values: [inserted.map((e) => e.id)],
              })
            ).map((r) => r.id),
          );
          for (const e of inserted) expect(left.has(e.id)).toBe(!removable(e.fixture));
          // No delivery outlives its event, and a second sweep finds nothing more of these.
          const [{ orphans }] = await db.rows<{ orphans: number }>({
            name: 'retention-test.orphans',
            text: `SELECT count(*)::int AS orphans FROM event_deliveries d
            WHERE NOT EXISTS (SELECT 1 FROM merchant_events e WHERE e.id = d.event_id)`,
            values: [],
          });
          expect(orphans).toBe(0);
          expect((await retention.prune()).events).toBe(0);
        },
      ),
      12,
    );
  });

  it('answers 410 EVENTS_EXPIRED to a stream resumed from before what is kept, and streams from after it', async () => {
    const [old] = await insertEvents([{ ageHours: 40 * 24, relayed: true, delivery: 'none' }]);
    const [young] = await insertEvents([{ ageHours: 1, relayed: true, delivery: 'none' }]);
    await stack.api.app.get(EventsRetentionService).prune();
    const [{ through }] = await db.rows<{ through: string }>({
      name: 'retention-test.through',
      text: 'SELECT pruned_through_stream_seq::text AS through FROM outbox_relay_state WHERE id = 1',
      values: [],
    });
    const [{ oldSeq, youngSeq }] = await db.rows<{ oldSeq: string | null; youngSeq: string }>({
      name: 'retention-test.seqs',
      text: `SELECT (SELECT stream_seq::text FROM merchant_events WHERE id = $1) AS "oldSeq",
          (SELECT stream_seq::text FROM merchant_events WHERE id = $2) AS "youngSeq"`,
      values: [old.id, young.id],
    });
    expect(oldSeq).toBeNull();
    const url = `${stack.api.url}/v1/users/${tenant.userId}/events`;
    const token = sessionToken(stack.api.config, {
      merchantId: tenant.merchant.merchant.id,
      userId: tenant.userId,
    });
    const before = await send(url, 'GET', {
      token,
      headers: { 'last-event-id': String(BigInt(through) - 1n) },
    });
    expect(before.status).toBe(410);
    expect(((await before.json()) as { error: { code: string } }).error.code).toBe('EVENTS_EXPIRED');
    // From the horizon on nothing was removed: the stream replays what follows, the young event among it.
    const resumed = await SseClient.open(url, token, through);
    try {
      const messages = await resumed.waitFor(1);
      expect(messages.map((m) => m.id)).toContain(youngSeq);
    } finally {
      resumed.close();
    }
    // 0 asks for everything still kept, knowingly.
    const everything = await SseClient.open(url, token, '0');
    everything.close();
  });

  it('answers 410 EVENTS_EXPIRED to a Last-Event-ID past the stream’s last event (another database’s)', async () => {
    const [{ last }] = await db.rows<{ last: string }>({
      name: 'retention-test.last',
      text: 'SELECT last_stream_seq::text AS last FROM outbox_relay_state WHERE id = 1',
      values: [],
    });
    const url = `${stack.api.url}/v1/users/${tenant.userId}/events`;
    const token = sessionToken(stack.api.config, {
      merchantId: tenant.merchant.merchant.id,
      userId: tenant.userId,
    });
    // Far enough past it that events relayed meanwhile cannot catch up. Read by status first: a stream
    // (the defect) would never end.
    const ahead = await fetch(url, {
      headers: { authorization: `Bearer ${token}`, 'last-event-id': String(BigInt(last) + 1_000_000n) },
    });
    if (ahead.status !== 410) await ahead.body?.cancel();
    expect(ahead.status).toBe(410);
    const { error } = (await ahead.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('EVENTS_EXPIRED');
    expect(error.message).toContain('past the last event of this stream');
    // The last position handed out is a stream's own: it follows from there.
    const current = await SseClient.open(url, token, last);
    current.close();
  });

  it('removes processed webhooks past the retention and keeps those still to do or failed', async () => {
    const statuses = ['RECEIVED', 'PROCESSED', 'FAILED'] as const;
    await assertProperty(
      fc.asyncProperty(
        fc.array(fc.record({ ageHours: age, status: fc.constantFrom(...statuses) }), {
          minLength: 1,
          maxLength: 30,
        }),
        async (fixtures) => {
          const rows = await db.rows<{ id: string }>({
            name: 'retention-test.insert-inbound',
            text: `INSERT INTO inbound_events (id, event_id, type, payload, status, received_at, updated_at)
              SELECT uuid_generate_v7(), 'msg_' || gen_random_uuid(), 'payment.state.success', '{}'::jsonb,
                f.status::inbound_event_status, now() - make_interval(hours => f.age_hours), now()
              FROM jsonb_to_recordset($1::jsonb) AS f(age_hours int, status text)
              RETURNING id`,
            values: [JSON.stringify(fixtures.map((f) => ({ age_hours: f.ageHours, status: f.status })))],
          });
          expect(rows).toHaveLength(fixtures.length);
          await stack.api.app.get(InboxRetentionService).prune();
          const left = await db.rows<{ status: string; old: boolean }>({
            name: 'retention-test.inbound-left',
            text: `SELECT status::text AS status, received_at < now() - make_interval(days => $2) AS old
              FROM inbound_events WHERE id = ANY($1::uuid[])`,
            values: [rows.map((r) => r.id), DAYS],
          });
          const kept = fixtures.filter((f) => !(f.status === 'PROCESSED' && f.ageHours > DAYS * 24));
          expect(left).toHaveLength(kept.length);
          expect(left.filter((r) => r.status === 'PROCESSED' && r.old)).toEqual([]);
        },
      ),
      10,
    );
  });

  it('removes console sessions a day past their expiry, ended or not, and keeps the rest', async () => {
    const sessions = stack.api.app.get(ConsoleSessionRepository);
    await assertProperty(
      fc.asyncProperty(
        fc.array(fc.record({ expiredHours: fc.integer({ min: -48, max: 72 }), ended: fc.boolean() }), {
          minLength: 1,
          maxLength: 20,
        }),
        async (fixtures) => {
          const now = Date.now();
          const ids = fixtures.map(() => uuidV7());
          for (const [i, f] of fixtures.entries()) {
            await sessions.start({
              id: ids[i],
              apiKeyId: null,
              expiresAt: new Date(now - f.expiredHours * 3_600_000),
            });
            if (f.ended) await sessions.end(ids[i]);
          }
          await sessions.pruneExpired(new Date(now));
          const left = await db.rows<{ id: string }>({
            name: 'retention-test.console-sessions-left',
            text: 'SELECT id FROM console_sessions WHERE id = ANY($1::uuid[])',
            values: [ids],
          });
          const kept = ids.filter((_, i) => fixtures[i].expiredHours <= 24);
          expect(left.map((r) => r.id).sort()).toEqual(kept.sort());
        },
      ),
      10,
    );
  });
});

describe('retention: connect attempts go once no read can reach their day', () => {
  const stack = useStack({ ownDatabase: 'connect-attempts-kept' });

  it('keeps an attempt while a read may still ask for its day, and removes it after', async () => {
    const tenant = await onboard(stack);
    const funnel = stack.api.app.get(ConnectFunnelService);
    const attemptId = uuidV7();
    const reported = await tenant.client.post('/v1/connect-funnel/reports', { attemptId, event: 'opened' });
    expect(reported.status).toBe(204);
    const opened = async () =>
      dataOf<{ institutions: { opened: number }[] }>(await tenant.client.get('/v1/insights/connect-funnel'))
        .institutions.length;
    const inDays = (days: number) => new Date(Date.now() + days * 86_400_000);
    expect(await funnel.prune(inDays(CONNECT_ATTEMPT_KEPT_DAYS - 1))).toEqual({ connectAttempts: 0 });
    expect(await opened()).toBe(1);
    expect(await funnel.prune(inDays(CONNECT_ATTEMPT_KEPT_DAYS + 1))).toEqual({ connectAttempts: 1 });
    expect(await opened()).toBe(0);
  });
});

describe('retention: an account keeps its newest sync runs, up to the bound', () => {
  let stack: Stack;
  const KEEP = 3;

  beforeAll(async () => {
    // Its own database and queues: a worker keeping 3 runs must not end another file's runs.
    stack = await startStack({
      ownDatabase: 'sync-runs-kept',
      worker: true,
      overrides: { SYNC_RUNS_KEPT_PER_ACCOUNT: String(KEEP) },
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('lists the newest runs only, however many have run', async () => {
    const tenant = await onboard(stack);
    await connect(stack, tenant);
    const [account] = await accountsWhenSynced(tenant.client, tenant.userId);
    const runs: string[] = [];
    for (let i = 0; i < KEEP + 2; i++) {
      const started = await tenant.client.post(
        `/v1/accounts/${account.id}/sync`,
        {},
        { headers: USER_PRESENT },
      );
      const { syncId } = dataOf<{ syncId: string }>(started, 202);
      await runWhenEnded(tenant.client, syncId);
      runs.push(syncId);
    }
    const history = dataOf<{ id: string }[]>(await tenant.client.get(`/v1/accounts/${account.id}/syncs`));
    expect(history.map((r) => r.id)).toEqual(runs.slice(-KEEP).reverse());
  });
});
