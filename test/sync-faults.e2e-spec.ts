import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { uniqueQueuePrefix } from '#libs/testing';
import { onboard, type Stack, startStack, type Tenant } from './support/api-kit.js';
import { SandboxHttp } from './support/sandbox-http.js';
import {
  accountsWhenSynced,
  connectedUsers,
  storedTransactions,
  upstreamTransactions,
} from './support/sync-kit.js';

/** Transaction pages and balances only: the consent flow itself stays clean. */
const SYNC_READS = String.raw`/^\/accounts\/[^/]+\/(transactions|balances)$/`;

describe('sync under injected upstream faults', () => {
  let stack: Stack;
  let tenant: Tenant;
  let sandbox: SandboxHttp;

  beforeAll(async () => {
    stack = await startStack({
      worker: true,
      // A request the sandbox holds for 1.5 s is a timeout to a client that waits 500 ms.
      overrides: { QUEUE_PREFIX: uniqueQueuePrefix('sync-faults'), UPSTREAM_TIMEOUT_MS: '500' },
    });
    sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    tenant = await onboard(stack);
  });
  afterAll(async () => {
    await sandbox?.admin('DELETE', '/faults');
    await stack?.close();
  });

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
    for (const userId of users) synced.set(userId, await accountsWhenSynced(tenant.client, userId));
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
  }, 180_000);
});
