import { getQueueToken } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bullmq';
import { DependencyUnavailableError } from '#libs/errors';
import { JOB_DEFINITIONS, type JobName, type JobOf, type JobPayload } from './job-catalogue.js';
import { queueClient } from './queue-connection.js';

/**
 * Jobs per `addBulk`. A bulk's jobs (BullMQ's Job objects, their JSON and packed arguments, the command
 * buffers) are all alive until its reply, so a bulk of the dispatcher's 5,000 outlived the young generation
 * and filled the old, so a large dispatch spent much of its time collecting garbage. Bulks of 200 were
 * the best of the sizes tried (re-measure: `npm run bench:scale`, its dispatch of 10^6 due accounts).
 */
const BULK = 200;

/** What a caller may vary per enqueue; everything else is the catalogue's. */
export interface EnqueueOptions {
  /** Run no earlier than this many milliseconds from now. */
  delay?: number;
}

/**
 * How long an enqueue may wait for Redis. The queue connection retries without limit (BullMQ needs that
 * for its workers), so without a deadline a request would hang for the whole outage. What an enqueue was
 * for is recorded in Postgres first, and the sweeps enqueue it again once Redis is back.
 */
export const ENQUEUE_DEADLINE_MS = 3_000;

async function withinDeadline<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new DependencyUnavailableError(
            'redis',
            `${what}: Redis did not answer within ${ENQUEUE_DEADLINE_MS} ms`,
          ),
        ),
      ENQUEUE_DEADLINE_MS,
    );
  });
  // The command stays in the client's offline queue and may still run once Redis is back: job ids make that harmless.
  work.catch(() => undefined);
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The only way to enqueue: the name fixes the queue, the payload type, the options and the dedupe id. */
@Injectable()
export class JobProducerService {
  /**
   * Queues whose connection was down once a call met its deadline, until it is ready again: calls on them
   * fail at once instead of each waiting out the deadline again (a bank callback enqueues three times, and
   * took 9 s to answer during an outage; a stopping api waited for it).
   */
  private readonly unreachable = new Set<Queue>();

  constructor(private readonly moduleRef: ModuleRef) {}

  queueFor(name: JobName): Queue {
    return this.moduleRef.get<Queue>(getQueueToken(JOB_DEFINITIONS[name].queue), { strict: false });
  }

  /** Idempotent for jobs with a dedupe id: while one is queued or running, the same job is returned. */
  async enqueue<N extends JobName>(
    name: N,
    payload: JobPayload<N>,
    options: EnqueueOptions = {},
  ): Promise<JobOf<N>> {
    const definition = JOB_DEFINITIONS[name];
    const jobId = definition.dedupeId?.(payload);
    const queue = this.queueFor(name);
    const job = await this.onQueue(queue, `enqueue ${name}`, () =>
      queue.add(name, payload, {
        ...definition.options,
        ...(jobId !== undefined ? { jobId } : {}),
        ...(options.delay !== undefined ? { delay: options.delay } : {}),
      }),
    );
    return job as JobOf<N>;
  }

  /**
   * Many jobs of one name, {@link BULK} to a round trip; each keeps its dedupe id, so repeats still
   * collapse. `traceContexts[i]` (currentTraceContext's form), when given, is the trace payload i's job
   * continues instead of the enqueuer's: work recorded earlier by another request or job (an outbox event's
   * delivery). `ahead` puts the jobs at the head of the queue instead of its tail.
   */
  async enqueueMany<N extends JobName>(
    name: N,
    payloads: readonly JobPayload<N>[],
    traceContexts: readonly (string | null)[] = [],
    { ahead = false }: { ahead?: boolean } = {},
  ): Promise<void> {
    const definition = JOB_DEFINITIONS[name];
    const queue = this.queueFor(name);
    for (let start = 0; start < payloads.length; start += BULK) {
      const chunk = payloads.slice(start, start + BULK);
      await this.onQueue(queue, `enqueue ${chunk.length} × ${name}`, () =>
        queue.addBulk(
          chunk.map((payload, i) => {
            const jobId = definition.dedupeId?.(payload);
            const metadata = traceContexts[start + i];
            return {
              name,
              data: payload,
              opts: {
                ...definition.options,
                ...(jobId !== undefined ? { jobId } : {}),
                ...(metadata ? { telemetry: { metadata } } : {}),
                // Ahead of everything waiting: work someone is waiting for now jumps the scheduled backlog.
                ...(ahead ? { lifo: true } : {}),
              },
            };
          }),
        ),
      );
    }
  }

  /**
   * Makes sure a deduplicated job will run: enqueued when missing, retried when it failed (for instance
   * after stalling too often), replaced when it completed; left alone while waiting, delayed or active.
   */
  async restart<N extends JobName>(name: N, payload: JobPayload<N>): Promise<void> {
    const jobId = JOB_DEFINITIONS[name].dedupeId?.(payload);
    if (jobId === undefined) throw new Error(`${name} has no dedupe id: there is no one job to restart`);
    const queue = this.queueFor(name);
    const job = await this.onQueue(queue, `look up ${jobId}`, () => queue.getJob(jobId));
    const state = job ? await this.onQueue(queue, `look up ${jobId}`, () => job.getState()) : 'missing';
    if (state === 'failed') return void (await job!.retry('failed'));
    if (state === 'completed') await job!.remove();
    if (state === 'missing' || state === 'completed' || state === 'unknown')
      await this.enqueue(name, payload);
  }

  /** Like restart, and a job waiting out a delay runs now instead. */
  async runNow<N extends JobName>(name: N, payload: JobPayload<N>): Promise<void> {
    const jobId = JOB_DEFINITIONS[name].dedupeId?.(payload);
    const queue = this.queueFor(name);
    const job =
      jobId === undefined
        ? undefined
        : await this.onQueue(queue, `look up ${jobId}`, () => queue.getJob(jobId));
    // Promoting races the delay ending by itself: either way the job is now waiting.
    if (job && (await job.getState()) === 'delayed') return void (await job.promote().catch(() => undefined));
    await this.restart(name, payload);
  }

  /**
   * `work` on `queue` within the deadline; refused at once while Redis is known unreachable: a call met
   * its deadline, and this queue's connection is not ready either.
   */
  private async onQueue<T>(queue: Queue, what: string, work: () => Promise<T>): Promise<T> {
    if (this.unreachable.size > 0 && (await this.latchIfDown(queue))) {
      throw new DependencyUnavailableError(
        'redis',
        `${what}: Redis unreachable (an earlier call met its ${ENQUEUE_DEADLINE_MS} ms deadline)`,
      );
    }
    try {
      return await withinDeadline(work(), what);
    } catch (error) {
      if (error instanceof DependencyUnavailableError) await this.latchIfDown(queue);
      throw error;
    }
  }

  /** Whether `queue` is held unreachable: its connection not ready, until the connection's next `ready`. */
  private async latchIfDown(queue: Queue): Promise<boolean> {
    if (this.unreachable.has(queue)) return true;
    const client = await queueClient(queue);
    // Still connected (Redis slow, not gone), or not connected once: no `ready` would release it.
    if (!client || client.status === 'ready') return false;
    this.unreachable.add(queue);
    client.once('ready', () => this.unreachable.delete(queue));
    return true;
  }
}
