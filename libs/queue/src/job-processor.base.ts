import { WorkerHost } from '@nestjs/bullmq';
import type { OnApplicationBootstrap } from '@nestjs/common';
import { type Job, UnrecoverableError } from 'bullmq';
import type { AppConfig } from '#libs/config';
import { runInContext } from '#libs/context';
import type { AppLogger } from '#libs/observability';
import { logConnectionErrors } from '#libs/redis';
import {
  ALL_JOB_NAMES,
  JOB_DEFINITIONS,
  type JobName,
  type JobNameOf,
  type JobOf,
  type JobResult,
  type QueueName,
} from './job-catalogue.js';

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
    this.worker.concurrency = this.processorConfig.sync.workerConcurrency;
    logConnectionErrors(this.worker, this.logger, `worker:${this.queue}`);
  }

  process(job: Job, token?: string): Promise<unknown> {
    const handler = (
      this.handlers as unknown as Record<string, ((job: Job, token?: string) => Promise<unknown>) | undefined>
    )[job.name];
    if (!handler) {
      return Promise.reject(new UnrecoverableError(`Unknown job ${job.name} on queue ${this.queue}`));
    }
    // Each job runs in a context of its own, so its log lines and upstream calls carry one id.
    return runInContext({ requestId: `job:${job.name}:${job.id}` }, () => handler(job, token));
  }
}

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
