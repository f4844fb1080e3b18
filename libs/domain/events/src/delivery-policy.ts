import type { AppConfig } from '#libs/config';
import { THROTTLE_WINDOW_MS } from './endpoint-throttle.js';

/** Retries are at most this far apart, however many failed. */
export const MAX_RETRY_DELAY_MS = 3_600_000;
/** Each retry's delay is its nominal one times a random factor within ±this, so endpoints are not stampeded. */
export const RETRY_JITTER = 0.2;

/** The delay before attempt `n + 1` after `n` failures, without jitter: doubling from the base, capped. */
export function nominalRetryDelayMs(failures: number, baseSeconds: number): number {
  return Math.min(baseSeconds * 1000 * 2 ** Math.max(0, failures - 1), MAX_RETRY_DELAY_MS);
}

/** The delay the worker waits before attempt `n + 1` after `n` failures: the nominal one, jittered. */
export function retryDelayMs(failures: number, baseSeconds: number, random = Math.random): number {
  return Math.round(
    nominalRetryDelayMs(failures, baseSeconds) * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random()),
  );
}

/**
 * How deliveries are attempted and given up on, as the worker applies it with this configuration:
 * what GET /v1/event-delivery-policy serves (docs/events.md), from the same constants and settings.
 */
export interface DeliveryPolicy {
  attemptTimeoutMs: number;
  backoffBaseSeconds: number;
  backoffCapSeconds: number;
  jitterRatio: number;
  retryWindowHours: number;
  disableAfterHours: number;
  retentionDays: number;
  /**
   * When each attempt is made, in seconds after the event was recorded, without jitter and as if each
   * attempt took no time: the first at 0, each next one a retry's nominal delay later, while within the
   * retry window. A delivery failing every time is given up after the last.
   */
  nominalAttemptOffsetsSeconds: number[];
  /**
   * An endpoint with a rate limit receives at most `rateLimit` deliveries in any window this long (each
   * counts from its start until this long after its answer); the others wait for turns of their own,
   * spending no attempt.
   */
  throttleWindowMs: number;
}

export function deliveryPolicy(config: AppConfig): DeliveryPolicy {
  const base = config.tuning.eventDeliveryBackoffSeconds;
  const windowMs = config.events.deliveryRetryHours * 3_600_000;
  const offsetsMs = [0];
  // As the worker decides (EventDeliveryService.failed): a retry due past the window is not made.
  for (let failures = 1; ; failures++) {
    const next = offsetsMs[offsetsMs.length - 1] + nominalRetryDelayMs(failures, base);
    if (next > windowMs) break;
    offsetsMs.push(next);
  }
  return {
    attemptTimeoutMs: config.tuning.eventDeliveryTimeoutMs,
    backoffBaseSeconds: base,
    backoffCapSeconds: MAX_RETRY_DELAY_MS / 1000,
    jitterRatio: RETRY_JITTER,
    retryWindowHours: config.events.deliveryRetryHours,
    disableAfterHours: config.tuning.eventEndpointDisableAfterHours,
    retentionDays: config.retention.eventDays,
    nominalAttemptOffsetsSeconds: offsetsMs.map((ms) => ms / 1000),
    throttleWindowMs: THROTTLE_WINDOW_MS,
  };
}
