import { type JobType, Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { activeJobSchedules, ALL_QUEUES, bullmqPrefix, type QueueName } from '#libs/queue';
import {
  accountsWhenSynced,
  connectedUsers,
  dataOf,
  eventually,
  onboard,
  postUpstreamEvent,
  registeredSecret,
  spawnWorker,
  type Stack,
  startStack,
  type Tenant,
  testConfig,
  tuned,
  uniqueName,
  uniqueQueuePrefix,
  upstreamEvent,
  WAIT,
  type WorkerProcess,
} from './kit/index.js';
import { type PrivateRedis, startPrivateRedis } from './kit/private-services.mjs';

const CHECK_SECONDS = 2;
/** Every schedule on, and short: the workers of this test are the deployment's only ones. */
const SCHEDULES = tuned({
  eventsSweepEverySeconds: 2,
  syncDispatchEverySeconds: 2,
  // The queued run's job is lost with Redis: the dispatcher finds it once it has been idle this long.
  syncRunIdleSeconds: 10,
  paymentStatusPollSeconds: 2,
  consentReconcileMinutes: 1,
  consentExpiryScanMinutes: 1440,
  institutionsRefreshMinutes: 360,
  retentionSweepMinutes: 60,
  scheduleCheckSeconds: CHECK_SECONDS,
});
/** BullMQ's states of a job that is still to run. */
const PENDING: JobType[] = ['waiting', 'delayed', 'prioritized'];

describe('Redis restarted without its data: the schedulers come back, and Postgres says what is left to do', () => {
  const prefix = uniqueQueuePrefix('redis-loss');
  let redis: PrivateRedis;
  let stack: Stack;
  let tenant: Tenant;
  const workers: WorkerProcess[] = [];
  const queues = new Map<QueueName, Queue>();
  const queueErrors: unknown[] = [];
  const expected = activeJobSchedules(testConfig(SCHEDULES));
  const workerEnv = () => ({
    DATABASE_URL: stack.databaseUrl,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: prefix,
    UPSTREAM_BASE_URL: stack.sandbox.url,
    ...SCHEDULES,
  });

  /** The schedulers Redis holds, and how many jobs each has waiting to run. */
  const schedulers = async () =>
    (
      await Promise.all(
        [...queues.values()].map(async (queue) => {
          const pending = await queue.getJobs(PENDING);
          return (await queue.getJobSchedulers()).map((s) => ({
            id: s.key,
            every: s.every,
            pending: pending.filter((job) => job.repeatJobKey === s.key).length,
          }));
        }),
      )
    )
      .flat()
      .sort((a, b) => a.id.localeCompare(b.id));
  const expectedSchedulers = JSON.stringify(
    expected.map((s) => ({ id: s.id, every: s.everyMs })).sort((a, b) => a.id.localeCompare(b.id)),
  );
  /**
   * Each scheduler of the configuration once, with its interval, and none with two jobs waiting (one is
   * normal; none, for the moment a worker takes the job and adds the next).
   */
  const schedulersAsConfigured = async () => {
    const found = await schedulers();
    expect(found.filter((s) => s.pending > 1)).toEqual([]);
    return JSON.stringify(found.map(({ id, every }) => ({ id, every }))) === expectedSchedulers
      ? true
      : undefined;
  };
  const restoredLines = () =>
    workers.map(
      (w) =>
        w
          .output()
          .split('\n')
          .filter((line) => line.includes('job scheduler restored')).length,
    );

  beforeAll(async () => {
    redis = await startPrivateRedis();
    stack = await startStack({
      ownDatabase: 'redis_loss',
      overrides: { REDIS_URL: redis.url, QUEUE_PREFIX: prefix },
    });
    tenant = await onboard(stack);
    const config = testConfig({ REDIS_URL: redis.url, QUEUE_PREFIX: prefix });
    for (const name of ALL_QUEUES) {
      const queue = new Queue(name, { connection: { url: redis.url }, prefix: bullmqPrefix(config) });
      // Kept, not printed: the restart closes these connections too, and that is the test's own doing.
      queue.on('error', (error) => queueErrors.push(error));
      queues.set(name, queue);
    }
    workers.push(spawnWorker(workerEnv()), spawnWorker(workerEnv()));
  }, 60_000);
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    for (const queue of queues.values()) await queue.close();
    await stack?.close();
    await redis?.destroy();
  });

  it('restores every scheduler once within the check interval, and the work stored before completes', async () => {
    expect(expected.map((s) => s.id)).toHaveLength(7);
    const prisma = stack.api.app.get(PrismaService);
    await eventually('the workers register their schedulers', schedulersAsConfigured);
    // A fresh Redis: the schedules are registered, which is no loss to warn of.
    expect(restoredLines()).toEqual([0, 0]);
    const consents = await connectedUsers(stack, tenant, 0);
    const [account] = await accountsWhenSynced(tenant.client, [...consents.keys()][0]);

    // Work Redis holds and then forgets: the queues are paused so that the jobs wait in Redis.
    await queues.get('events')!.pause();
    await queues.get('sync')!.pause();
    const upstreamConsentId = uniqueName('consent');
    await prisma.consent.create({
      data: {
        merchantId: tenant.merchant.merchant.id,
        userId: tenant.userId,
        kind: 'ACCOUNT',
        upstreamConsentId,
        institutionId: 'sandbox-redirect',
        status: 'AUTHORIZED',
      },
    });
    const webhook = upstreamEvent('consent.state.expired', { consentId: upstreamConsentId });
    expect((await postUpstreamEvent(stack, webhook, await registeredSecret(stack))).status).toBe(200);
    // The run the request answered, by its id. Once in CI no queued run of the account was found here
    // though the request answered 202: should it recur, the message says what the run was instead.
    const { syncId: runId } = dataOf<{ syncId: string }>(
      await tenant.client.post(`/v1/accounts/${account.id}/sync`),
      202,
    );
    const asked = await prisma.syncRun.findUniqueOrThrow({ where: { id: runId } });
    expect(
      asked.status,
      JSON.stringify({ ...asked, workers: workers.map((w) => w.output().slice(-3000)) }),
    ).toBe('QUEUED');
    expect((await prisma.inboundEvent.findFirstOrThrow({ where: { eventId: webhook.id } })).status).toBe(
      'RECEIVED',
    );

    const before = restoredLines();
    await redis.restart();
    const restartedAt = Date.now();

    // Every scheduler back, from the reconnection or the next check, each with one next job: two workers
    // restoring the same ids make one scheduler each, not two.
    await eventually('every scheduler restored', schedulersAsConfigured, (CHECK_SECONDS + 10) * 1000);
    expect(Date.now() - restartedAt).toBeLessThan((CHECK_SECONDS + 10) * 1000);
    // Said by the worker that restored it; both may have (they check at once), neither twice.
    const restoredSince = () => restoredLines().map((n, i) => n - before[i]);
    // The log line travels a pipe after the scheduler is in Redis: waited for, not assumed.
    await eventually(
      'a worker says it restored them',
      () => (Math.max(...restoredSince()) > 0 ? true : undefined),
      10_000,
    );

    // What Postgres holds is done: the webhook applied (the sweep finds its row RECEIVED), the run ended
    // (the dispatcher finds it queued and untouched).
    await eventually(
      'the stored webhook applied',
      async () =>
        (await prisma.inboundEvent.findFirstOrThrow({ where: { eventId: webhook.id } })).status ===
        'PROCESSED'
          ? true
          : undefined,
      WAIT.work,
    );
    await eventually(
      'the queued run ended',
      async () => {
        const run = await prisma.syncRun.findUniqueOrThrow({ where: { id: runId } });
        return ['SUCCEEDED', 'FAILED'].includes(run.status) ? run.status : undefined;
      },
      WAIT.recovery,
    ).then((status) => expect(status).toBe('SUCCEEDED'));

    // Still one scheduler each, and the restoration was said at most once by each worker, not at every
    // check since (one every CHECK_SECONDS while the work finished).
    expect(await schedulersAsConfigured()).toBe(true);
    expect(restoredSince().filter((n) => n > 1)).toEqual([]);
  }, 240_000);
});
