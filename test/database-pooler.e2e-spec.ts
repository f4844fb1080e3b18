import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMigrationsDir, migrate } from '#libs/database';
import { PaymentStatusPoller } from '#libs/domain/payments';
import {
  accountsWhenSynced,
  connect,
  dataOf,
  eventually,
  onboard,
  paymentApprovedAtBank,
  spawnWorker,
  type Stack,
  stackProcessEnv,
  startStack,
  type Tenant,
  uniqueQueuePrefix,
  useReceiver,
  type WorkerProcess,
} from './kit/index.js';
import { scrape, valueOf } from './kit/metrics-kit.js';
import { type PrivatePgbouncer, startPrivatePgbouncer } from './kit/private-pgbouncer.mjs';
import { type PrivateReplica, startPrivateReplica } from './kit/private-replica.mjs';
import { type PrivatePostgres, startPrivatePostgres } from './kit/private-services.mjs';

/** Server connections PgBouncer may open to the database: fewer than one api's pool alone asks for. */
const SERVER_CONNECTIONS = 3;

interface Page<T> {
  data: T[];
  meta: { nextCursor?: string | null; hasMore?: boolean; complete?: boolean };
}

/**
 * Issue 62: the api (in this process) and a worker (its own process) on DATABASE_URL through a real PgBouncer
 * in transaction mode (DATABASE_POOLER=transaction), with what holds a session (the read cache's and the
 * outbox relay's LISTEN) on DATABASE_DIRECT_URL, and a streaming replica for the reads that may be behind
 * (DATABASE_REPLICA_URL). Each transaction may land on any of a few server
 * connections, so a named statement or a session setting would fail here, as it did before.
 */
