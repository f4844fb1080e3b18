export * from './upstream-client.factory.js';
export * from './upstream-paging.iterator.js';
export { DEFAULT_BREAKER, SERVICE_BREAKER, type BreakerOptions } from './upstream-breaker.js';
export { DEFAULT_RETRY, type RetryOptions } from './upstream-resilience.policy.js';
export * from './upstream.client.js';
export * from './upstream.error.js';
export * from './upstream-error.parser.js';
export { type BodyLimits, DEFAULT_BODY_LIMITS } from './upstream-attempt.outcome.js';
export { type CallOptions, type ConsentCallOptions } from './upstream-request.js';
export type * from './upstream.types.js';
export type {
  AttemptEnd,
  AttemptObserver,
  AttemptStart,
  UpstreamAttempt,
} from './upstream-attempt.observer.js';
