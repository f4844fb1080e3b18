/* The sandbox's webhook deliveries as its control API shows them, and their retry policy. */

/** Real time between attempts: attempt 1 at once, then one retry per entry; give up after the last. */
export const DEFAULT_RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 3_600_000] as const;
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 5_000;

export interface RetryPolicy {
  delaysMs: number[];
  timeoutMs: number;
}

/** What a receiver gets as the JSON body of a delivery. */
export interface DeliveredEventPayload {
  id: string;
  /** The webhook category; for a notification subscription, its eventTypeId. */
  type: string;
  createdAt: string;
  applicationId: string;
  data: Record<string, unknown>;
  /** A webhook's registration metadata, copied on every delivery (as the upstream documents). */
  metadata?: Record<string, string>;
}

export interface DeliveryAttempt {
  attempt: number;
  url: string;
  startedAt: string;
  /** The `webhook-timestamp` header sent. */
  webhookTimestamp: number;
  statusCode?: number;
  error?: string;
  durationMs: number;
}

export type DeliveryTarget =
  { kind: 'webhook'; webhookId: string } | { kind: 'notification'; eventTypeId: string };

export interface DeliveryRecord {
  id: string;
  eventId: string;
  eventType: string;
  applicationId: string;
  target: DeliveryTarget;
  state: 'pending' | 'delivered' | 'failed' | 'cancelled';
  createdAt: string;
  nextAttemptAt?: string;
  attempts: DeliveryAttempt[];
}

export interface PublishOptions {
  /** Deliver the same event (same id) twice to every target, as an at-least-once sender may. */
  duplicate?: boolean;
  /** Shift the `webhook-timestamp` header, to test a receiver's tolerance. */
  timestampOffsetSeconds?: number;
}
