import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { UserRepository } from '#libs/domain/users';
import {
  accountsWhenSynced,
  type ApiResponse,
  connect,
  createUser,
  onboard,
  runWhenEnded,
  SandboxHttp,
  sessionToken,
  storedTransactions,
  type SyncedAccount,
  type Tenant,
  uniqueQueuePrefix,
  upstreamConsentId,
  upstreamTransactions,
  USER_PRESENT,
  useStack,
} from './kit/index.js';

const DECIMAL = /^-?\d+\.\d{2,4}$/;

describe('sync: the worker brings every connected account into Postgres', () => {
  const stack = useStack({ worker: true, overrides: { QUEUE_PREFIX: uniqueQueuePrefix('sync') } });
  let tenant: Tenant;
  let consentId: string;
  let accounts: SyncedAccount[];
  let sandbox: SandboxHttp;

  beforeAll(async () => {
    sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    tenant = await onboard(stack);
    consentId = await connect(stack, tenant);
    accounts = await accountsWhenSynced(tenant.client, tenant.userId);
  }, 120_000);

  const byType = (type: string) => accounts.find((a) => a.type === type)!;

  it('syncs the three accounts by itself after authorisation: exactly the upstream’s sets, no duplicate', async () => {
    expect(accounts.map((a) => a.type).sort()).toEqual(['CREDIT_CARD', 'CURRENT', 'SAVINGS']);
    const counts: Record<string, number> = {};
    for (const account of accounts) {
      const stored = await storedTransactions(tenant.client, account.id);
      const upstream = await upstreamTransactions(stack, consentId, account.upstreamAccountId);
      counts[account.type] = stored.length;
      expect(new Set(stored.map((t) => t.id)).size).toBe(stored.length);
      expect(stored.map((t) => t.id).sort()).toEqual(upstream.map((t) => t.id).sort());
      for (const t of stored) expect(t.amount).toMatch(DECIMAL);
      expect(account.sync).toMatchObject({ status: 'synced', lastError: null });
      expect(Date.parse(account.sync.nextSyncAt!)).toBeGreaterThan(Date.now());
    }
    expect(counts).toEqual({ CURRENT: 6500, SAVINGS: 467, CREDIT_CARD: 0 });

    const prisma = stack.api.app.get(PrismaService);
    const runs = await prisma.syncRun.findMany({ where: { accountId: byType('CURRENT').id } });
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      status: 'SUCCEEDED',
      trigger: 'INITIAL',
      fetched: 6500,
      inserted: 6500,
      activeAccountId: null,
    });
    const events = await prisma.merchantEvent.findMany({
      where: { merchantId: tenant.merchant.merchant.id },
      orderBy: { seq: 'asc' },
    });
    expect(events.filter((e) => e.type === 'SYNC_SUCCEEDED')).toHaveLength(3);
    // The credit card's first sync changed nothing: no transactions.changed for it.
    expect(events.filter((e) => e.type === 'TRANSACTIONS_CHANGED')).toHaveLength(2);
  });

  it('pages the stored transactions both ways, filtered, with an opaque cursor', async () => {
    const current = byType('SAVINGS');
    const newestFirst = await storedTransactions(tenant.client, current.id, 'limit=50');
    const oldestFirst = await storedTransactions(tenant.client, current.id, 'limit=73&sort=date');
    expect(newestFirst).toHaveLength(467);
    expect(oldestFirst.map((t) => t.id)).toEqual([...newestFirst].reverse().map((t) => t.id));
    const dates = newestFirst.map((t) => Date.parse(t.date));
    expect(dates).toEqual([...dates].sort((a, b) => b - a));

    const from = newestFirst[200].date;
    const before = newestFirst[100].date;
    const window = await storedTransactions(
      tenant.client,
      current.id,
      `limit=7&from=${encodeURIComponent(from)}&before=${encodeURIComponent(before)}`,
    );
    const inWindow = newestFirst.filter((t) => t.date >= from && t.date < before);
    expect(window.map((t) => t.id)).toEqual(inWindow.map((t) => t.id));
  });

  it('serves stored and live records in one shape, with from inclusive and before exclusive on both', async () => {
    type Tx = { id: string; date: string; amount: string; currency: string; status?: string };
    const walk = async (path: string) => {
      const records: Tx[] = [];
      for (let next: string | undefined = path; next;) {
        const response: ApiResponse<{ data: Tx[]; links?: { next?: string } }> =
          await tenant.client.get(next);
        expect(response.status, next).toBe(200);
        records.push(...response.body.data);
        next = response.body.links?.next;
      }
      return records;
    };
    const savings = byType('SAVINGS');
    const all = await storedTransactions(tenant.client, savings.id);
    // A window that starts on one record and ends on another: the first is in it, the last is not.
    const [last, first] = [all[40], all[80]];
    const range = new URLSearchParams({ from: first.date, before: last.date }).toString();
    const stored = await walk(`/v1/accounts/${savings.id}/transactions?${range}&limit=7`);
    const live = await walk(`/v1/accounts/${savings.id}/transactions/live?${range}`);
    const ids = (records: Tx[]) => records.map((t) => t.id).sort();
    expect(ids(stored)).toContain(first.id);
    expect(ids(stored)).not.toContain(last.id);
    expect(ids(live)).toEqual(ids(stored));
    // One record shape: a stored record reads the same live, the enrichment and mutability (which the
    // bank's real-time endpoint never gives) included.
    const liveById = new Map(live.map((t) => [t.id, t]));
    for (const t of stored) {
      expect(t.amount).toMatch(DECIMAL);
      expect(t.currency).toMatch(/^[A-Z]{3}$/);
      expect(t).toHaveProperty('enrichment.transactionHash');
      expect(t).toHaveProperty('transactionMutability');
      expect(liveById.get(t.id), t.id).toEqual(t);
    }
    // Whole days mean the same on both: from the start of one UTC day to the start of the next.
    const day = first.date.slice(0, 10);
    const next = new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10);
    const oneDay = `from=${day}&before=${next}`;
    const storedDay = ids(await walk(`/v1/accounts/${savings.id}/transactions?${oneDay}`));
    expect(storedDay.length).toBeGreaterThan(0);
    expect(ids(await walk(`/v1/accounts/${savings.id}/transactions/live?${oneDay}`))).toEqual(storedDay);
    expect(
      all
        .filter((t) => t.date.startsWith(day))
        .map((t) => t.id)
        .sort(),
    ).toEqual(storedDay);
  });

  it('applies the upstream’s changes on the next sync, with the right counts', async () => {
    const current = byType('CURRENT');
    const base = `/consents/${await upstreamConsentId(stack, consentId)}/accounts/${current.upstreamAccountId}/transactions`;
    const upstreamBefore = await upstreamTransactions(stack, consentId, current.upstreamAccountId);
    // The two newest: inside the incremental window, and later records' running balances stay as they are.
    const newest = [...upstreamBefore].sort((a, b) => Date.parse(b.date) - Date.parse(a.date));
    const [changed, deleted] = [newest[0], newest[1]];

    // The newest page, read (and kept by the api's page cache) before anything changes.
    const newestPage = `/v1/accounts/${current.id}/transactions?limit=5`;
    const pageBefore = (await tenant.client.get(newestPage)).body.data as { id: string; amount: string }[];
    expect(pageBefore.map((t) => t.id)).toContain(changed.id);
    expect((await tenant.client.get(newestPage)).body.data).toEqual(pageBefore);

    const pending = await sandbox.admin('POST', base, {
      amount: -12.5,
      status: 'PENDING',
      description: 'coffee',
    });
    expect(pending.status).toBe(201);
    const toBook = await sandbox.admin('POST', base, { amount: -40, status: 'PENDING', description: 'fuel' });
    expect(toBook.status).toBe(201);
    expect((await sandbox.admin('PATCH', `${base}/${changed.id}`, { amount: 99.99 })).status).toBe(200);
    expect((await sandbox.admin('DELETE', `${base}/${deleted.id}`)).status).toBe(204);

    const first = await tenant.client.post(`/v1/accounts/${current.id}/sync`, undefined, {
      headers: USER_PRESENT,
    });
    expect(first.status).toBe(202);
    const run = await runWhenEnded(tenant.client, first.body.data.syncId);
    expect(run).toMatchObject({ status: 'succeeded', trigger: 'manual', error: null });
    expect(run.progress).toMatchObject({ inserted: 2, updated: 1, removed: 1 });
    // The same page read again: the sync's changes, never the page kept from before them.
    const pageAfter = (await tenant.client.get(newestPage)).body.data as { id: string; amount: string }[];
    expect(pageAfter.find((t) => t.id === changed.id)?.amount).toBe('99.99');
    expect(pageAfter.some((t) => t.id === deleted.id)).toBe(false);

    // Pending → booked: the booked record arrives under a new id, and the pending one goes.
    const booked = await sandbox.admin('PATCH', `${base}/${toBook.body.data.id}`, { status: 'BOOKED' });
    expect(booked.status).toBe(200);
    const second = await tenant.client.post(`/v1/accounts/${current.id}/sync`, undefined, {
      headers: USER_PRESENT,
    });
    const run2 = await runWhenEnded(tenant.client, second.body.data.syncId);
    expect(run2.progress).toMatchObject({ inserted: 1, updated: 0, removed: 1 });
    expect(run2.window.from).not.toBeNull();
    expect(run2.progress.fetched).toBeLessThan(6500);

    const stored = await storedTransactions(tenant.client, current.id);
    const upstream = await upstreamTransactions(stack, consentId, current.upstreamAccountId);
    expect(stored.map((t) => t.id).sort()).toEqual(upstream.map((t) => t.id).sort());
    expect(stored.find((t) => t.id === changed.id)?.amount).toBe('99.99');
    expect(stored.some((t) => t.id === deleted.id)).toBe(false);
    expect(stored.filter((t) => t.status === 'PENDING').map((t) => t.id)).toEqual([pending.body.data.id]);
  });

  it('answers the same sync while one is queued or running', async () => {
    const savings = byType('SAVINGS');
    // The bank holds the run's first read, so the run is still open when the second request arrives
    // however slowly this machine serves the two: a run that already ended is rightly not answered again.
    const hold = {
      method: 'GET',
      path: `/accounts/${savings.upstreamAccountId}/transactions`,
      latencyMs: 1500,
    };
    expect((await sandbox.admin('POST', '/faults', { ...hold, count: 1 })).status).toBe(201);
    try {
      const [a, b] = await Promise.all([
        tenant.client.post(`/v1/accounts/${savings.id}/sync`, undefined, { headers: USER_PRESENT }),
        tenant.client.post(`/v1/accounts/${savings.id}/sync`, undefined, { headers: USER_PRESENT }),
      ]);
      expect(a.status).toBe(202);
      expect(b.body.data.syncId).toBe(a.body.data.syncId);
      expect((await runWhenEnded(tenant.client, a.body.data.syncId)).status).toBe('succeeded');
    } finally {
      await sandbox.admin('DELETE', '/faults');
    }
  });

  it('keeps other tenants out and refuses bad input with 400 in the envelope', async () => {
    const other = await onboard(stack);
    const current = byType('CURRENT');
    const sync = await tenant.client.post(`/v1/accounts/${current.id}/sync`, undefined, {
      headers: USER_PRESENT,
    });
    for (const [method, path] of [
      ['POST', `/v1/accounts/${current.id}/sync`],
      ['GET', `/v1/syncs/${sync.body.data.syncId}`],
      ['GET', `/v1/accounts/${current.id}/transactions`],
    ] as const) {
      const response = await other.client.call(method, path);
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    }
    for (const query of [
      'limit=0',
      'limit=1001',
      'limit=ten',
      'sort=amount',
      'from=yesterday',
      'before=2026-13-01',
      'cursor=bm90LWEtY3Vyc29y',
      'status=booked;drop',
      'from=2026-02-01T00:00:00Z&before=2026-01-01T00:00:00Z',
    ]) {
      const response = await tenant.client.get(`/v1/accounts/${current.id}/transactions?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_FAILED');
    }
    // A cursor of one sort order is refused in the other.
    const page = await tenant.client.get(`/v1/accounts/${current.id}/transactions?limit=1&sort=date`);
    const wrong = await tenant.client.get(
      `/v1/accounts/${current.id}/transactions?limit=1&sort=-date&cursor=${page.body.meta.nextCursor}`,
    );
    expect(wrong.status).toBe(400);
    expect((await tenant.client.get('/v1/syncs/not-a-uuid')).status).toBe(404);
    await runWhenEnded(tenant.client, sync.body.data.syncId);
  });

  it('lets a user session read and sync its own user’s accounts, and no one else’s', async () => {
    const current = byType('CURRENT');
    const own = stack.anonymous.as(
      sessionToken(stack.api.config, { merchantId: tenant.merchant.merchant.id, userId: tenant.userId }),
    );
    const page = await own.get(`/v1/accounts/${current.id}/transactions?limit=3`);
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(3);
    const requested = await own.post(`/v1/accounts/${current.id}/sync`);
    expect(requested.status).toBe(202);
    expect((await own.get(`/v1/syncs/${requested.body.data.syncId}`)).status).toBe(200);

    const otherUser = await createUser(stack.api.app.get(UserRepository), tenant.merchant.merchant.id);
    const other = stack.anonymous.as(
      sessionToken(stack.api.config, { merchantId: tenant.merchant.merchant.id, userId: otherUser.id }),
    );
    expect((await other.get(`/v1/accounts/${current.id}/transactions`)).status).toBe(404);
    expect((await other.post(`/v1/accounts/${current.id}/sync`)).status).toBe(404);
    expect((await other.get(`/v1/syncs/${requested.body.data.syncId}`)).status).toBe(404);
    await runWhenEnded(tenant.client, requested.body.data.syncId);
  });

  it('adds an account the bank lists later, and closes one it stops listing', async () => {
    const prisma = stack.api.app.get(PrismaService);
    const current = byType('CURRENT');
    const syncCurrent = async () => {
      const requested = await tenant.client.post(`/v1/accounts/${current.id}/sync`, undefined, {
        headers: USER_PRESENT,
      });
      expect((await runWhenEnded(tenant.client, requested.body.data.syncId)).status).toBe('succeeded');
    };
    const list = async () =>
      (await tenant.client.get<{ data: SyncedAccount[] }>(`/v1/users/${tenant.userId}/accounts`)).body.data;

    // Unknown here until now: the next sync of any account of the consent adds it, due at once.
    await prisma.account.delete({ where: { id: byType('CREDIT_CARD').id } });
    expect(await list()).toHaveLength(2);
    await syncCurrent();
    const added = (await list()).find((a) => a.type === 'CREDIT_CARD')!;
    expect(added.id).not.toBe(byType('CREDIT_CARD').id);
    expect(added.sync.status).toBe('pending');
    expect(Date.parse(added.sync.nextSyncAt!)).toBeLessThanOrEqual(Date.now());

    // No longer listed by the bank: closed, kept, never synced again.
    await prisma.account.update({
      where: { id: added.id },
      data: { upstreamAccountId: 'closed-at-the-bank' },
    });
    await syncCurrent();
    const closed = (await tenant.client.get(`/v1/accounts/${added.id}`)).body.data;
    expect(closed.sync).toMatchObject({ status: 'stopped', nextSyncAt: null });
    expect(closed.sync.lastError).toMatch(/no longer lists/);
    // A sync asked for says why, and not to connect the bank again: the consent is still authorised.
    const refused = await tenant.client.post(`/v1/accounts/${added.id}/sync`, undefined, {
      headers: USER_PRESENT,
    });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'CONFLICT']);
    expect(refused.body.error.message).toMatch(/no longer lists this account/);
    expect(refused.body.error.message).not.toMatch(/connect the bank again/);
    expect((await list()).filter((a) => a.type === 'CREDIT_CARD')).toHaveLength(2);
  });

  it('stops syncing a revoked consent, and the account says why', async () => {
    const savings = byType('SAVINGS');
    const revoked = await sandbox.admin(
      'POST',
      `/consents/${await upstreamConsentId(stack, consentId)}/revoke`,
    );
    expect(revoked.status).toBe(200);
    const requested = await tenant.client.post(`/v1/accounts/${savings.id}/sync`, undefined, {
      headers: USER_PRESENT,
    });
    expect(requested.status).toBe(202);
    const run = await runWhenEnded(tenant.client, requested.body.data.syncId);
    expect(run).toMatchObject({ status: 'failed', error: { code: 'CONSENT_EXPIRED' } });

    const account = (await tenant.client.get(`/v1/accounts/${savings.id}`)).body.data;
    expect(account.sync).toMatchObject({ status: 'stopped', nextSyncAt: null });
    expect(account.sync.lastError).toMatch(/revoked/i);
    const again = await tenant.client.post(`/v1/accounts/${savings.id}/sync`, undefined, {
      headers: USER_PRESENT,
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONSENT_NOT_AUTHORISED');
    // Its data is kept.
    expect(await storedTransactions(tenant.client, savings.id)).toHaveLength(467);
  });
});
