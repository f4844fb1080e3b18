import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { type AppLogger, LOGGER } from '#libs/observability';
import { REDIS, type RedisClient } from '#libs/redis';

/** The rate limit a merchant may give an endpoint, in deliveries per second. */
export const ENDPOINT_RATE_LIMIT = { min: 1, max: 1_000 } as const;
/** The rate limit counts deliveries per this window: a second. */
export const THROTTLE_WINDOW_MS = 1_000;
/**
 * A send whose answer the throttle never hears of (its worker died mid-request) counts as answered this
 * long after the attempt's timeout; one heard of later still counts from then. Generous: until then it
 * holds a place of the endpoint's rate, and only a crash or a worker stalled that long leaves it.
 */
const FLIGHT_GRACE_MS = 10_000;
/**
 * How long an endpoint's keys outlive what they hold: a turn is kept this long after it came, for a job
 * that wakes late (a busy or restarted worker); then an idle endpoint leaves nothing in Redis.
 */
const KEYS_GRACE_MS = 60_000;
/**
 * How far apart worker clocks may be, as the delivery's own due check assumes. A job's delay is counted
 * on the clock of the worker that delays it and ends on the clock of the worker that wakes it: one whose
 * clock is ahead wakes it early, by the difference, each time.
 */
const WORKER_CLOCK_SKEW_MS = 1_000;
/** A job woken early waits this much past its turn, doubled each further time, so a skew is soon covered. */
const EARLY_PAD_MS = 10;

/*
 * Why a send counts from its admission until a window after its answer, not after its start: the limit
 * is kept where the merchant sees it, at the endpoint. A request arrives after it was admitted and before
 * its answer came back, however long the worker's event loop, the network or the endpoint's own event
 * loop took. Say `rate` + 1 requests arrived within one window; take the one admitted last. When it was
 * admitted, at most `rate` - 1 of the others still counted, so one had its answer back a window before:
 * it arrived at least a window before the last one arrived. So no window holds more than `rate` arrivals,
 * on any clock, without a margin to guess. The price: a slow endpoint's sends hold their places longer
 * (`rate` per a second plus the answer's time).
 */

/**
 * Asks for one delivery, atomically, on Redis's clock (`TIME`), so no worker's clock matters.
 *
 * - `sent` (sorted set): sends answered in the last window, scored by when the answer came (µs).
 * - `flying` (sorted set): sends admitted and not yet answered, scored by their deadline.
 * - `turns` (hash): each waiting delivery's turn; `last`, the latest turn handed to a newcomer; `again`,
 *   the latest handed to one whose turn came while the window was still full.
 *
 * The window has room while fewer than `rate` sends are flying or were answered within it. A delivery
 * without a turn is admitted when there is room and nobody waits (no newcomer's turn within a spacing,
 * the window over the rate); otherwise it gets a turn of its own, a spacing after the last and not before
 * the window has room (taking the flying sends as answered now), so a burst of a thousand wakes one by
 * one. A delivery holding a turn is admitted once the turn has come and there is room; its turn come and
 * the window still full (a send before it was slow), it waits, ahead of the newcomers, for the moment a
 * place frees, spaced from the others waiting so. Woken before its turn (by a worker whose clock is
 * ahead), it waits the rest and a pad, doubled each time it comes early (at most the clock skew): woken
 * early by the same skew again, it soon comes on its turn instead of over and over just before it. A
 * flying send past its deadline counts as answered then. The last ARGV, a time in µs, stands in for
 * `TIME` in the property test only.
 *
 * Answers `{ 1, member }` (send now, and report the answer with `member`) or `{ 0, µs to wait }`.
 */
const ASK = `
local rate, window, spacing = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local id, grace, skew, flight = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local pad = tonumber(ARGV[8])
local now = tonumber(ARGV[9])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
end
local lost = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'WITHSCORES')
for i = 1, #lost, 2 do
  redis.call('ZADD', KEYS[1], lost[i + 1], lost[i])
  redis.call('ZREM', KEYS[2], lost[i])
end
if #lost > 0 then redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000) + grace) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local flying = redis.call('ZCARD', KEYS[2])
local freeAt = now
if flying + redis.call('ZCARD', KEYS[1]) >= rate then
  if flying >= rate then
    freeAt = now + window
  else
    local nth = rate - flying - 1
    freeAt = tonumber(redis.call('ZREVRANGE', KEYS[1], nth, nth, 'WITHSCORES')[2]) + window
  end
end
local function admit()
  local member = id .. '@' .. string.format('%d', now)
  redis.call('ZADD', KEYS[2], now + flight, member)
  redis.call('PEXPIRE', KEYS[2], math.ceil((flight + window) / 1000) + grace)
  redis.call('HDEL', KEYS[3], id, id .. '#early')
  return { 1, member }
end
local function wait(turn, line)
  redis.call('HSET', KEYS[3], id, turn, line, turn)
  local latest = math.max(turn, tonumber(redis.call('HGET', KEYS[3], 'last')) or 0,
    tonumber(redis.call('HGET', KEYS[3], 'again')) or 0)
  redis.call('PEXPIRE', KEYS[3], math.ceil((latest - now) / 1000) + grace)
  return { 0, turn - now }
end
local turn = tonumber(redis.call('HGET', KEYS[3], id))
if turn then
  if now < turn then
    local early = redis.call('HINCRBY', KEYS[3], id .. '#early', 1)
    return { 0, turn - now + math.min(pad * 2 ^ (early - 1), skew) }
  end
  if freeAt <= now then return admit() end
  local again = tonumber(redis.call('HGET', KEYS[3], 'again'))
  return wait(math.max(freeAt, again and again + spacing or freeAt), 'again')
end
local last = tonumber(redis.call('HGET', KEYS[3], 'last'))
turn = math.max(freeAt, last and last + spacing or now)
if turn <= now then return admit() end
return wait(turn, 'last')
`;

