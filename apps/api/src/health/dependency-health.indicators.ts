import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { Redis } from 'ioredis';
import { DatabaseHealthRepository } from '#libs/database';
import { REDIS } from '#libs/redis';

const TIMEOUT_MS = 2_000;

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), TIMEOUT_MS).unref()),
  ]);
}

@Injectable()
export class DependencyHealthIndicators {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly database: DatabaseHealthRepository,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  async postgres(): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check('postgres');
    try {
      await withTimeout(this.database.ping());
      return indicator.up();
    } catch (error) {
      return indicator.down({ detail: (error as Error).message === 'timeout' ? 'timeout' : 'unavailable' });
    }
  }

  async redisPing(): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check('redis');
    try {
      await withTimeout(this.redis.ping());
      return indicator.up();
    } catch (error) {
      return indicator.down({ detail: (error as Error).message === 'timeout' ? 'timeout' : 'unavailable' });
    }
  }
}
