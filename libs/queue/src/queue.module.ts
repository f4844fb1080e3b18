import { BullModule, getQueueToken } from '@nestjs/bullmq';
import {
  type BeforeApplicationShutdown,
  type DynamicModule,
  Global,
  Inject,
  Injectable,
  Module,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { type AppLogger, LOGGER } from '#libs/observability';
import { closeRedis, createRedisClient, masterConnectionOptions, type RedisClient } from '#libs/redis';
import { ALL_QUEUES } from './job-catalogue.js';
import { JobProducerService } from './job-producer.service.js';
import { LaneGovernor } from './lanes.js';
import { queueClient } from './queue-connection.js';
import { QueueErrorsService } from './queue-errors.service.js';
import { bullmqPrefix } from './queue-prefix.js';
import { queueTelemetry } from './queue-telemetry.js';

/**
 * While Redis is down, BullMQ's own close of a queue sends QUIT, which ioredis holds until Redis comes
 * back whenever commands wait in its offline queue (an enqueue that gave up at its deadline stays there):
 * the process would never exit. Before the queues are closed, a connection that is not up is closed by
 * force instead (nothing sent on it could have gone anywhere). Not by ioredis's own `disconnect()`: on a
 * client between two reconnect attempts it only cancels the next one, and leaves it reconnecting with
 * the QUIT queued behind the rest.
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
        // BullMQ's forced close: no QUIT, and the hook's later `close()` finds the connection closed.
        await queue.backend.close(true);
        dropped += 1;
      }),
    );
    if (dropped > 0) this.logger.info({ queues: dropped }, 'queue connections dropped: Redis unreachable');
  }
}

const QUEUE_CLUSTER = Symbol('QUEUE_CLUSTER');

/**
 * On a Redis Cluster, one cluster client every queue and worker shares (BullMQ takes a cluster only as a
 * client, never as options; each worker still opens its own blocking connection). Null on one master
 * (REDIS_URL or Sentinel), where BullMQ opens its own connections from masterConnectionOptions. Closed last: workers hand their jobs back before
 * the app's hooks run, and a queue's own close leaves a shared client open.
 */
@Injectable()
class QueueClusterCloser implements OnApplicationShutdown {
  constructor(
    @Inject(QUEUE_CLUSTER) private readonly cluster: RedisClient | null,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}
  async onApplicationShutdown(): Promise<void> {
    if (this.cluster) await closeRedis(this.cluster, this.logger, 'redis:queues');
  }
}

@Module({
  providers: [
    {
      provide: QUEUE_CLUSTER,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        config.redis.cluster ? createRedisClient(config.redis, { maxRetriesPerRequest: null }) : null,
    },
    QueueClusterCloser,
  ],
  exports: [QUEUE_CLUSTER],
})
class QueueClusterModule {}

/** BullMQ on the configured Redis, every queue of the catalogue registered, and the typed producer. */
@Global()
@Module({})
export class QueueModule {
  static forRoot(): DynamicModule {
    return {
      module: QueueModule,
      imports: [
        BullModule.forRootAsync({
          imports: [QueueClusterModule],
          inject: [APP_CONFIG, QUEUE_CLUSTER],
          useFactory: (config: AppConfig, cluster: RedisClient | null) => ({
            // BullMQ's blocking commands need maxRetriesPerRequest: null on worker connections. On one master
            // (REDIS_URL or Sentinel) BullMQ opens each connection from the same options as every other client.
            connection: cluster ?? masterConnectionOptions(config.redis, { maxRetriesPerRequest: null }),
            prefix: bullmqPrefix(config),
            telemetry: queueTelemetry(config),
          }),
        }),
        BullModule.registerQueue(...ALL_QUEUES.map((name) => ({ name }))),
      ],
      providers: [
        JobProducerService,
        LaneGovernor,
        {
          provide: QueueErrorsService,
          inject: [LOGGER, ...ALL_QUEUES.map((name) => getQueueToken(name))],
          useFactory: (logger: AppLogger, ...queues: Queue[]) => new QueueErrorsService(logger, queues),
        },
        {
          provide: QueueConnectionsCloser,
          inject: [LOGGER, ...ALL_QUEUES.map((name) => getQueueToken(name))],
          useFactory: (logger: AppLogger, ...queues: Queue[]) =>
            new QueueConnectionsCloser(logger, ...queues),
        },
      ],
      exports: [BullModule, JobProducerService, LaneGovernor],
    };
  }
}
