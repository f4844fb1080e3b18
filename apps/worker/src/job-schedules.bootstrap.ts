import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { activeJobSchedules, JOB_DEFINITIONS, JobProducer, upsertJobSchedule } from '#libs/queue';
import { discoverJobProcessors } from './job-handlers.check.js';

/**
 * Registers every schedule of the job catalogue that this worker's configuration turns on, once the
 * workers of the job's queue are ready. Every worker does so under the same fixed scheduler ids, so the
 * deployment runs each job once per interval. A schedule set to 0 here is left alone, not removed: the
 * setting means "not scheduled by this worker" (the test kit sets all of them to 0 on shared queues).
 */
@Injectable()
export class JobSchedulesBootstrap implements OnApplicationBootstrap {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly producer: JobProducer,
    private readonly discovery: DiscoveryService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const processors = discoverJobProcessors(this.discovery);
    await Promise.all(
      activeJobSchedules(this.config).map(async (schedule) => {
        const queue = JOB_DEFINITIONS[schedule.name].queue;
        // The boot check has made sure a processor serves every queue of the catalogue.
        await Promise.all(processors.filter((p) => p.queue === queue).map((p) => p.worker.waitUntilReady()));
        await upsertJobSchedule(this.producer.queueFor(schedule.name), schedule);
      }),
    );
  }
}
