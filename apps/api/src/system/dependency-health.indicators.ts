import { Inject, Injectable } from '@nestjs/common';
import { type HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import type { Redis } from 'ioredis';
import { DatabaseHealthRepository } from '#libs/database';
import { REDIS } from '#libs/redis';

const TIMEOUT_MS = 2_000;

@Injectable()
export class DependencyHealthIndicators {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly database: DatabaseHealthRepository,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  postgres(): Promise<HealthIndicatorResult> {
    return this.probe('postgres', () => this.database.ping());
  }

  redisPing(): Promise<HealthIndicatorResult> {
    return this.probe('redis', () => this.redis.ping());
  }

  /** Up when `ping` settles within the timeout; the error text stays in our logs, not in the probe answer. */
  private async probe(key: string, ping: () => Promise<unknown>): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check(key);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        ping(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), TIMEOUT_MS);
        }),
      ]);
      return indicator.up();
    } catch (error) {
      return indicator.down({ detail: (error as Error).message === 'timeout' ? 'timeout' : 'unavailable' });
    } finally {
      clearTimeout(timer);
    }
  }
}
