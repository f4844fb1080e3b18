import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { REDIS } from '#libs/redis';

/**
 * Fixed one-minute windows, one counter per key, all counted in one Lua call so every api process sees
 * the same numbers and two keys (merchant and session user) move together. Returns the highest count
 * and how long until the window of the tightest key ends. One Redis round trip per request, nothing else
 * on it: the script is sent once and then called by its SHA (ioredis `defineCommand`). Chosen over a
 * local token bucket synchronised with Redis because the limit is then exact across any number of api
 * processes, at the cost of one round trip that the request's authentication no longer makes.
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

/** The command `defineCommand` adds: EVALSHA of SCRIPT, falling back to EVAL once if Redis lost it. */
interface RateHitCommand {
  bffRateHit(numberOfKeys: number, ...args: (string | number)[]): Promise<[number, number]>;
}

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
    if (!('bffRateHit' in this.redis)) this.redis.defineCommand('bffRateHit', { lua: SCRIPT });
  }

  async hit(subjects: string[]): Promise<RateDecision> {
    const limit = this.config.api.rateLimitPerMinute;
    const keys = subjects.map((s) => `${this.prefix}${s}`);
    const redis = this.redis as unknown as RateHitCommand;
    const [count, ttlMs] = await redis.bffRateHit(keys.length, ...keys, WINDOW_MS);
    return {
      allowed: count <= limit,
      limit,
      remaining: Math.max(0, limit - count),
      resetSeconds: Math.max(1, Math.ceil(ttlMs / 1000)),
    };
  }
}
