import { describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import {
  accountsWhenSynced,
  connectedUsers,
  dataOf,
  runWhenEnded,
  storedTransactions,
  uniqueQueuePrefix,
  upstreamTransactions,
  useBankFaults,
  useStack,
  useTenant,
} from './kit/index.js';

/**
 * How long an account may take to sync through these faults: a run's attempts back off 2, 4, 8, 16, 32 s,
 * so five failed attempts in a row (rare, likelier on a loaded machine, where the 500 ms client timeout is
 * met by slow answers too) take over a minute before the sixth; this bound covers them and the runs.
 */
const FAULTY_SYNC_MS = 150_000;

/** Transaction pages and balances only: the consent flow itself stays clean. */
const SYNC_READS = String.raw`/^\/accounts\/[^/]+\/(transactions|balances)$/`;

describe('sync under injected upstream faults', () => {
  const stack = useStack({
    worker: true,
    // A request the sandbox holds for 1.5 s is a timeout to a client that waits 500 ms.
    overrides: { QUEUE_PREFIX: uniqueQueuePrefix('sync-faults'), UPSTREAM_TIMEOUT_MS: '500' },
  });
  const tenant = useTenant(stack);
  const sandbox = useBankFaults(stack);

  it('ends with the exact sets over 12 accounts despite 5xx, 429 with Retry-After and timeouts', async () => {
    for (const rule of [
      { method: 'GET', path: SYNC_READS, status: 500, rate: 0.2 },
      { method: 'GET', path: SYNC_READS, status: 429, retryAfterSeconds: 1, rate: 0.05 },
      { method: 'GET', path: SYNC_READS, latencyMs: 1500, rate: 0.05 },
    ]) {
      expect((await sandbox.admin('POST', '/faults', rule)).status).toBe(201);
    }
    const consents = await connectedUsers(stack, tenant, 3);
    const users = [...consents.keys()];
    const synced = new Map<string, Awaited<ReturnType<typeof accountsWhenSynced>>>();
    for (const userId of users)
      synced.set(userId, await accountsWhenSynced(tenant.client, userId, FAULTY_SYNC_MS));
    const faults = await sandbox.admin<{ data: { hits: number }[] }>('GET', '/faults');
    // Every kind of fault was really served; then they stop, so that the check below reads the upstream.
    for (const rule of faults.body.data) expect(rule.hits).toBeGreaterThan(0);
    expect((await sandbox.admin('DELETE', '/faults')).status).toBe(204);
    for (const [userId, accounts] of synced) {
      expect(accounts).toHaveLength(3);
      for (const account of accounts) {
        const stored = await storedTransactions(tenant.client, account.id);
        const upstream = await upstreamTransactions(stack, consents.get(userId)!, account.upstreamAccountId);
        expect(new Set(stored.map((t) => t.id)).size).toBe(stored.length);
        expect(stored.map((t) => t.id).sort()).toEqual(upstream.map((t) => t.id).sort());
      }
    }
    const prisma = stack.api.app.get(PrismaService);
    expect(
      await prisma.syncRun.count({
        where: { merchantId: tenant.merchant.merchant.id, status: { in: ['QUEUED', 'RUNNING'] } },
      }),
    ).toBe(0);
  }, 240_000);

  it('retries a side call refused while the pages landed, instead of failing the attempt that did the work', async () => {
    const [userId] = (await connectedUsers(stack, tenant, 0)).keys();
    const [account] = await accountsWhenSynced(tenant.client, userId);
    const upstreamPath = `/accounts/${account.upstreamAccountId}`;
    // Every attempt of the balances call fails (the first try and the client's 3 retries), as when a
    // half-open breaker refused it; a rule that never hits counts the transaction pages read.
    const balances = await sandbox.admin<{ data: { id: string } }>('POST', '/faults', {
      method: 'GET',
      path: `${upstreamPath}/balances`,
      status: 503,
      count: 4,
    });
    const pages = await sandbox.admin<{ data: { id: string } }>('POST', '/faults', {
      method: 'GET',
      path: `${upstreamPath}/transactions`,
      status: 500,
      rate: 0.000001,
    });
    const { syncId } = dataOf<{ syncId: string }>(
      await tenant.client.post(`/v1/accounts/${account.id}/sync`),
      202,
    );
    const run = await runWhenEnded(tenant.client, syncId);
    expect(run.status).toBe('succeeded');
    const rules = (
      await sandbox.admin<{ data: { id: string; matched: number; hits: number }[] }>('GET', '/faults')
    ).body.data;
    const ruleOf = (id: string) => rules.find((r) => r.id === id)!;
    expect(ruleOf(balances.body.data.id).hits).toBe(4);
    // One attempt read the window: its pages were read once, not again by a second attempt.
    expect(ruleOf(pages.body.data.id).matched).toBe(run.progress.pages);
    expect((await sandbox.admin('DELETE', '/faults')).status).toBe(204);
  }, 120_000);
});
