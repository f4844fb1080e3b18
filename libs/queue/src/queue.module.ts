import { BullModule, getQueueToken } from '@nestjs/bullmq';
import { type BeforeApplicationShutdown, type DynamicModule, Global, Module } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { type AppLogger, LOGGER } from '#libs/observability';
import { ALL_QUEUES } from './job-catalogue.js';
import { JobProducer } from './job-producer.service.js';
import { queueClient } from './queue-connection.js';
import { QueueErrorLogger } from './queue-errors.service.js';
import { bullmqPrefix } from './queue-prefix.js';

/**
 * While Redis is down, BullMQ's own close of a queue sends QUIT, which ioredis holds until Redis comes
 * back: the process would never exit. Before the queues are closed, a connection that is not up is
 * dropped instead (nothing sent on it could have gone anywhere).
 */
class QueueConnectionsCloser implements BeforeApplicationShutdown {
  private readonly queues: Queue[];

  constructor(
    private readonly logger: AppLogger,
    ...queues: Queue[]
  ) {
    this.queues = queues;
  }

  async beforeApplicationShutdown(): Promise<void> {
    let dropped = 0;
    await Promise.all(
      this.queues.map(async (queue) => {
        const client = await queueClient(queue);
        // Not even connected once: BullMQ disconnects such a connection itself.
        if (!client || client.status === 'ready' || client.status === 'end') return;
        client.disconnect();
        dropped += 1;
      }),
    );
    if (dropped > 0) this.logger.info({ queues: dropped }, 'queue connections dropped: Redis unreachable');
  }
}

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
      providers: [
        JobProducer,
        QueueErrorLogger,
        {
          provide: QueueConnectionsCloser,
          inject: [LOGGER, ...ALL_QUEUES.map((name) => getQueueToken(name))],
          useFactory: (logger: AppLogger, ...queues: Queue[]) =>
            new QueueConnectionsCloser(logger, ...queues),
        },
      ],
      exports: [BullModule, JobProducer],
    };
  }
}
