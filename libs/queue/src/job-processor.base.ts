import { dirname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OnWorkerEvent, WorkerHost } from '@nestjs/bullmq';
import { Inject, type OnApplicationBootstrap } from '@nestjs/common';
import { Backoffs, type Job, UnrecoverableError } from 'bullmq';
import type { AppConfig } from '#libs/config';
import { jobRequestId, runInContext } from '#libs/context';
import { type AppLogger, tagRequestSpan } from '#libs/observability';
import { connectionErrorLogger } from '#libs/redis';
import {
  ALL_JOB_NAMES,
  JOB_DEFINITIONS,
  type JobName,
  type JobNameOf,
  type JobOf,
  type JobResult,
  type QueueName,
} from './job-catalogue.js';
import { BULK_QUEUES, LaneGovernor } from './lanes.js';
import { queueClient } from './queue-connection.js';

/** One handler per job name of the queue, typed by the catalogue. */
export type JobHandlers<Q extends QueueName> = {
  /** `token`: the worker's lock on the job, which moving it (to delayed, for instance) requires. */
  [N in JobNameOf<Q>]: (job: JobOf<N>, token?: string) => Promise<JobResult<N>>;
};

/**
 * The base of every processor: a queue and its typed handler map. Dispatches by job name; a name without
 * a handler fails at once with `UnrecoverableError` (retrying cannot help). Processors stay thin: each
 * handler calls a domain service and throws what it throws.
 */
export abstract class JobProcessor<Q extends QueueName> extends WorkerHost implements OnApplicationBootstrap {
  abstract readonly queue: Q;
  protected abstract readonly handlers: JobHandlers<Q>;
  /** The process's lanes: bulk queues give way while work someone waits for runs. */
  @Inject(LaneGovernor) private readonly lanes!: LaneGovernor;
  /** The jobs this process is running, with the lock token that lets it hand them back at shutdown. */
  private readonly running = new Map<string, { job: Job; token?: string }>();
  private connectionErrors: ((error: Error) => void) | undefined;

  protected constructor(
    private readonly processorConfig: AppConfig,
    protected readonly logger: AppLogger,
  ) {
    super();
  }

  /** The job names this processor handles, for the boot check. */
  handledNames(): string[] {
    return Object.keys(this.handlers);
  }

  onApplicationBootstrap(): Promise<void> | void {
    // @Processor options are static; concurrency comes from configuration.
    this.worker.concurrency = this.concurrency(this.processorConfig);
    if (BULK_QUEUES.has(this.queue)) this.lanes.addBulkWorker(this.worker);
  }

  /** How many of the queue's jobs this process runs at once. */
  protected concurrency(config: AppConfig): number {
    return config.sync.workerConcurrency;
  }

  /**
   * The worker's connection errors, to the JSON logger. A worker event listener is attached as the worker
   * is made, before Redis can have refused it once (a worker without one prints raw stacks).
   */
  @OnWorkerEvent('error')
  onWorkerError(error: Error): void {
    this.connectionErrors ??= connectionErrorLogger(this.logger, `worker:${this.queue}`);
    this.connectionErrors(error);
  }

  process(job: Job, token?: string): Promise<unknown> {
    const handler = (
      this.handlers as unknown as Record<string, ((job: Job, token?: string) => Promise<unknown>) | undefined>
    )[job.name];
    if (!handler) {
      return Promise.reject(new UnrecoverableError(`Unknown job ${job.name} on queue ${this.queue}`));
    }
    const key = `${job.id}`;
    this.running.set(key, { job, token });
    // Each job runs in a context of its own, so its log lines and upstream calls carry one id; its span
    // (when traced) carries it too.
    const requestId = jobRequestId(job.name, job.id);
    tagRequestSpan(requestId);
    return runInContext({ requestId }, () => this.lanes.run(job, () => handler(job, token)))
      .catch((error: unknown) => {
        throw withRelativeStack(error);
      })
      .finally(() => this.running.delete(key));
  }

