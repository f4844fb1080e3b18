import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { dependencyFailureOf } from '#libs/errors';
import { type AppLogger, dependencyOutages, LOGGER } from '#libs/observability';
import { REDIS, type RedisClient } from '#libs/redis';

/**
 * Fixed one-minute windows, one counter per key in Redis, shared by every api process. A process does not
 * ask Redis for every request: it leases requests from the counter (`INCRBY` of the lease, never past the
 * limit) and serves them from memory until the lease is spent or the window ends.
 *
 * - Never more than the limit in a window, whatever the number of processes: a request is only served
 *   from a lease Redis granted.
 * - A lease is the process's expected demand for the next 100 ms (at least the requests waiting for it),
 *   and never more than an eighth of what the window has left. A key used at a few requests a second
 *   leases one at a time, which is the exact one-round-trip-per-request limit; a busy key makes a round
 *   trip every 100 ms or so instead of one per request, which kept the stored read's p99 off Redis's
 *   queue (re-measure: `npm run bench -- --only sync`).
 * - The price: tokens leased by one process and not used are not available to another until the window
 *   ends, so near the limit a key can be refused while another process still holds a few (at most an
 *   eighth of what was left when it leased). `x-ratelimit-remaining` counts them as used.
 * - A key found exhausted is refused from memory until its window ends: the count never goes down.
 * - Without Redis the limiter fails open to a limit of its own: each process counts every key in a local
 *   one-minute window against the same limit, so a merchant stays bounded (by the limit times the number
 *   of api processes) and requests that need no Redis keep working. It asks Redis again every
 *   LOCAL_RETRY_MS; the outage is logged once ("redis unavailable", then "redis available again").
 */
const SCRIPT = `
local limit, want, window = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local grant = math.min(want, limit - used)
if grant > 0 then
  used = redis.call('INCRBY', KEYS[1], grant)
else
  grant = 0
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  if used > 0 then redis.call('PEXPIRE', KEYS[1], window) end
  ttl = tonumber(window)
end
return { grant, used, ttl }
`;

const WINDOW_MS = 60_000;
/** While Redis is down, how long the local windows serve before Redis is asked again. */
const LOCAL_RETRY_MS = 5_000;
/** How far ahead a lease covers the process's demand. */
const LEASE_HORIZON_MS = 100;
/** A lease takes at most this share of what the window has left. */
const LEASE_SHARE = 8;

/** The command `defineCommand` adds: EVALSHA of SCRIPT, falling back to EVAL once if Redis lost it. */
interface RateLeaseCommand {
  bffRateLease(key: string, limit: number, want: number, windowMs: number): Promise<[number, number, number]>;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the caller may try again (whole seconds, at least 1). */
  resetSeconds: number;
}

/** One key's state in this process. */
interface Bucket {
  key: string;
  /** Leased and not yet used. */
  tokens: number;
  /** The window's count in Redis at the last lease (leases of every process included). */
  used: number;
  /** When the window ends (this process's clock). */
  endsAt: number;
  /** Requests waiting for a lease. */
  waiting: number;
  lease?: Promise<void>;
  /** Requests in the current second and in the one before: the demand a lease is sized by. */
  second: number;
  hits: number;
  lastSecondHits: number;
}

/** A bucket with no tokens in hand, or whose window ended, must lease from Redis before it counts a hit. */
const needsLease = (bucket: Bucket, now: number) => bucket.endsAt <= now || bucket.tokens === 0;

@Injectable()
export class RateLimiterService implements OnModuleDestroy {
  private readonly prefix: string;
  private readonly buckets = new Map<string, Bucket>();
  private readonly sweeper: NodeJS.Timeout;
  /** The local windows used while Redis is down: key → count and end. */
  private readonly local = new Map<string, { count: number; endsAt: number }>();
  /** Until when the local windows serve (Redis failed); 0 while Redis answers. */
  private localUntil = 0;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {
    // The queue prefix already separates deployments (and test runs) sharing one Redis.
    this.prefix = `${config.redis.queuePrefix}:rl:`;
    if (!('bffRateLease' in this.redis))
      this.redis.defineCommand('bffRateLease', { numberOfKeys: 1, lua: SCRIPT });
    // Buckets of ended windows are dropped, so memory follows the keys in use.
    this.sweeper = setInterval(() => {
      const now = Date.now();
      for (const [key, bucket] of this.buckets)
        if (bucket.endsAt <= now && !bucket.lease) this.buckets.delete(key);
      for (const [key, window] of this.local) if (window.endsAt <= now) this.local.delete(key);
    }, WINDOW_MS);
    this.sweeper.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }

