import { BullModule } from '@nestjs/bullmq';
import { type DynamicModule, Global, Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { ALL_QUEUES } from './job-catalogue.js';
import { JobProducer } from './job-producer.service.js';
import { QueueErrorLogger } from './queue-errors.service.js';
import { bullmqPrefix } from './queue-prefix.js';

/** BullMQ on the configured Redis, every queue of the catalogue registered, and the typed producer. */
@Global()
@Module({})
export class QueueModule {
  static forRoot(): DynamicModule {
    return {
      module: QueueModule,
      imports: [
        BullModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (config: AppConfig) => ({
            // BullMQ's blocking commands need maxRetriesPerRequest: null on worker connections.
            connection: { url: config.redis.url, maxRetriesPerRequest: null },
            prefix: bullmqPrefix(config),
          }),
        }),
        BullModule.registerQueue(...ALL_QUEUES.map((name) => ({ name }))),
      ],
      providers: [JobProducer, QueueErrorLogger],
      exports: [BullModule, JobProducer],
    };
  }
}
