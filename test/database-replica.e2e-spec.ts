import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMigrationsDir, migrate, REPLICA_MAX_LAG_MS } from '#libs/database';
import {
  accountsWhenSynced,
  assertProperty,
  connect,
  dataOf,
  eventually,
  onboard,
  propertyTimeout,
  runWhenEnded,
  type Stack,
  startStack,
  type Tenant,
  uniqueQueuePrefix,
  USER_PRESENT,
  useReceiver,
  WAIT,
} from './kit/index.js';
import { scrape, valueOf } from './kit/metrics-kit.js';
import { type PrivateReplica, startPrivateReplica } from './kit/private-replica.mjs';
import { type PrivatePostgres, startPrivatePostgres } from './kit/private-services.mjs';

interface Page<T> {
  data: T[];
  meta: { nextCursor?: string | null };
}
type Source = 'replica' | 'primary';

/** A change replayed and its page read anew: well within a kept entry's 60 s expiry, on any machine. */
const REPLAYED_WITHIN_MS = 20_000;

/**
 * Issue 62: a private primary, a streaming replica of it (pg_basebackup), and the api and a worker on
 * them with DATABASE_REPLICA_URL set. Stored pages, the change feed and the events list are read from the
 * replica while it keeps up; a merchant always reads its own writes and what it has been told of; a
 * replica paused, behind or stopped sends reads to the primary, with no error.
 */
