import { describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import {
  accountsWhenSynced,
  connectedUsers,
  eventually,
  storedTransactions,
  tuned,
  uniqueQueuePrefix,
  upstreamTransactions,
  useBankFaults,
  useStack,
  useTenant,
  useWorkers,
  WAIT,
} from './kit/index.js';

describe('sync across two worker processes, one of them killed mid-sync three times', () => {
  // Its workers dispatch every due account of their database: the test has one of its own.
  const stack = useStack({
    ownDatabase: 'crash',
    overrides: { QUEUE_PREFIX: uniqueQueuePrefix('sync-crash') },
  });
  const workers = useWorkers(stack, 2, {
    // Dispatches every 5 s, while the first syncs run: they must collapse into the running ones.
    ...tuned({ syncDispatchEverySeconds: 5 }),
    WORKER_CONCURRENCY: '4',
  });
  const tenant = useTenant(stack);
  const sandbox = useBankFaults(stack);

  it('ends with the exact sets, no run left running, and never two syncs of one account at once', async () => {
    // Slow pages, so that a sync is still running when its worker dies.
    expect(
      (
        await sandbox.admin('POST', '/faults', {
          method: 'GET',
          path: String.raw`/^\/accounts\/[^/]+\/transactions$/`,
          latencyMs: 250,
        })
      ).status,
    ).toBe(201);
    const prisma = stack.api.app.get(PrismaService);
    const consents = await connectedUsers(stack, tenant, 1);
    const users = [...consents.keys()];

    for (let kill = 0; kill < 3; kill++) {
      // Wait until a run has written a page, then kill the first worker and start a fresh one.
      await eventually('a run in progress', async () =>
        (await prisma.syncRun.count({
          where: { merchantId: tenant.merchant.merchant.id, status: 'RUNNING', pages: { gt: 0 } },
        })) > 0
          ? true
          : undefined,
      );
      await workers.replaceOldest();
      if (kill < 2) {
        // The next kill must hit a sync again: ask for more.
        for (const account of await prisma.account.findMany({
          where: { merchantId: tenant.merchant.merchant.id },
        }))
          await tenant.client.post(`/v1/accounts/${account.id}/sync`);
      }
    }

    await eventually(
      'every run ended',
      async () =>
        (await prisma.syncRun.count({
          where: { merchantId: tenant.merchant.merchant.id, status: { in: ['QUEUED', 'RUNNING'] } },
        })) === 0
          ? true
          : undefined,
      WAIT.recovery,
    );
    for (const userId of users) {
      const accounts = await accountsWhenSynced(tenant.client, userId);
      for (const account of accounts) {
        const stored = await storedTransactions(tenant.client, account.id);
        const upstream = await upstreamTransactions(stack, consents.get(userId)!, account.upstreamAccountId);
        expect(new Set(stored.map((t) => t.id)).size).toBe(stored.length);
        expect(stored.map((t) => t.id).sort()).toEqual(upstream.map((t) => t.id).sort());
      }
    }
    // One account, one sync at a time: no two runs of an account overlap in time.
    const runs = await prisma.syncRun.findMany({
      where: { merchantId: tenant.merchant.merchant.id },
      orderBy: [{ accountId: 'asc' }, { startedAt: 'asc' }],
    });
    for (let i = 1; i < runs.length; i++) {
      const [a, b] = [runs[i - 1], runs[i]];
      if (a.accountId === b.accountId && a.startedAt && b.startedAt) {
        expect(a.finishedAt!.getTime()).toBeLessThanOrEqual(b.startedAt.getTime());
      }
    }
    expect(runs.every((r) => r.status === 'SUCCEEDED')).toBe(true);
    // Each run's counts are the run's whole truth, whichever attempt (and worker) ended it: an account's
    // runs add up to what is stored, every run read its whole window, and the runs that changed the set
    // recorded transactions.changed exactly once (those that did not, never).
    const byAccount = new Map<string, typeof runs>();
    for (const r of runs) byAccount.set(r.accountId, [...(byAccount.get(r.accountId) ?? []), r]);
    for (const [accountId, accountRuns] of byAccount) {
      const stored = await prisma.transaction.count({ where: { accountId } });
      const net = accountRuns.reduce((n, r) => n + r.inserted - r.removed, 0);
      expect(net, `account ${accountId}: inserted - removed over its runs`).toBe(stored);
      for (const r of accountRuns) {
        expect(r.inserted + r.updated + r.unchanged, `run ${r.id}`).toBe(r.fetched);
        const changed = await prisma.merchantEvent.count({
          where: { type: 'TRANSACTIONS_CHANGED', data: { path: ['syncId'], equals: r.id } },
        });
        expect(changed, `run ${r.id}: transactions.changed`).toBe(
          r.inserted + r.updated + r.removed > 0 ? 1 : 0,
        );
      }
    }
  }, 240_000);
});
