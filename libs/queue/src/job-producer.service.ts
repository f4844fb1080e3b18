import { getQueueToken } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bullmq';
import { JOB_DEFINITIONS, type JobName, type JobOf, type JobPayload } from './job-catalogue.js';

/** What a caller may vary per enqueue; everything else is the catalogue's. */
export interface EnqueueOptions {
  /** Run no earlier than this many milliseconds from now. */
  delay?: number;
}

/** The only way to enqueue: the name fixes the queue, the payload type, the options and the dedupe id. */
@Injectable()
export class JobProducer {
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
    const job = await this.queueFor(name).add(name, payload, {
      ...definition.options,
      ...(jobId !== undefined ? { jobId } : {}),
      ...(options.delay !== undefined ? { delay: options.delay } : {}),
    });
    return job as JobOf<N>;
  }
}
