import { type Job, type JobSchedulerJson, Queue } from 'bullmq';
import { expect } from 'vitest';
import { ALL_QUEUES, bullmqPrefix } from '#libs/queue';
import { createRedisClient, masterConnectionOptions } from '#libs/redis';
import { eventually, tuned, uniqueQueuePrefix, WAIT } from '#libs/testing';
import { dataOf } from './api-client.js';
import { connect, onboard, type Stack, startStack, type Tenant } from './api-kit.js';
import { EventReceiver } from './event-kit.js';
import { sessionToken, uniqueName } from './factories.js';
import { badAnswers, secondsToFirstSuccess, steadyTraffic } from './failover-traffic.js';
import { SseClient } from './sse-client.js';
import { accountsWhenSynced, runWhenEnded } from './sync-kit.js';
import { USER_PRESENT } from './user-present.mjs';
import { spawnApi, spawnWorker, stackProcessEnv, type WorkerProcess } from './worker-process.js';

/**
 * Jobs waiting or running for longer than `ms`: a worker that lost its Redis and never came back leaves
 * them there. A job counts from when it could first run (its delay over) or, running, from its start.
 */
export async function stuckJobs(queues: readonly Queue[], ms: number): Promise<string[]> {
  const now = Date.now();
  const lists = await Promise.all(
    queues.map(async (queue) =>
      (await queue.getJobs(['active', 'waiting', 'prioritized'])).filter(Boolean).map((job: Job) => ({
        queue: queue.name,
        job,
      })),
    ),
  );
  return lists
    .flat()
    .filter(({ job }) => now - (job.processedOn ?? job.timestamp + (job.opts.delay ?? 0)) > ms)
    .map(({ queue, job }) => `${queue}/${job.name}#${job.id}`);
}

// ---- a stack to fail Redis over under -------------------------------------------------------------

/** The promise (docs/operations.md, "Redis failover"): writes back within 15 s of a master's death. */
export const WRITES_BACK_WITHIN_S = 15;
/** A job waiting or running longer than this after the failover is stuck (none runs nearly so long here). */
const STUCK_MS = 30_000;
/** The schedulers a failover stack runs every 2 s: each must fire again after a failover, within a few rounds. */
const EVERY_SECONDS = 2;

/** A stack on a Redis of a test's own, with an api and a worker of their own processes, to fail Redis over under. */
export interface FailoverStack {
  stack: Stack;
  api: WorkerProcess & { url: string };
  worker: WorkerProcess;
  tenant: Tenant;
  accountId: string;
  receiver: EventReceiver;
  stream: SseClient;
  /** Every queue of the deployment, on its Redis (these reconnect like the apps' own). */
  queues: Queue[];
  close(): Promise<void>;
}

/**
 * The stack on `redis` (REDIS_SENTINELS or REDIS_CLUSTER_NODES and what goes with it), its database and
 * queue prefix its own, with every scheduler on (the short ones every 2 s), a worker and an api process,
 * a tenant with a synced account, an endpoint receiving its events and a stream open on the api process.
 */