describe('a read replica: reads that may be a little behind, never behind their reader', () => {
  let primary: PrivatePostgres;
  let replica: PrivateReplica;
  let stack: Stack;
  let tenant: Tenant;
  let other: Tenant;
  let accountId: string;
  let db: pg.Client;
  const receiver = useReceiver();

  /** Reads the api served from each server so far. */
  const served = async () => {
    const metrics = await scrape(`${stack.api.url}/metrics`);
    const of = (source: Source) => valueOf(metrics, 'bff_database_reads_total', { source }) ?? 0;
    return { replica: of('replica'), primary: of('primary') };
  };
  /** Where `read` was served from: the one server whose count it moved. */
  const sourceOf = async (read: () => Promise<unknown>): Promise<Source> => {
    const before = await served();
    await read();
    const after = await served();
    const moved = (['replica', 'primary'] as const).filter((s) => after[s] > before[s]);
    expect(moved).toHaveLength(1);
    return moved[0];
  };
  const eventsOf = async (t: Tenant) => {
    const answer = await t.client.get<Page<{ id: string; type: string }>>('/v1/events?limit=100');
    expect(answer.status).toBe(200);
    return answer.body.data;
  };
  /**
   * Once the replica has replayed all the merchant was told of (the connection's events, as the worker
   * relays them, keep moving its fence on for a moment).
   */
  const onReplica = (t: Tenant) => readOnReplica('the merchant’s reads on the replica', () => eventsOf(t));
  /**
   * `read`, repeated until the replica serves it: a poll of the replica late on a loaded machine, or a write
   * the worker made for the merchant meanwhile (an event relayed), sends a read to the primary for a moment.
   */
  const readOnReplica = (what: string, read: () => Promise<unknown>) =>
    eventually(what, async () => ((await sourceOf(read)) === 'replica' ? true : undefined));
  const replicaUsable = async () =>
    valueOf(await scrape(`${stack.api.url}/metrics`), 'bff_database_replica_usable');

  beforeAll(async () => {
    primary = await startPrivatePostgres();
    await migrate(primary.url, defaultMigrationsDir());
    replica = await startPrivateReplica(primary);
    stack = await startStack({
      worker: true,
      overrides: {
        DATABASE_URL: primary.url,
        DATABASE_REPLICA_URL: replica.url,
        QUEUE_PREFIX: uniqueQueuePrefix('replica'),
      },
    });
    [tenant, other] = [await onboard(stack), await onboard(stack)];
    db = new pg.Client({ connectionString: primary.url });
    await db.connect();
    expect((await tenant.client.post('/v1/event-endpoints', { url: receiver.url, types: [] })).status).toBe(
      201,
    );
    await connect(stack, tenant);
    [{ id: accountId }] = await accountsWhenSynced(tenant.client, tenant.userId);
  });
  afterAll(async () => {
    await db?.end();
    await stack?.close();
    await replica?.destroy();
    await primary?.destroy();
  });

  it('serves stored pages, the change feed and the events list from the replica, as the primary has them', async () => {
    await onReplica(tenant);
    const stored: string[] = [];
    let cursor: string | null | undefined;
    do {
      const path = `/v1/accounts/${accountId}/transactions?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      let page: Page<{ id: string }> | undefined;
      await readOnReplica(
        'the page served by the replica',
        async () => (page = (await tenant.client.get<Page<{ id: string }>>(path)).body),
      );
      stored.push(...page!.data.map((t) => t.id));
      cursor = page!.meta.nextCursor;
    } while (cursor);
    const { rows } = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM transactions WHERE account_id = $1',
      [accountId],
    );
    expect(stored.length).toBe(rows[0].n);
    expect(new Set(stored).size).toBe(stored.length);

    const added: string[] = [];
    type Changes = { added: { transaction: { id: string } }[]; nextCursor: string; hasMore: boolean };
    let changes: Changes | undefined;
    do {
      const path =
        `/v1/users/${tenant.userId}/transactions/changes?accountId=${accountId}&limit=500` +
        (changes ? `&cursor=${encodeURIComponent(changes.nextCursor)}` : '');
      await readOnReplica(
        'the change feed’s page served by the replica',
        async () => (changes = dataOf<Changes>(await tenant.client.get(path))),
      );
      added.push(...changes!.added.map((c) => c.transaction.id));
    } while (changes!.hasMore);
    expect(added.sort()).toEqual([...stored].sort());
    await readOnReplica('the events list served by the replica', () => eventsOf(tenant));
  });

  it("reads a merchant's own writes and what it was told of at once while the replica is paused", async () => {
    await onReplica(tenant);
    await replica.pauseReplay();
    try {
      // The other merchant wrote nothing: its reads stay on the replica, behind as it is.
      await readOnReplica('the other merchant’s reads on the paused replica', () => eventsOf(other));
      // Any request of this merchant's that may write: its next read is the primary's.
      const customer = dataOf<{ id: string }>(
        await tenant.client.post('/v1/users', { reference: 'customer-after-pause' }),
        201,
      );
      expect(await sourceOf(() => eventsOf(tenant))).toBe('primary');
      // A write of this merchant's: that customer's bank connected, then the consent revoked.
      const consentId = await connect(stack, { ...tenant, userId: customer.id });
      expect((await tenant.client.delete(`/v1/consents/${consentId}`)).status).toBeLessThan(300);
      // Told of it by its endpoint, it reads the event at once, from the primary: the replica has not got it.
      const told = await eventually('consent.revoked delivered', () =>
        receiver.accepted().find((e) => e.type === 'consent.revoked' && e.body.includes(consentId)),
      );
      expect(
        await sourceOf(async () => expect((await eventsOf(tenant)).map((e) => e.id)).toContain(told.id)),
      ).toBe('primary');
    } finally {
      await replica.resumeReplay();
    }
    // Replayed: its reads go back to the replica.
    await eventually('back on the replica', async () =>
      (await sourceOf(() => eventsOf(tenant))) === 'replica' ? true : undefined,
    );
  });

  it('keeps no stored page read from the replica: once it has replayed a change, the page shows it', async () => {
    const path = `/v1/accounts/${accountId}/transactions?limit=7`;
    const first = async () => (await tenant.client.get<Page<{ description: string }>>(path)).body.data[0];
    await onReplica(tenant);
    await replica.pauseReplay();
    try {
      // Changed on the primary (its notification drops whatever each process keeps) and not yet replayed.
      const { rows } = await db.query<{ id: string }>(
        `SELECT id FROM transactions WHERE account_id = $1 ORDER BY date DESC, id DESC LIMIT 1`,
        [accountId],
      );
      await db.query('BEGIN');
      await db.query(
        `UPDATE transactions SET raw = raw || '{"description":"replayed later"}' WHERE id = $1`,
        [rows[0].id],
      );
      await db.query('UPDATE accounts SET transactions_version = transactions_version + 1 WHERE id = $1', [
        accountId,
      ]);
      await db.query('COMMIT');
      // Read from the paused replica: the page as it was, which must not be kept.
      let stale: { description: string } | undefined;
      await readOnReplica('the page from the paused replica', async () => (stale = await first()));
      expect(stale?.description).not.toBe('replayed later');
    } finally {
      await replica.resumeReplay();
    }
    // Kept, the stale page would be served until the account's next change (or the entry's 60 s expiry);
    // read anew, it shows the change once the replica has replayed it, which takes milliseconds.
    await eventually(
      'the replayed change served',
      async () => ((await first()).description === 'replayed later' ? true : undefined),
      REPLAYED_WITHIN_MS,
    );
  });

  it('sends every read to the primary while the replica is too far behind, and back when it catches up', async () => {
    await replica.pauseReplay();
    try {
      await db.query('SELECT 1 FROM pg_switch_wal()');
      await eventually(
        `the replica given up after ${REPLICA_MAX_LAG_MS} ms behind`,
        async () => ((await replicaUsable()) === 0 ? true : undefined),
        REPLICA_MAX_LAG_MS + WAIT.step,
      );
      expect(await sourceOf(() => eventsOf(other))).toBe('primary');
    } finally {
      await replica.resumeReplay();
    }
    await eventually('the replica caught up', async () => ((await replicaUsable()) === 1 ? true : undefined));
    await readOnReplica('reads back on the replica', () => eventsOf(other));
  });

  it('answers from the primary, without an error, while the replica is down, and returns to it', async () => {
    await replica.stop('immediate');
    try {
      for (let i = 0; i < 3; i += 1) {
        const page = await tenant.client.get(`/v1/accounts/${accountId}/transactions?limit=10`);
        expect(page.status).toBe(200);
        expect((await other.client.get('/v1/events?limit=5')).status).toBe(200);
      }
      expect(await replicaUsable()).toBe(0);
    } finally {
      await replica.start();
    }
    await eventually('the replica read again', async () =>
      (await replicaUsable()) === 1 ? true : undefined,
    );
    await readOnReplica('reads back on the replica', () => eventsOf(other));
  });
  it(
    'property: what an event told the merchant it reads at once, with replay paused and resumed at random',
    async () => {
      const listed = async () =>
        dataOf<unknown[]>(await tenant.client.get('/v1/events?type=sync.succeeded&limit=100')).length;
      // What the relay has numbered on the primary: the moment the merchant may be told (delivered, streamed).
      const relayed = async () =>
        (
          await db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM merchant_events
              WHERE merchant_id = $1 AND type = 'sync.succeeded' AND stream_seq IS NOT NULL`,
            [tenant.merchant.merchant.id],
          )
        ).rows[0].n;
      let paused = false;
      const setPaused = async (pause: boolean) => {
        if (pause && !paused) await replica.pauseReplay();
        if (!pause && paused) await replica.resumeReplay();
        paused = pause;
      };
      await assertProperty(
        fc.asyncProperty(
          fc.array(fc.record({ pausedForSync: fc.boolean(), pausedAfter: fc.boolean() }), {
            minLength: 1,
            maxLength: 3,
          }),
          async (steps) => {
            try {
              for (const { pausedForSync, pausedAfter } of steps) {
                await setPaused(pausedForSync);
                const known = await relayed();
                const { syncId } = dataOf<{ syncId: string }>(
                  await tenant.client.post(`/v1/accounts/${accountId}/sync`, {}, { headers: USER_PRESENT }),
                  202,
                );
                expect((await runWhenEnded(tenant.client, syncId)).status).toBe('succeeded');
                const told = await eventually('the sync’s event relayed', async () => {
                  const now = await relayed();
                  return now > known ? now : undefined;
                });
                // Read at once: every event the merchant may have been told of, whatever the replica did.
                const seen = await listed();
                expect(seen).toBeGreaterThanOrEqual(told);
                await setPaused(pausedAfter);
                // And never fewer after.
                expect(await listed()).toBeGreaterThanOrEqual(seen);
              }
            } finally {
              await setPaused(false);
            }
          },
        ),
        3,
      );
    },
    propertyTimeout(90_000),
  );
});
