import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { JobProducerService } from '#libs/queue';
import { connect, dataOf, onboard, type Tenant, uniqueQueuePrefix, useStack } from './kit/index.js';

/**
 * Noisy neighbours: one merchant's scheduled backlog never delays another merchant's new connection. The
 * stack runs no worker, so the queue holds what was enqueued in the order the workers would take it.
 */
describe('a first sync goes ahead of the scheduled backlog', () => {
  const stack = useStack({ overrides: { QUEUE_PREFIX: uniqueQueuePrefix('sync-fairness') } });
  let busy: Tenant;
  let newcomer: Tenant;

  beforeAll(async () => {
    [busy, newcomer] = [await onboard(stack), await onboard(stack)];
  });

  it('is the next job taken, however many scheduled syncs of another merchant wait', async () => {
    const jobs = stack.api.app.get(JobProducerService);
    const backlog = Array.from({ length: 2_500 }, () => ({
      merchantId: busy.merchant.merchant.id,
      accountId: randomUUID(),
      runId: randomUUID(),
    }));
    // What the dispatcher does with a merchant's due accounts: scheduled runs, at the queue's tail.
    await jobs.enqueueMany('sync.account', backlog);

    await connect(stack, newcomer, 'sandbox-redirect');
    const accounts = dataOf<{ id: string }[]>(
      await newcomer.client.get(`/v1/users/${newcomer.userId}/accounts`),
    );
    expect(accounts.length).toBeGreaterThan(0);

    const queue = jobs.queueFor('sync.account');
    // BullMQ takes waiting jobs from the head of this list (index 0 is the next one taken).
    const next = await queue.getWaiting(0, accounts.length - 1);
    expect(next.map((job) => job.data.merchantId)).toEqual(accounts.map(() => newcomer.merchant.merchant.id));
    expect(new Set(next.map((job) => job.data.accountId))).toEqual(new Set(accounts.map((a) => a.id)));
    expect(await queue.getWaitingCount()).toBe(backlog.length + accounts.length);
  });
});