export async function startFailoverStack(
  label: string,
  redis: Record<string, string>,
): Promise<FailoverStack> {
  const overrides = {
    ...redis,
    // Nothing may fall back to a single Redis: a client that did would fail here.
    REDIS_URL: 'redis://127.0.0.1:1/0',
    QUEUE_PREFIX: uniqueQueuePrefix(label),
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
  const stack = await startStack({ ownDatabase: label, overrides });
  const opened: { close(): Promise<void> | void }[] = [];
  const close = async () => {
    for (const each of opened.reverse()) await each.close();
    await stack.close();
  };
  try {
    const env = { ...stackProcessEnv(stack), ...overrides, RATE_LIMIT_PER_MINUTE: '100000' };
    const worker = spawnWorker(env);
    opened.push({ close: () => worker.stop() });
    const api = await spawnApi({ ...env, LOG_LEVEL: 'error' });
    opened.push({ close: () => api.stop() });
    const tenant = await onboard(stack);
    await connect(stack, tenant);
    const [account] = await accountsWhenSynced(tenant.client, tenant.userId);
    const receiver = await new EventReceiver().start();
    opened.push({ close: () => receiver.stop() });
    expect((await tenant.client.post('/v1/event-endpoints', { url: receiver.url, types: [] })).status).toBe(
      201,
    );
    const token = sessionToken(stack.api.config, {
      merchantId: tenant.merchant.merchant.id,
      userId: tenant.userId,
    });
    const stream = await SseClient.open(`${api.url}/v1/users/${tenant.userId}/events`, token);
    opened.push({ close: () => stream.close() });
    const config = stack.api.config;
    const connection = config.redis.cluster
      ? createRedisClient(config.redis, { maxRetriesPerRequest: null })
      : masterConnectionOptions(config.redis, { maxRetriesPerRequest: null });
    const queues = ALL_QUEUES.map((name) => {
      const queue = new Queue(name, { connection, prefix: bullmqPrefix(config) });
      // The failover closes these connections too; they reconnect like the apps' own.
      queue.on('error', () => undefined);
      return queue;
    });
    opened.push({
      close: async () => {
        for (const queue of queues) await queue.close();
        if ('disconnect' in connection) connection.disconnect();
      },
    });
    return { stack, api, worker, tenant, accountId: account.id, receiver, stream, queues, close };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

/** Every scheduler of EVERY_SECONDS, with when it next fires. */
const shortSchedulers = async (queues: readonly Queue[]): Promise<JobSchedulerJson[]> =>
  (await Promise.all(queues.map((q) => q.getJobSchedulers())))
    .flat()
    .filter((s) => s.every === EVERY_SECONDS * 1000);

export interface FailoverRun<T> {
  /** Printed with the figures. */
  label: string;
  /** Kills the master or asks for a failover; resolves once done (with what `promoted` needs). */
  failover: () => Promise<T>;
  /** Resolves once a new master serves. */
  promoted: (old: T) => Promise<unknown>;
  /** Checked once promoted, before the traffic is judged. */
  afterPromotion?: (old: T) => Promise<unknown>;
  /** Where each client is connected and what it waits on, told when work did not carry on. */
  clients?: () => Promise<string>;
}

/**
 * Runs a failover under steady traffic on the api process and checks what a failover promises: only 2xx
 * or 503 with Retry-After, writes back within WRITES_BACK_WITHIN_S, work asked afterwards done (a sync,
 * its delivery, a stream woken), every short scheduler firing again, nothing stuck, no process ended.
 * Answers what `failover` resolved with and the seconds from it to the first write that succeeded (an
 * enqueue: a manual sync's 202).
 */
export async function failoverUnderTraffic<T>(
  { api, worker, tenant, accountId, receiver, stream, queues }: FailoverStack,
  run: FailoverRun<T>,
): Promise<{ old: T; seconds: number; jobSeconds: number }> {
  const schedulers = await eventually('the short schedulers registered', async () => {
    const found = await shortSchedulers(queues);
    return found.length >= 3 ? found : undefined;
  });
  const traffic = steadyTraffic(api.url, tenant.merchant.apiKey.key, [
    // Opens a run (Postgres) and enqueues its job (Redis): 202 only once Redis took the job. Twice, so
    // that one waiting out its 3 s enqueue deadline leaves the other to see Redis back sooner.
    // The user present: syncs asked this often are not the bank's daily reads without them.
    { name: 'sync', method: 'POST', path: `/v1/accounts/${accountId}/sync`, headers: USER_PRESENT },
    { name: 'sync', method: 'POST', path: `/v1/accounts/${accountId}/sync`, headers: USER_PRESENT },
    { name: 'user', method: 'POST', path: '/v1/users', body: () => ({ reference: uniqueName('user') }) },
    { name: 'read', method: 'GET', path: `/v1/users/${tenant.userId}/accounts` },
  ]);
  let at = 0;
  let jobSeconds = 0;
  let old: T;
  let seconds: number;
  try {
    await eventually('steady traffic answering', () =>
      traffic.answers.filter((a) => a.name === 'sync' && a.status === 202).length >= 5 ? true : undefined,
    );
    // From when the master is dead (or asked to step down): a request sent before may still have made it.
    old = await run.failover();
    at = Date.now();
    await run.promoted(old);
    await run.afterPromotion?.(old);
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
  const window = traffic.answers.filter((a) => a.sentAt >= at - 1000);
  const unavailable = window.filter((a) => a.status === 503).map((a) => a.name);
  console.log(
    `${run.label}: first write ${seconds} s after; ${window.length} requests from then, 503 for ${JSON.stringify(unavailable)}`,
  );
  expect(badAnswers(traffic.answers)).toEqual([]);
  expect(seconds).toBeLessThanOrEqual(WRITES_BACK_WITHIN_S);

  /** The short schedulers not yet fired since the failover, while waiting for them. */
  let late: string[] = [];
  try {
    // Work asked after the failover is done: the sync's job runs, its event reaches the endpoint and the
    // stream (woken through pub/sub on the new master). Asked of the stack's in-process api: its clients
    // had no traffic in the window, and must have followed all the same.
    const streamed = stream.messages.length;
    const { syncId } = dataOf<{ syncId: string }>(
      await tenant.client.post(`/v1/accounts/${accountId}/sync`, undefined, { headers: USER_PRESENT }),
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
        const now = await shortSchedulers(queues);
        expect(now.map((s) => s.key).sort()).toEqual(schedulers.map((s) => s.key).sort());
        late = now
          .filter((s) => (s.next ?? 0) <= failedOverAt)
          .map((s) => `${s.key} next ${s.next === undefined ? 'none' : new Date(s.next).toISOString()}`);
        return late.length === 0 ? true : undefined;
      },
      WAIT.step,
    );
    late = [];

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
    // The second figure of a failover (docs/operations.md): from the kill to the first job done that was
    // enqueued after it, which only a worker that followed the failover can have run. Done, not started:
    // BullMQ stamps a job with the time its command was sent, and a command sent during the failover
    // waits it out.
    jobSeconds = await eventually('a job enqueued after the failover done', async () => {
      const done = (await Promise.all(queues.map((q) => q.getJobs(['completed', 'failed'], 0, 500))))
        .flat()
        .filter((job) => job && job.timestamp >= at && job.finishedOn)
        .map((job) => job.finishedOn!);
      return done.length > 0 ? (Math.min(...done) - at) / 1000 : undefined;
    });
    console.log(`${run.label}: first job enqueued from then done ${jobSeconds} s after`);
    // The same processes throughout: none ended (so none was restarted).
    expect(worker.ended(), worker.output().slice(-3000)).toBe(false);
    expect(api.ended(), api.output().slice(-3000)).toBe(false);
  } catch (error) {
    // What the processes said, and what each queue holds, are the first things to read when work did not
    // carry on.
    const counts = await Promise.all(
      queues.map(async (q) => [q.name, await q.getJobCounts(), (await q.getWorkers()).length] as const),
    ).catch((err: unknown) => String(err));
    const clients = await run.clients?.().catch((err: unknown) => String(err));
    throw new Error(
      `${(error as Error).message}\n--- queues: ${JSON.stringify(counts)}` +
        (late.length > 0 ? `\n--- short schedulers still to fire: ${late.join('; ')}` : '') +
        (clients ? `\n--- clients:\n${clients}` : '') +
        `\n--- worker:\n${worker.output().slice(-4000)}\n--- api:\n${api.output().slice(-2000)}`,
      { cause: error },
    );
  }
  return { old: old!, seconds: seconds!, jobSeconds };
}
