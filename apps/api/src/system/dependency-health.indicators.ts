import { Inject, Injectable } from '@nestjs/common';
import { type HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { DatabaseHealthRepository } from '#libs/database';
import { type AppLogger, dependencyOutages, LOGGER } from '#libs/observability';
import { REDIS, type RedisClient } from '#libs/redis';

const TIMEOUT_MS = 2_000;

@Injectable()
export class DependencyHealthIndicators {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly database: DatabaseHealthRepository,
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  postgres(): Promise<HealthIndicatorResult> {
    return this.probe('postgres', () => this.database.ping());
  }

  redisPing(): Promise<HealthIndicatorResult> {
    return this.probe('redis', () => this.redis.ping());
  }

  /**
   * Up when `ping` settles within the timeout; the error text stays in our logs (once per outage), not in
   * the probe answer. A probe that passes ends the outage in the logs.
   */
  private async probe(
    key: 'postgres' | 'redis',
    ping: () => Promise<unknown>,
  ): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check(key);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        ping(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), TIMEOUT_MS);
        }),
      ]);
      dependencyOutages.recovered(this.logger, key);
      return indicator.up();
    } catch (error) {
      dependencyOutages.failed(this.logger, key, error);
      return indicator.down({ detail: (error as Error).message === 'timeout' ? 'timeout' : 'unavailable' });
    } finally {
      clearTimeout(timer);
    }
  }
}