  async hit(subjects: string[]): Promise<RateDecision> {
    const keys = subjects.map((subject) => `${this.prefix}${subject}`);
    if (Date.now() < this.localUntil) return this.hitLocally(keys);
    try {
      const decision = await this.hitShared(keys);
      if (this.localUntil !== 0) {
        this.localUntil = 0;
        dependencyOutages.recovered(this.logger, 'redis');
      }
      return decision;
    } catch (error) {
      if (dependencyFailureOf(error) !== 'redis') throw error;
      this.localUntil = Date.now() + LOCAL_RETRY_MS;
      dependencyOutages.failed(this.logger, 'redis', error);
      return this.hitLocally(keys);
    }
  }

  /** The fallback while Redis is down: a fixed one-minute window per key in this process. */
  private hitLocally(keys: string[]): RateDecision {
    const limit = this.config.api.rateLimitPerMinute;
    const now = Date.now();
    const windows = keys.map((key) => {
      let window = this.local.get(key);
      if (!window || window.endsAt <= now) {
        window = { count: 0, endsAt: now + WINDOW_MS };
        this.local.set(key, window);
      }
      return window;
    });
    const endsAt = Math.min(...windows.map((w) => w.endsAt));
    const full = windows.find((w) => w.count >= limit);
    if (full) return { allowed: false, limit, remaining: 0, resetSeconds: seconds(full.endsAt - now) };
    for (const window of windows) window.count += 1;
    const remaining = Math.min(...windows.map((w) => limit - w.count));
    return { allowed: true, limit, remaining, resetSeconds: seconds(endsAt - now) };
  }

  private async hitShared(keys: string[]): Promise<RateDecision> {
    const limit = this.config.api.rateLimitPerMinute;
    const buckets = keys.map((key) => this.bucketOf(key));
    for (const bucket of buckets) this.count(bucket, Date.now());
    // Plain loops: this runs for every request, and the usual one has tokens in hand (no lease, no array).
    for (;;) {
      const now = Date.now();
      let short = false;
      for (const b of buckets) {
        if (b.endsAt > now && b.tokens === 0 && b.used >= limit && !b.lease) {
          return { allowed: false, limit, remaining: 0, resetSeconds: seconds(b.endsAt - now) };
        }
        if (needsLease(b, now)) short = true;
      }
      if (!short) {
        let tightest = Infinity;
        let endsAt = Infinity;
        for (const b of buckets) {
          b.tokens -= 1;
          tightest = Math.min(tightest, limit - b.used + b.tokens);
          endsAt = Math.min(endsAt, b.endsAt);
        }
        return {
          allowed: true,
          limit,
          remaining: Math.max(0, tightest),
          resetSeconds: seconds(endsAt - now),
        };
      }
      await Promise.all(buckets.filter((b) => needsLease(b, now)).map((b) => this.leaseFor(b, limit)));
    }
  }

  private bucketOf(key: string): Bucket {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { key, tokens: 0, used: 0, endsAt: 0, waiting: 0, second: 0, hits: 0, lastSecondHits: 0 };
      this.buckets.set(key, bucket);
    }
    return bucket;
  }

  private count(bucket: Bucket, now: number): void {
    const second = Math.floor(now / 1000);
    if (second !== bucket.second) {
      bucket.lastSecondHits = second === bucket.second + 1 ? bucket.hits : 0;
      bucket.second = second;
      bucket.hits = 0;
    }
    bucket.hits += 1;
  }

  /** Waits for a lease of the bucket: the one under way, or a new one. */
  private async leaseFor(bucket: Bucket, limit: number): Promise<void> {
    bucket.waiting += 1;
    try {
      if (!bucket.lease) {
        bucket.lease = this.lease(bucket, limit).finally(() => {
          bucket.lease = undefined;
        });
      }
      await bucket.lease;
    } finally {
      bucket.waiting -= 1;
    }
  }

  private async lease(bucket: Bucket, limit: number): Promise<void> {
    const now = Date.now();
    const fresh = bucket.endsAt <= now;
    const left = limit - (fresh ? 0 : bucket.used);
    const demand = Math.ceil((Math.max(bucket.hits, bucket.lastSecondHits) * LEASE_HORIZON_MS) / 1000);
    const want = Math.max(1, Math.min(Math.max(bucket.waiting, demand), Math.floor(left / LEASE_SHARE)));
    const redis = this.redis as unknown as RateLeaseCommand;
    const [grant, used, ttlMs] = await redis.bffRateLease(bucket.key, limit, want, WINDOW_MS);
    // Tokens of an ended window are void: the new window's count (this lease made the key when it is
    // all the count) started without them.
    bucket.tokens = (fresh || used === grant ? 0 : bucket.tokens) + grant;
    bucket.used = used;
    bucket.endsAt = Date.now() + ttlMs;
  }
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