describe('behind PgBouncer in transaction mode: the flows that matter', () => {
  let database: PrivatePostgres;
  let replica: PrivateReplica;
  let bouncer: PrivatePgbouncer;
  let stack: Stack;
  let worker: WorkerProcess;
  let tenant: Tenant;
  const receiver = useReceiver();
  let pooled: pg.Client;

  beforeAll(async () => {
    database = await startPrivatePostgres();
    await migrate(database.url, defaultMigrationsDir());
    // The statement bound behind a pooler is the server's: set as docs/operations.md says.
    const direct = new pg.Client({ connectionString: database.url });
    await direct.connect();
    await direct.query(`ALTER ROLE postgres IN DATABASE bff SET statement_timeout = '30s'`);
    await direct.end();
    // A streaming replica beside it, as a deployment past one machine has: the reads it may serve go there.
    replica = await startPrivateReplica(database);
    bouncer = await startPrivatePgbouncer({ postgresUrl: database.url, poolSize: SERVER_CONNECTIONS });
    const pooler = {
      DATABASE_URL: bouncer.url(),
      DATABASE_DIRECT_URL: database.url,
      DATABASE_POOLER: 'transaction',
      DATABASE_REPLICA_URL: replica.url,
    };
    stack = await startStack({ overrides: { ...pooler, QUEUE_PREFIX: uniqueQueuePrefix('pooler') } });
    worker = spawnWorker(stackProcessEnv(stack, pooler));
    tenant = await onboard(stack);
    pooled = new pg.Client({ connectionString: bouncer.url() });
    await pooled.connect();
  });
  afterAll(async () => {
    await pooled?.end();
    await worker?.stop();
    await stack?.close();
    await bouncer?.destroy();
    await replica?.destroy();
    await database?.destroy();
  });

  it('connects a bank, syncs it in the worker, and serves its pages, the change feed and its events', async () => {
    const endpoint = await tenant.client.post('/v1/event-endpoints', { url: receiver.url, types: [] });
    expect(endpoint.status).toBe(201);
    await connect(stack, tenant);
    const accounts = await accountsWhenSynced(tenant.client, tenant.userId);

    // Stored pages, walked to the end. A page may be read from the replica, which may not have replayed
    // the sync's last pages when the account already shows it synced: walked again until every page
    // says the list is whole where it was read (its rows commit before the sync's end marks it so).
    const stored = await eventually('every stored page read whole', async () => {
      const ids: string[] = [];
      let cursor: string | null | undefined;
      do {
        const page = await tenant.client.get<Page<{ id: string }>>(
          `/v1/accounts/${accounts[0].id}/transactions?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        expect(page.status).toBe(200);
        if (!page.body.meta.complete) return undefined;
        ids.push(...page.body.data.map((t) => t.id));
        cursor = page.body.meta.nextCursor;
      } while (cursor);
      return ids;
    });
    expect(stored.length).toBeGreaterThan(200);
    expect(new Set(stored).size).toBe(stored.length);

    // The change feed, walked to the end, lists every stored record of the account as added.
    const added: string[] = [];
    let changes:
      { added: { transaction: { id: string } }[]; nextCursor: string; hasMore: boolean } | undefined;
    do {
      changes = dataOf(
        await tenant.client.get(
          `/v1/users/${tenant.userId}/transactions/changes?accountId=${accounts[0].id}&limit=500` +
            (changes ? `&cursor=${encodeURIComponent(changes.nextCursor)}` : ''),
        ),
      );
      added.push(...changes!.added.map((change) => change.transaction.id));
    } while (changes!.hasMore);
    expect(added.sort()).toEqual([...stored].sort());

    // The worker's relay heard the commits (LISTEN on the direct connection) and delivered them.
    await eventually('the connection’s events delivered', () => {
      const types = new Set(receiver.accepted().map((e) => e.type));
      return ['consent.authorized', 'sync.succeeded'].every((t) => types.has(t)) ? true : undefined;
    });
  });

  it('takes a payment through the bank to its final status', async () => {
    const created = await paymentApprovedAtBank(stack, tenant, tenant.userId, 'pooled-pay');
    const poller = stack.api.app.get(PaymentStatusPoller);
    const done = await eventually('the payment final', async () => {
      await poller.pollDue();
      const payment = dataOf<{ status: string }>(await tenant.client.get(`/v1/payments/${created.id}`));
      return ['PENDING', 'SUBMITTING'].includes(payment.status) ? undefined : payment;
    });
    expect(done.status).toBe('COMPLETED');
    await eventually('payment.completed delivered', () =>
      receiver.accepted().some((e) => e.type === 'payment.completed') ? true : undefined,
    );
  });

  it('signs a merchant in to the console', async () => {
    const signedIn = await stack.anonymous.post('/console/session', { apiKey: tenant.merchant.apiKey.key });
    expect(signedIn.status).toBe(200);
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0];
    const me = await stack.anonymous.get('/v1/me', { headers: { cookie } });
    expect(me.body).toMatchObject({ data: { kind: 'merchant', merchantId: tenant.merchant.merchant.id } });
  });

  it('drops a kept page when a write through the pooler commits (the read cache listens directly)', async () => {
    const reader = await onboard(stack);
    await connect(stack, reader);
    const balance = async () => {
      const accounts = dataOf<{ id: string; balances: { balance: { amount: string } }[] }[]>(
        await reader.client.get(`/v1/users/${reader.userId}/accounts`),
      );
      return { id: accounts[0].id, amount: accounts[0].balances[0].balance.amount };
    };
    // Read twice: the second is served from what the process keeps.
    const { id } = await balance();
    await balance();
    await pooled.query('UPDATE account_balances SET amount = 4242.42 WHERE account_id = $1', [id]);
    await eventually('the written balance served', async () =>
      (await balance()).amount === '4242.42' ? true : undefined,
    );
  });

  it('ran everything on a few server connections, each statement bounded by the server', async () => {
    const [pool] = (await bouncer.show('POOLS')).filter((p) => p.database !== 'pgbouncer');
    const servers = Number(pool.sv_active) + Number(pool.sv_idle) + Number(pool.sv_used);
    expect(servers).toBeGreaterThan(0);
    expect(servers).toBeLessThanOrEqual(SERVER_CONNECTIONS);
    expect((await pooled.query('SHOW statement_timeout')).rows[0]).toEqual({ statement_timeout: '30s' });
    // The worker process ran the flows above on the pooler too, and is still running.
    expect(worker.ended()).toBe(false);
    // And the replica served reads of them (database-replica.e2e-spec.ts holds which, and when not).
    const metrics = await scrape(`${stack.api.url}/metrics`);
    expect(valueOf(metrics, 'bff_database_reads_total', { source: 'replica' })).toBeGreaterThan(0);
  });
});
