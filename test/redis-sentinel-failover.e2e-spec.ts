import { type JobSchedulerJson, Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_QUEUES, bullmqPrefix } from '#libs/queue';
import { masterConnectionOptions } from '#libs/redis';
import {
  accountsWhenSynced,
  connect,
  dataOf,
  EventReceiver,
  eventually,
  onboard,
  runWhenEnded,
  sessionToken,
  spawnApi,
  spawnWorker,
  type Stack,
  stackProcessEnv,
  startStack,
  type Tenant,
  tuned,
  uniqueName,
  uniqueQueuePrefix,
  WAIT,
  type WorkerProcess,
} from './kit/index.js';
import { type PrivateSentinel, startPrivateSentinel } from './kit/private-sentinel.mjs';
import { badAnswers, secondsToFirstSuccess, steadyTraffic, stuckJobs } from './kit/redis-failover.js';
import { SseClient } from './kit/sse-client.js';

/** The promise (docs/operations.md, "Redis failover"): writes back within 15 s of a master's death. */
const WRITES_BACK_WITHIN_S = 15;
/** A job waiting or running longer than this after the failover is stuck (none runs nearly so long here). */
const STUCK_MS = 30_000;
/** The schedulers this test runs every 2 s: each must fire again after a failover, within a few rounds. */
const EVERY_SECONDS = 2;

/**
 * The stack on Redis Sentinel (one master, one replica, three sentinels), an api and a worker of their own
 * processes, under steady merchant traffic: the master SIGKILLed, then a planned SENTINEL FAILOVER. Each
 * time every client follows the new master with no restart, the window answers only 2xx or 503 with
 * Retry-After, and queues, schedulers, deliveries and streams carry on.
 */
