import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabasePool } from '#libs/database';
import { createBffClient } from '../libs/merchant-sdk/src/index.js';
import {
  connect,
  dataOf,
  eventually,
  onboard,
  SandboxHttp,
  storedTransactions,
  type Tenant,
  useStack,
} from './kit/index.js';

type SyncedEvent = {
  id: string;
  type: string;
  data: {
    consentId: string;
    institutionId: string;
    accounts: { accountId: string; syncId: string; status: string; inserted: number }[];
    inserted: number;
  };
};
type StoredMeta = { count: number; complete: boolean; syncStatus: string };

/**
 * Issue 41, connection-level readiness: `consent.synced` once every account of a consent has ended its
 * first sync, with each first sync and its counts, exactly once; and the stored list says while an
 * account's first sync is still writing it (`meta.complete: false`).
 */
describe('api: a connection ready, and a list that says it is partial', () => {
  const stack = useStack({ ownDatabase: 'connection_ready', worker: true });
  let tenant: Tenant;
  let sandbox: SandboxHttp;

  beforeAll(async () => {
    tenant = await onboard(stack);
    sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
  }, 120_000);
  afterAll(async () => {
    await sandbox?.admin('DELETE', '/faults');
  });

  const syncedEvents = async (consentId: string) =>
    dataOf<SyncedEvent[]>(await tenant.client.get('/v1/events?type=consent.synced&limit=100'), 200).filter(
      (e) => e.data.consentId === consentId,
    );

  it('announces consent.synced once, when the last first sync ends, and not for later syncs', async () => {
    // Slow pages: the first syncs are still running when the list is read.
    const slow = await sandbox.admin('POST', '/faults', {
      method: 'GET',
      path: '/accounts/*/transactions',
      latencyMs: 150,
    });
    expect(slow.status).toBe(201);
    const consentId = await connect(stack, tenant);
    const accounts = await stack.api.app.get(DatabasePool).rows<{ id: string }>({
      text: 'SELECT id FROM accounts WHERE consent_id = $1 ORDER BY id',
      values: [consentId],
    });
    const partial = await eventually('a page written while the first sync runs', async () => {
      for (const { id } of accounts) {
        const answer = await tenant.client.get(`/v1/accounts/${id}/transactions?limit=5`);
        const meta = (answer.body as { meta: StoredMeta }).meta;
        if (meta.count > 0 && !meta.complete) return { id, meta };
      }
      return undefined;
    });
    expect(partial.meta.syncStatus).toBe('syncing');
    expect(await syncedEvents(consentId)).toHaveLength(0);
    // The SDK waits for the whole list on the merchant's behalf (and gives up when told to).
    const sdk = createBffClient({ baseUrl: stack.api.url, token: tenant.merchant.apiKey.key });
    const given = new AbortController();
    given.abort(new Error('gave up'));
    await expect(sdk.transactions.whenComplete(partial.id, { signal: given.signal })).rejects.toThrow();
    const whole = sdk.transactions.whenComplete(partial.id, { intervalMs: 100 });
    await sandbox.admin('DELETE', '/faults');
    await whole;
    const now = (await tenant.client.get(`/v1/accounts/${partial.id}/transactions?limit=1`)).body as {
      meta: StoredMeta;
    };
    expect(now.meta.complete).toBe(true);

    const [synced] = await eventually('consent.synced', async () => {
      const events = await syncedEvents(consentId);
      return events.length > 0 ? events : undefined;
    });
    expect(synced.data.institutionId).toBe('sandbox-redirect');
    expect(synced.data.accounts.map((a) => a.accountId)).toEqual(accounts.map((a) => a.id));
    let stored = 0;
    for (const account of synced.data.accounts) {
      expect(account.status).toBe('succeeded');
      const run = dataOf<{ trigger: string; status: string; progress: { inserted: number } }>(
        await tenant.client.get(`/v1/syncs/${account.syncId}`),
        200,
      );
      expect(run).toMatchObject({ trigger: 'initial', status: 'succeeded' });
      expect(account.inserted).toBe(run.progress.inserted);
      const records = await storedTransactions(tenant.client, account.accountId);
      expect(records).toHaveLength(account.inserted);
      stored += records.length;
      // Another process's change reaches this api's read cache a few milliseconds after its commit.
      await eventually('the list says it is whole', async () => {
        const page = await tenant.client.get(`/v1/accounts/${account.accountId}/transactions?limit=1`);
        const { meta } = page.body as { meta: StoredMeta };
        return meta.complete && meta.syncStatus === 'synced' ? meta : undefined;
      });
    }
    expect(synced.data.inserted).toBe(stored);

    // A later sync of an account is not a first one: nothing more is announced.
    const again = dataOf<{ syncId: string }>(
      await tenant.client.post(`/v1/accounts/${accounts[0].id}/sync`, {}),
      202,
    );
    await eventually('the manual sync ended', async () => {
      const run = dataOf<{ status: string }>(await tenant.client.get(`/v1/syncs/${again.syncId}`), 200);
      return ['succeeded', 'failed'].includes(run.status) ? run : undefined;
    });
    expect(await syncedEvents(consentId)).toHaveLength(1);
  }, 120_000);
});
