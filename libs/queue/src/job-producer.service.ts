import { getQueueToken } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { JobsOptions, Queue } from 'bullmq';
import { JOB_DEFINITIONS, type JobName, type JobOf, type JobPayload } from './job-catalogue.js';

/** The only way to enqueue: the name fixes the queue, the payload type and the default options. */
@Injectable()
export class JobProducer {
  constructor(private readonly moduleRef: ModuleRef) {}

  queueFor(name: JobName): Queue {
    return this.moduleRef.get<Queue>(getQueueToken(JOB_DEFINITIONS[name].queue), { strict: false });
  }

  /**
   * `jobId` makes enqueueing idempotent: BullMQ keeps one job per id, so a burst of the same request
   * collapses into one job.
   */
  async enqueue<N extends JobName>(
    name: N,
    payload: JobPayload<N>,
    options: JobsOptions = {},
  ): Promise<JobOf<N>> {
    const job = await this.queueFor(name).add(name, payload, {
      ...JOB_DEFINITIONS[name].options,
      ...options,
    });
    return job as JobOf<N>;
  }
}
