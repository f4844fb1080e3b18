import { describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { IN_FLIGHT } from '#libs/domain/upstream-calls';
import {
  connectedUsers,
  eventually,
  sandboxOf,
  uniqueQueuePrefix,
  useStack,
  useTenant,
  useWorkers,
  WAIT,
} from './kit/index.js';

/**
 * The upstream call log against what the bank saw: workers SIGKILLed mid-sync lose no entry. Every
 * request the sandbox received for an account has its entry; one whose worker died before its answer
 * was written stays `IN_FLIGHT`.
 */
describe('upstream call log across worker kills', () => {
  // Its own database and sandbox: the log and the sandbox's counts are this test's alone.
  const stack = useStack({
    ownDatabase: 'call_log_crash',
    overrides: { QUEUE_PREFIX: uniqueQueuePrefix('call-log-crash') },
  });
  const workers = useWorkers(stack, 2, { WORKER_CONCURRENCY: '4' });
  const tenant = useTenant(stack);
  const sandbox = sandboxOf(stack);

  it('holds an entry for every account request the bank received', async () => {
    const prisma = stack.api.app.get(PrismaService);
    const merchantId = tenant.merchant.merchant.id;
    const running = async () =>
      prisma.syncRun.count({ where: { merchantId, status: { in: ['QUEUED', 'RUNNING'] } } });
    await connectedUsers(stack, tenant, 2);
    await eventually(
      'the first syncs ended',
      async () => ((await running()) === 0 ? true : undefined),
      WAIT.recovery,
    );

    // From here on the sandbox counts (and slows) every account request carrying a consent.
    const last = (await prisma.upstreamCall.aggregate({ _max: { id: true } }))._max.id ?? 0n;
    const rule = await sandbox.admin<{ data: { id: string } }>('POST', '/faults', {
      method: 'GET',
      path: String.raw`/^\/accounts\/.+/`,
      header: { name: 'consent' },
      latencyMs: 500,
    });
    expect(rule.status).toBe(201);

    const hits = async () =>
      (await sandbox.admin<{ data: { id: string; hits: number }[] }>('GET', '/faults')).body.data.find(
        (r) => r.id === rule.body.data.id,
      )!.hits;
    for (let kill = 0; kill < 3; kill++) {
      const before = await hits();
      for (const account of await prisma.account.findMany({ where: { merchantId } }))
        await tenant.client.post(`/v1/accounts/${account.id}/sync`);
      // The bank has a request of a sync in hand (each takes 500 ms): kill a worker now.
      await eventually('the bank reading an account', async () =>
        (await hits()) > before ? true : undefined,
      );
      await workers.replaceOldest();
    }
    await eventually(
      'every run ended',
      async () => ((await running()) === 0 ? true : undefined),
      WAIT.recovery,
    );

    const since = { id: { gt: last }, operation: { not: 'getAccounts' } };
    const logged = () => prisma.upstreamCall.count({ where: since });
    const seen = await hits();
    expect(seen).toBeGreaterThan(0);
    // Waits out any batch a surviving worker still holds: what is missing then was lost.
    const log = await eventually(
      'an entry for every request the bank received',
      async () => {
        const count = await logged();
        return count >= seen ? count : undefined;
      },
      WAIT.step,
    ).catch(() => logged());
    expect(log).toBeGreaterThanOrEqual(seen);
    // Written ahead, an entry may also stand for a request its worker died before sending (seen beside
    // two busy loops): the bank never had it, and it can only be one of those left IN_FLIGHT.
    const inFlight = await prisma.upstreamCall.count({ where: { ...since, errorCode: IN_FLIGHT } });
    expect(log - seen).toBeLessThanOrEqual(inFlight);
  }, 300_000);
});
