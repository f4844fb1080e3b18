import type { AppLogger } from '#libs/observability';
import type { RedisClient } from '#libs/redis';
import { METRICS_READ_DEADLINE_MS, withDeadline } from './metrics-deadline.js';

/** How long Redis may take to hand over or take a snapshot before the worker does without it. */
const REDIS_BUDGET_MS = 1_000;

/** What a shared snapshot must carry: when it was read (epoch ms), the same on every worker that shows it. */
export interface Stamped {
  at: number;
}

/**
 * Loads a snapshot that one worker reads per `maxAgeMs` and every worker shows: the first to find the shared
 * copy older than `maxAgeMs` claims the next read (SET NX, for `maxAgeMs`), reads, and stores it; the others
 * show the copy they found, at most one read's time older. Without it every worker would run the same
 * aggregate statements (not cheap at scale) for the same figures. Whatever Redis does (down,
 * slow, a copy that does not parse), the worker reads for itself: a gauge must not go blank because Redis did.
 * Clocks: a copy's age is judged by this host's clock against the reader's, so hosts must keep NTP time.
 */
export class SharedSnapshot<T extends Stamped> {
  private readonly claimKey: string;
  /** Redis failed last time: said once, and once again when it answers. */
  private redisFailing = false;

  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
    private readonly maxAgeMs: number,
    private readonly read: () => Promise<T>,
    private readonly logger: AppLogger,
    private readonly now: () => number = Date.now,
  ) {
    this.claimKey = `${key}:claim`;
  }

  async load(): Promise<T> {
    let shared: T | undefined;
    let claimed: boolean;
    try {
      shared = this.parse(await withDeadline(this.redis.get(this.key), 'shared snapshot', REDIS_BUDGET_MS));
      this.redisAnswered();
      if (shared && this.now() - shared.at < this.maxAgeMs) return shared;
      // Held at least as long as a read may take, so that a slow read is not started twice.
      const hold = Math.max(this.maxAgeMs, METRICS_READ_DEADLINE_MS + REDIS_BUDGET_MS);
      const claim = this.redis.set(this.claimKey, '1', 'PX', hold, 'NX');
      claimed = (await withDeadline(claim, 'shared snapshot claim', REDIS_BUDGET_MS)) === 'OK';
    } catch (error) {
      this.redisFailed(error);
      return this.read();
    }
    // Another worker is reading: what it replaces will do, unless there is nothing at all yet.
    if (!claimed && shared) return shared;
    const fresh = await this.read();
    // Kept a few refreshes, so that a worker that stops reading does not leave the others with nothing.
    const stored = this.redis.set(this.key, JSON.stringify(fresh), 'PX', this.maxAgeMs * 4);
    await withDeadline(stored, 'shared snapshot store', REDIS_BUDGET_MS).catch((error: unknown) =>
      this.redisFailed(error),
    );
    return fresh;
  }

  private redisAnswered(): void {
    if (this.redisFailing)
      this.logger.info({ key: this.key }, 'shared metrics snapshot: Redis answers again');
    this.redisFailing = false;
  }

  private redisFailed(error: unknown): void {
    if (!this.redisFailing) {
      this.logger.warn(
        { err: error, key: this.key },
        'shared metrics snapshot: Redis failed, so this worker reads the figures itself',
      );
    }
    this.redisFailing = true;
  }

  private parse(text: string | null): T | undefined {
    if (text === null) return undefined;
    try {
      const value = JSON.parse(text) as Partial<T> | null;
      return value !== null && typeof value === 'object' && typeof value.at === 'number'
        ? (value as T)
        : undefined;
    } catch {
      return undefined;
    }
  }
}
