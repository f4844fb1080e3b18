import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { REDIS } from '#libs/redis';

/**
 * Fixed one-minute windows, one counter per key, all counted in one Lua call so every api process sees
 * the same numbers and two keys (merchant and session user) move together. Returns the highest count
 * and how long until the window of the tightest key ends.
 */
const SCRIPT = `
local worst, retry = 0, 0
for i, key in ipairs(KEYS) do
  local count = redis.call('INCR', key)
  if count == 1 then redis.call('PEXPIRE', key, ARGV[1]) end
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then redis.call('PEXPIRE', key, ARGV[1]); ttl = tonumber(ARGV[1]) end
  if count > worst then worst = count; retry = ttl end
end
return { worst, retry }
`;

const WINDOW_MS = 60_000;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the caller may try again (whole seconds, at least 1). */
  resetSeconds: number;
}

@Injectable()
export class RateLimiter {
  private readonly prefix: string;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    // The queue prefix already separates deployments (and test runs) sharing one Redis.
    this.prefix = `${config.redis.queuePrefix}:rl:`;
  }

  async hit(subjects: string[]): Promise<RateDecision> {
    const limit = this.config.api.rateLimitPerMinute;
    const keys = subjects.map((s) => `${this.prefix}${s}`);
    const [count, ttlMs] = (await this.redis.eval(SCRIPT, keys.length, ...keys, WINDOW_MS)) as [
      number,
      number,
    ];
    return {
      allowed: count <= limit,
      limit,
      remaining: Math.max(0, limit - count),
      resetSeconds: Math.max(1, Math.ceil(ttlMs / 1000)),
    };
  }
}