/**
 * A send's answer came (or its attempt ended without one): from now it counts a window more, then
 * leaves. One already past its deadline counts from now too. `ARGV[4]` stands in for `TIME` in tests.
 */
const ANSWERED = `
local member, window, grace = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local now = tonumber(ARGV[4])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
end
if redis.call('ZREM', KEYS[2], member) == 1 or redis.call('ZSCORE', KEYS[1], member) then
  redis.call('ZADD', KEYS[1], now, member)
  redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000) + grace)
end
return 1
`;

/** The commands `defineCommand` adds: EVALSHA of each script, falling back to EVAL once if Redis lost it. */
interface ThrottleCommands {
  bffThrottleAsk(...args: (string | number)[]): Promise<[admitted: number, memberOrWaitUs: string | number]>;
  bffThrottleAnswered(...args: (string | number)[]): Promise<number>;
}

export type ThrottleAnswer = { admitted: true; member: string } | { admitted: false; waitMs: number };
export type ThrottleKeys = [sent: string, flying: string, turns: string];

/** An endpoint's keys, in one hash slot (the `{…}` tag) so a Redis Cluster runs each script on one node. */
export function throttleKeys(prefix: string, endpointId: string): ThrottleKeys {
  const at = `${prefix}{${endpointId}}`;
  return [`${at}:sent`, `${at}:flying`, `${at}:turns`];
}

function commands(redis: RedisClient): ThrottleCommands {
  if (!('bffThrottleAsk' in redis)) {
    redis.defineCommand('bffThrottleAsk', { numberOfKeys: 3, lua: ASK });
    redis.defineCommand('bffThrottleAnswered', { numberOfKeys: 2, lua: ANSWERED });
  }
  return redis as unknown as ThrottleCommands;
}

const WINDOW_US = THROTTLE_WINDOW_MS * 1_000;
/** The trailing clock argument, passed only by the property test. */
const clock = (nowUs?: number) => (nowUs === undefined ? [] : [nowUs]);

/**
 * Whether `deliveryId` may be sent to the endpoint of `keys` now, at `rate` a second, an attempt taking
 * at most `attemptTimeoutMs`. `nowUs` stands in for Redis's clock in the property test; nothing else
 * passes it.
 */
export async function askThrottle(
  redis: RedisClient,
  keys: ThrottleKeys,
  ask: { rate: number; deliveryId: string; attemptTimeoutMs: number },
  nowUs?: number,
): Promise<ThrottleAnswer> {
  const [admitted, value] = await commands(redis).bffThrottleAsk(
    ...keys,
    ask.rate,
    WINDOW_US,
    Math.ceil(WINDOW_US / ask.rate),
    ask.deliveryId,
    KEYS_GRACE_MS,
    WORKER_CLOCK_SKEW_MS * 1_000,
    (ask.attemptTimeoutMs + FLIGHT_GRACE_MS) * 1_000,
    EARLY_PAD_MS * 1_000,
    ...clock(nowUs),
  );
  return admitted === 1
    ? { admitted: true, member: String(value) }
    : { admitted: false, waitMs: Math.ceil(Number(value) / 1_000) };
}

/** Reports that the send `member` (an admission's) has its answer, or ended without one. */
export async function throttleAnswered(
  redis: RedisClient,
  keys: ThrottleKeys,
  member: string,
  nowUs?: number,
): Promise<void> {
  await commands(redis).bffThrottleAnswered(
    keys[0],
    keys[1],
    member,
    WINDOW_US,
    KEYS_GRACE_MS,
    ...clock(nowUs),
  );
}

/**
 * The per-endpoint delivery rate limit, shared by every worker through Redis. A Redis that does not
 * answer the ask fails it, and with it the delivery's job, as any Redis outage fails a job: nothing is
 * sent unchecked, and the job runs again once Redis is back.
 * Kept whole: the Lua scripts and the arguments they are called with are one contract, read side by side.
 */
@Injectable()
export class EndpointThrottle {
  private readonly prefix: string;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {
    // The queue prefix already separates deployments (and test runs) sharing one Redis.
    this.prefix = `${config.redis.queuePrefix}:throttle:`;
  }

  ask(endpointId: string, deliveryId: string, rate: number): Promise<ThrottleAnswer> {
    const attemptTimeoutMs = this.config.tuning.eventDeliveryTimeoutMs;
    return askThrottle(this.redis, throttleKeys(this.prefix, endpointId), {
      rate,
      deliveryId,
      attemptTimeoutMs,
    });
  }

  /**
   * The send `member` has ended. Not heard (Redis away), the send keeps its place until its deadline:
   * the endpoint gets fewer deliveries for a while, never more, and the attempt is recorded all the same.
   */
  async answered(endpointId: string, member: string): Promise<void> {
    try {
      await throttleAnswered(this.redis, throttleKeys(this.prefix, endpointId), member);
    } catch (err) {
      this.logger.warn(
        { err, endpointId },
        'throttle not told of an answered delivery: it counts until its deadline',
      );
    }
  }
}
