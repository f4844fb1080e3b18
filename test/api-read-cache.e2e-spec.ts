import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_CACHE_APPLICATION_NAME, ReadCache } from '#libs/database';
import {
  ApiClient,
  connect,
  dataOf,
  eventually,
  onboard,
  spawnApi,
  type Tenant,
  testConfig,
  useStack,
  type WorkerProcess,
} from './kit/index.js';

const config = testConfig();

/** A balance amount of the user's accounts as an api process serves it. */
async function balanceOn(client: ApiClient, userId: string, accountId: string): Promise<string> {
  const accounts = dataOf<{ id: string; balances: { balance: { amount: string } }[] }[]>(
    await client.get(`/v1/users/${userId}/accounts`),
  );
  return accounts.find((a) => a.id === accountId)!.balances[0].balance.amount;
}

/**
 * The page-view reads (a user's accounts, the users page) are kept in each api process until Postgres
 * notifies a change of the merchant's data. Changes made behind the triggers' back (session_replication_role
 * = replica turns triggers off) show what is served from memory, and that nothing else is.
 */
describe('api: page-view reads kept per process until Postgres notifies a change', () => {
  // A database and queue prefix of its own: on the shared ones, another file's worker would run this
  // tenant's first sync (its jobs are on the shared queues), and its writes would notify at any moment.
  const stack = useStack({ ownDatabase: 'read_cache' });
  let second: WorkerProcess & { url: string };
  let tenant: Tenant;
  let accountId: string;
  let db: pg.Client;
  const clients = () => [tenant.client, new ApiClient(second.url, tenant.merchant.apiKey.key)];

  /** Sets the account's balances to `amount`, with the tables' triggers on (notified) or off (silent). */
  async function setBalance(amount: string, notified: boolean) {
    await db.query('BEGIN');
    if (!notified) await db.query('SET LOCAL session_replication_role = replica');
    await db.query('UPDATE account_balances SET amount = $1 WHERE account_id = $2', [amount, accountId]);
    await db.query('COMMIT');
  }

  beforeAll(async () => {
    second = await spawnApi({
      LOG_LEVEL: 'error',
      UPSTREAM_BASE_URL: stack.sandbox.url,
      DATABASE_URL: stack.databaseUrl,
      QUEUE_PREFIX: stack.api.config.redis.queuePrefix,
    });
    tenant = await onboard(stack);
    await connect(stack, tenant);
    const accounts = dataOf<{ id: string }[]>(await tenant.client.get(`/v1/users/${tenant.userId}/accounts`));
    accountId = accounts[0].id;
    db = new pg.Client({ connectionString: stack.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await second?.stop();
  });

  it('serves a user’s accounts from memory on every process, and the change once Postgres notifies it', async () => {
    // A read between a notified commit and its notification's arrival is kept, then dropped when the
    // notification comes, and the silent change below then shows (see the next test): each process is
    // read first, so it holds a page the notification will drop, and a round that met the race anyway is
    // tried again, a few times at most. A process that kept nothing would show the silent change every time.
    let served: string[] = [];
    for (let round = 0; round < 3; round++) {
      await Promise.all(clients().map((client) => balanceOn(client, tenant.userId, accountId)));
      await setBalance(`10${round}.00`, true);
      for (const client of clients()) {
        await eventually(`${client.baseUrl} serving the notified balance`, async () =>
          (await balanceOn(client, tenant.userId, accountId)) === `10${round}.00` ? true : undefined,
        );
      }
      // Changed without a notification: both processes still serve what they keep, so neither read Postgres.
      await setBalance('200.00', false);
      served = await Promise.all(clients().map((client) => balanceOn(client, tenant.userId, accountId)));
      if (served.every((amount) => amount === `10${round}.00`)) break;
    }
    expect(served.map((amount) => amount.replace(/^10\d/, '10x'))).toEqual(['10x.00', '10x.00']);
    // Any change through the triggers reaches every process.
    await setBalance('300.00', true);
    for (const client of clients()) {
      await eventually(`${client.baseUrl} serving the notified balance`, async () =>
        (await balanceOn(client, tenant.userId, accountId)) === '300.00' ? true : undefined,
      );
    }
  });

  it('serves an account’s stored transactions without a query until Postgres notifies a change of them', async () => {
    const descriptions = async (client: ApiClient) =>
      dataOf<{ description: string }[]>(await client.get(`/v1/accounts/${accountId}/transactions`)).map(
        (t) => t.description,
      );
    /** One stored transaction, rewritten with the account's version moved on, notified or silently. */
    async function store(description: string, notified: boolean) {
      await db.query('BEGIN');
      if (!notified) await db.query('SET LOCAL session_replication_role = replica');
      await db.query(
        `INSERT INTO transactions (id, merchant_id, account_id, dedupe_key, date, status, amount, currency, raw, updated_at)
         SELECT gen_random_uuid(), merchant_id, id, 'read-cache', now(), 'BOOKED', 1, 'GBP', $2::jsonb, now()
         FROM accounts WHERE id = $1
         ON CONFLICT (account_id, dedupe_key) DO UPDATE SET raw = EXCLUDED.raw`,
        [
          accountId,
          // As a sync stores a record: the upstream's, its amounts as strings.
          JSON.stringify({
            id: 'read-cache',
            date: new Date().toISOString(),
            amount: '1.00',
            currency: 'GBP',
            description,
          }),
        ],
      );
      await db.query('UPDATE accounts SET transactions_version = transactions_version + 1 WHERE id = $1', [
        accountId,
      ]);
      await db.query('COMMIT');
    }
    // A page read between a notified commit and its notification's arrival is kept, then dropped when
    // the notification comes: the silent change below then shows. That is right (a notification only ever
    // drops), but it is not what this looks at; on a busy machine it happens now and then, so the round
    // is tried again, a few times at most. A process that kept nothing would show it every time.
    let served: string[][] = [];
    for (let round = 0; round < 3; round++) {
      await store(`first-${round}`, true);
      for (const client of clients()) {
        await eventually(`${client.baseUrl} serving the notified page`, async () =>
          (await descriptions(client)).join() === `first-${round}` ? true : undefined,
        );
      }
      // Stored and moved on silently: both processes still serve the page they kept, so neither asked
      // Postgres for the version.
      await store(`second-${round}`, false);
      served = await Promise.all(clients().map((client) => descriptions(client)));
      if (served.every((page) => page[0] === `first-${round}`)) break;
    }
    expect(served.map((page) => page[0]?.replace(/-\d$/, ''))).toEqual(['first', 'first']);
    await store('third', true);
    for (const client of clients()) {
      await eventually(`${client.baseUrl} serving the notified page`, async () =>
        (await descriptions(client)).join() === 'third' ? true : undefined,
      );
    }
  });

  it('reads its own writes at once: a user created or erased through a process shows on its next read', async () => {
    const list = async () =>
      dataOf<{ id: string }[]>(await tenant.client.get('/v1/users?limit=100')).map((u) => u.id);
    const before = await list();
    const created = dataOf<{ id: string }>(
      await tenant.client.post('/v1/users', { reference: `rc-${Date.now()}` }),
      201,
    );
    expect(await list()).toEqual([...before, created.id].sort());
    expect((await tenant.client.get(`/v1/users/${created.id}/accounts`)).status).toBe(200);
    expect((await tenant.client.delete(`/v1/users/${created.id}`)).status).toBe(204);
    expect(await list()).toEqual(before);
    expect((await tenant.client.get(`/v1/users/${created.id}/accounts`)).status).toBe(404);
  });

  it('drops what it keeps when its listening connection is lost, and keeps again once it listens again', async () => {
    await setBalance('400.00', true);
    for (const client of clients()) {
      await eventually(`${client.baseUrl} serving 400.00`, async () =>
        (await balanceOn(client, tenant.userId, accountId)) === '400.00' ? true : undefined,
      );
    }
    const listeners = () =>
      // This file's processes only: other files' listeners are on other databases.
      db.query(
        'SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()',
        [READ_CACHE_APPLICATION_NAME],
      );
    const before = (await listeners()).rows.map((r) => r.pid as number);
    expect(before.length).toBeGreaterThanOrEqual(2);
    await db.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [before]);
    // A silent change is served once the loss is noticed: nothing kept from before the loss is trusted.
    await setBalance('500.00', false);
    for (const client of clients()) {
      await eventually(`${client.baseUrl} serving 500.00`, async () =>
        (await balanceOn(client, tenant.userId, accountId)) === '500.00' ? true : undefined,
      );
    }
    // Back: each process listens on a new connection, and keeps what it reads again.
    await eventually('both processes listening again', async () =>
      (await listeners()).rows.filter((r) => !before.includes(r.pid)).length >= 2 ? true : undefined,
    );
    for (const client of clients()) {
      let amount = 500;
      await eventually(`${client.baseUrl} keeping what it reads again`, async () => {
        const served = await balanceOn(client, tenant.userId, accountId);
        amount += 1;
        await setBalance(`${amount}.00`, false);
        return (await balanceOn(client, tenant.userId, accountId)) === served ? true : undefined;
      });
    }
  });
});

/** The cache's own rules, on a real listening connection. */
describe('ReadCache', () => {
  const cache = new ReadCache(config);
  beforeAll(() => cache.listen());
  afterAll(() => cache.onApplicationShutdown());

  it('does not keep a read that a change of its merchant overtook', async () => {
    let loads = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowRead = cache.read('m-1', 'k', async () => {
      loads += 1;
      await gate;
      return 'old';
    });
    cache.invalidate('m-1');
    release();
    expect(await slowRead).toBe('old');
    const counted = (value: string) => () => {
      loads += 1;
      return Promise.resolve(value);
    };
    expect(await cache.read('m-1', 'k', counted('new'))).toBe('new');
    expect(await cache.read('m-1', 'k', counted('newer'))).toBe('new');
    expect(loads).toBe(2);
  });

  it('keeps each merchant apart: a change of one leaves the other’s reads', async () => {
    const value = (v: string) => () => Promise.resolve(v);
    await cache.read('m-2', 'k', value('two'));
    await cache.read('m-3', 'k', value('three'));
    cache.invalidate('m-2');
    expect(await cache.read('m-2', 'k', value('two again'))).toBe('two again');
    expect(await cache.read('m-3', 'k', value('three again'))).toBe('three');
  });
});
