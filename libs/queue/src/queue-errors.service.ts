import { getQueueToken } from '@nestjs/bullmq';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bullmq';
import { type AppLogger, LOGGER } from '#libs/observability';
import { logConnectionErrors } from '#libs/redis';
import { ALL_QUEUES } from './job-catalogue.js';

/** Routes every queue's connection errors to the JSON logger (a Queue without a listener prints raw stacks). */
@Injectable()
export class QueueErrorLogger implements OnModuleInit {
  constructor(
    private readonly moduleRef: ModuleRef,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  onModuleInit(): void {
    for (const name of ALL_QUEUES) {
      const queue = this.moduleRef.get<Queue>(getQueueToken(name), { strict: false });
      logConnectionErrors(queue, this.logger, `queue:${name}`);
    }
  }
}