describe('Redis Sentinel: the master killed, then failed over by plan, under traffic', () => {
  let sentinel: PrivateSentinel;
  let stack: Stack;
  let api: WorkerProcess & { url: string };
  let worker: WorkerProcess;
  let tenant: Tenant;
  let prefix: string;
  let accountId: string;
  let receiver: EventReceiver;
  let stream: SseClient;
  const queues: Queue[] = [];

  beforeAll(async () => {
    sentinel = await startPrivateSentinel();
    const overrides = {
      REDIS_SENTINELS: sentinel.sentinels,
      REDIS_SENTINEL_NAME: sentinel.name,
      // Nothing may fall back to a single Redis: a client that did would fail here.
      REDIS_URL: 'redis://127.0.0.1:1/0',
      QUEUE_PREFIX: (prefix = uniqueQueuePrefix('sentinel')),
      ...tuned({
        // Streams look on their own only this often: an event sooner was woken through Redis pub/sub.
        sseHeartbeatSeconds: 300,
        eventDeliveryBackoffSeconds: 1,
        // This stack's worker is the deployment's only one: its schedulers on, the short ones every 2 s.
        eventsSweepEverySeconds: EVERY_SECONDS,
        syncDispatchEverySeconds: EVERY_SECONDS,
        paymentStatusPollSeconds: EVERY_SECONDS,
        scheduleCheckSeconds: EVERY_SECONDS,
        // A run whose job a killed master took with it is found again this soon.
        syncRunIdleSeconds: 10,
        consentReconcileMinutes: 600,
        consentExpiryScanMinutes: 1440,
        institutionsRefreshMinutes: 360,
        retentionSweepMinutes: 600,
      }),
    };
    stack = await startStack({ ownDatabase: 'redis_sentinel', overrides });
    const env = { ...stackProcessEnv(stack), ...overrides, RATE_LIMIT_PER_MINUTE: '100000' };
    worker = spawnWorker(env);
    api = await spawnApi({ ...env, LOG_LEVEL: 'error' });
    tenant = await onboard(stack);
    await connect(stack, tenant);
    const accounts = await accountsWhenSynced(tenant.client, tenant.userId);
    accountId = accounts[0].id;
    receiver = await new EventReceiver().start();
    expect((await tenant.client.post('/v1/event-endpoints', { url: receiver.url, types: [] })).status).toBe(
      201,
    );
    const token = sessionToken(stack.api.config, {
      merchantId: tenant.merchant.merchant.id,
      userId: tenant.userId,
    });
    stream = await SseClient.open(`${api.url}/v1/users/${tenant.userId}/events`, token);
    const connection = masterConnectionOptions(stack.api.config.redis, { maxRetriesPerRequest: null });
    for (const name of ALL_QUEUES) {
      const queue = new Queue(name, { connection, prefix: bullmqPrefix(stack.api.config) });
      // The failover closes these connections too; they reconnect like the apps' own.
      queue.on('error', () => undefined);
      queues.push(queue);
    }
  }, 180_000);
  afterAll(async () => {
    stream?.close();
    await receiver?.stop();
    for (const queue of queues) await queue.close();
    await api?.stop();
    await worker?.stop();
    await stack?.close();
    await sentinel?.destroy();
  });

  /** Every scheduler of EVERY_SECONDS, by id, with when it next fires. */
  const shortSchedulers = async (): Promise<JobSchedulerJson[]> =>
    (await Promise.all(queues.map((q) => q.getJobSchedulers())))
      .flat()
      .filter((s) => s.every === EVERY_SECONDS * 1000);

  /**
   * Runs `failover` under steady traffic on the api process and checks what a failover promises; answers
   * the seconds from the failover to the first write that succeeded (an enqueue: a manual sync's 202).
   */
  async function underTraffic(
    failover: () => Promise<number>,
    afterPromotion: (old: number) => Promise<unknown> = () => Promise.resolve(),
  ): Promise<number> {
    const schedulers = await eventually('the short schedulers registered', async () => {
      const found = await shortSchedulers();
      return found.length >= 3 ? found : undefined;
    });
    const traffic = steadyTraffic(api.url, tenant.merchant.apiKey.key, [
      // Opens a run (Postgres) and enqueues its job (Redis): 202 only once Redis took the job. Twice, so
      // that one waiting out its 3 s enqueue deadline leaves the other to see Redis back sooner.
      { name: 'sync', method: 'POST', path: `/v1/accounts/${accountId}/sync` },
      { name: 'sync', method: 'POST', path: `/v1/accounts/${accountId}/sync` },
      { name: 'user', method: 'POST', path: '/v1/users', body: () => ({ reference: uniqueName('user') }) },
      { name: 'read', method: 'GET', path: `/v1/users/${tenant.userId}/accounts` },
    ]);
    let at = 0;
    let old = 0;
    let seconds: number | undefined;
    try {
      await eventually('steady traffic answering', () =>
        traffic.answers.filter((a) => a.name === 'sync' && a.status === 202).length >= 5 ? true : undefined,
      );
      // From when the master is dead (or asked to step down): a request sent before may still have made it.
      old = await failover();
      at = Date.now();
      const promoted = await sentinel.promotedFrom(old);
      expect(promoted).not.toBe(old);
      await afterPromotion(old);
      seconds = await eventually(
        'a write succeeding after the failover',
        () => secondsToFirstSuccess(traffic.answers, 'sync', at),
        WAIT.step,
      );
      // The traffic carries on a while on the new master.
      const since = Date.now();
      await eventually('steady traffic after the failover', () =>
        traffic.answers.filter((a) => a.name === 'sync' && a.sentAt > since && a.status === 202).length >= 10
          ? true
          : undefined,
      );
    } finally {
      await traffic.stop();
    }
    const answers = traffic.answers.filter((a) => a.sentAt >= at - 1000);
    const unavailable = answers.filter((a) => a.status === 503).length;
    console.log(
      `redis sentinel failover: first write ${seconds} s after; ${answers.length} requests in the window, ${unavailable} × 503`,
    );
    expect(badAnswers(traffic.answers)).toEqual([]);
    expect(seconds).toBeLessThanOrEqual(WRITES_BACK_WITHIN_S);

    // Work asked after the failover is done: the sync's job runs, its event reaches the endpoint and the
    // stream (woken through pub/sub on the new master).
    const streamed = stream.messages.length;
    const { syncId } = dataOf<{ syncId: string }>(
      await tenant.client.post(`/v1/accounts/${accountId}/sync`),
      202,
    );
    expect((await runWhenEnded(tenant.client, syncId)).status).toBe('succeeded');
    await eventually('a sync event delivered to the endpoint after the failover', () =>
      receiver.accepted().some((e) => e.body.includes(syncId)) ? true : undefined,
    );
    await eventually(
      'the stream woken after the failover',
      () => (stream.messages.length > streamed ? true : undefined),
      WAIT.step,
    );

    // Every short scheduler fired again on the new master.
    const failedOverAt = Date.now();
    await eventually(
      'every short scheduler firing after the failover',
      async () => {
        const now = await shortSchedulers();
        expect(now.map((s) => s.key).sort()).toEqual(schedulers.map((s) => s.key).sort());
        return now.every((s) => (s.next ?? 0) > failedOverAt) ? true : undefined;
      },
      WAIT.step,
    );

    // Nothing left behind: no job waiting or running past STUCK_MS, no run of the traffic still open.
    await eventually(
      'no job stuck and every run ended',
      async () => {
        expect(await stuckJobs(queues, STUCK_MS)).toEqual([]);
        const runs = await tenant.client.get<{ data: { status: string }[] }>(
          `/v1/accounts/${accountId}/syncs`,
        );
        return runs.body.data.every((r) => ['succeeded', 'failed'].includes(r.status)) ? true : undefined;
      },
      WAIT.recovery,
    );
    // The same processes throughout: none ended (so none was restarted).
    expect(worker.ended(), worker.output().slice(-3000)).toBe(false);
    expect(api.ended(), api.output().slice(-3000)).toBe(false);
    return old;
  }

  it('follows a master killed with SIGKILL: writes back within 15 s, no 5xx but 503, nothing stuck', async () => {
    // Everything is on the sentinels' master (BullMQ's own default, 127.0.0.1:6379, would also answer).
    const keys = await sentinel.cli(['--scan', '--pattern', `*${prefix}*`], await sentinel.master());
    expect(keys.split('\n').filter(Boolean).length).toBeGreaterThan(ALL_QUEUES.length);
    const killed = await underTraffic(() => sentinel.killMaster());
    // Back as a replica, for the planned failover to promote.
    await sentinel.restart(killed);
  }, 300_000);

  it('follows a planned SENTINEL FAILOVER the same way, leaving the old master at once', async () => {
    await underTraffic(
      () => sentinel.failover(),
      // The old master takes writes until the sentinels demote it, 8 to 10 s on, and loses them then: the
      // clients leave it on the sentinels' +switch-master instead (every connection but the sentinels' own
      // and this one's).
      (old) =>
        eventually(
          'no client left on the old master',
          async () => {
            const clients = (await sentinel.cli(['client', 'list', 'type', 'normal'], old))
              .split('\n')
              .filter((line) => line && !/ name=sentinel-/.test(line) && !/ cmd=client\|list/.test(line));
            return clients.length === 0 ? true : undefined;
          },
          5_000,
        ),
    );
  }, 300_000);
});