  /**
   * Shutdown: takes no new job, lets running ones finish until `drainUntil`, then hands those still
   * running back to the queue (active → wait, no attempt spent) so another worker starts them at once,
   * and closes the worker without waiting further. While Redis is down nothing can be handed back, nor a
   * finished job recorded, so the stop does not wait: such a job keeps its lock until the lock expires
   * (`lockDuration`), and then any worker's stalled-job check puts it back in wait, as after a crash. Runs before Nest's hooks, whose `worker.close()` would wait
   * for the jobs (and, with Redis down, forever).
   */
  async stop(drainUntil: number): Promise<void> {
    const worker = this.worker;
    const running = this.running.size;
    await bounded(worker.pause(true), 500);
    // A fetch already blocked on Redis would still take the next job, even once paused (a job handed
    // back below would come straight back here): its connection is cut, so it wakes empty-handed.
    await bounded(worker.backend.disconnectBlocking(false), 500);
    // With Redis away, a job that finishes now cannot be recorded as done (it runs again once its lock
    // expires, like one still running), so waiting for it buys nothing and spends the stop's budget.
    const client = await queueClient(worker);
    while (client?.status === 'ready' && this.running.size > 0 && Date.now() < drainUntil) await delay(50);
    const left = [...this.running.values()];
    if (running > 0 || left.length > 0) {
      this.logger.info(
        { queue: this.queue, finished: Math.max(0, running - left.length), stillRunning: left.length },
        left.length > 0 ? 'jobs still running at shutdown: handing them back' : 'running jobs finished',
      );
    }
    const redisUp = client?.status === 'ready';
    // All at once: one by one, a Redis that stops answering would cost a second per job, past the budget.
    const released = await Promise.all(
      left.map(
        async ({ job, token }) =>
          redisUp &&
          (await bounded(
            job.moveToWait(token).then(() => true),
            1_000,
          )) === true,
      ),
    );
    for (const [i, { job }] of left.entries()) {
      if (released[i]) {
        this.logger.info({ queue: this.queue, job: job.name, jobId: job.id }, 'job handed back to the queue');
      } else {
        const lockMs = worker.opts.lockDuration ?? 30_000;
        this.logger.warn(
          { queue: this.queue, job: job.name, jobId: job.id, lockMs },
          `job could not be handed back (Redis unreachable): another worker takes it once its lock expires`,
        );
      }
    }
    await bounded(worker.close(true), 1_000);
  }
}

/** The repository's root: where `dist/` (the build) or `libs/` (the sources, under vitest) begins. */
const ROOT = (() => {
  const here = dirname(fileURLToPath(import.meta.url));
  const distAt = here.indexOf(`${sep}dist${sep}`);
  return `${distAt >= 0 ? here.slice(0, distAt) : resolve(here, '../../..')}${sep}`;
})();

/**
 * A failed job's error with the repository's path left out of its stack: BullMQ keeps the stack with the
 * job, and the queue board shows it to the operator, who needs the files, not where a host keeps them.
 */
export function withRelativeStack<E>(error: E): E {
  if (error instanceof Error && typeof error.stack === 'string') {
    error.stack = error.stack.replaceAll(`file://${ROOT}`, '').replaceAll(ROOT, '');
  }
  return error;
}

/** `work`'s value, or undefined if it fails or takes longer than `ms` (it is then left to settle alone). */
async function bounded<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    work.catch(() => undefined),
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), ms);
    }),
  ]);
  clearTimeout(timer);
  return outcome;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Every job of the catalogue has a handler in the processor of its queue, and no processor handles a job
 * of another queue. The worker runs this at boot and refuses to start otherwise: a job nobody handles
 * would wait forever (or fail far from the change that caused it).
 */
export function checkJobHandlers(processors: { queue: QueueName; handledNames(): string[] }[]): string[] {
  const problems: string[] = [];
  const byQueue = new Map<QueueName, Set<string>>();
  for (const p of processors) {
    const names = byQueue.get(p.queue) ?? new Set<string>();
    for (const name of p.handledNames()) names.add(name);
    byQueue.set(p.queue, names);
  }
  for (const name of ALL_JOB_NAMES) {
    const queue = JOB_DEFINITIONS[name].queue;
    if (!byQueue.get(queue)?.has(name)) problems.push(`${name}: no handler in a processor of queue ${queue}`);
  }
  for (const processor of processors) {
    for (const name of processor.handledNames()) {
      const definition = JOB_DEFINITIONS[name as JobName] as { queue: QueueName } | undefined;
      if (!definition) problems.push(`${name}: handled on ${processor.queue} but not in the catalogue`);
      else if (definition.queue !== processor.queue)
        problems.push(
          `${name}: handled on ${processor.queue}, but the catalogue puts it on ${definition.queue}`,
        );
    }
  }
  return problems;
}

/**
 * What the queue will do when the running attempt of `job` fails with a retryable error: try again after
 * BullMQ's own backoff for the job's options (so what is shown is what happens), or nothing more.
 */
export function afterFailedAttempt(job: Job): { finalAttempt: boolean; retryInMs: number } {
  const finalAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  const backoff = job.opts.backoff === undefined ? undefined : Backoffs.normalize(job.opts.backoff);
  const delay =
    finalAttempt || !backoff ? 0 : Backoffs.calculate(backoff, job.attemptsMade + 1, new Error(), job);
  return { finalAttempt, retryInMs: typeof delay === 'number' ? delay : 0 };
}
