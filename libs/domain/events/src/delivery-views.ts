// The shapes of deliveries and their attempts as the domain reads them (the repository maps its rows to
// them), apart from the SQL so the repository reads as its statements.
import type { MerchantEventWire } from './event-catalogue.js';

export type DeliveryStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

export interface DeliveryView {
  id: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  lastResponseStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  createdAt: string;
}

/** An endpoint as a delivery reads it: where, its sealed secrets, whether it is failing or disabled. */
export interface SealedEndpoint {
  id: string;
  url: string;
  secretCiphertext: string;
  secretKeyId: string;
  previousSecretCiphertext: string | null;
  previousSecretKeyId: string | null;
  previousSecretExpiresAt: Date | null;
  failing: boolean;
  disabled: boolean;
}

/** What one attempt needs, in one read: the delivery's state, its event in wire form, its endpoint. */
export interface DeliveryWork {
  id: string;
  endpointId: string;
  /** With its rate limit: at most so many deliveries a second (null: none). */
  endpoint: SealedEndpoint & { rateLimit: number | null };
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  eventCreatedAt: Date;
  /** The request or job that recorded the event (merchant_events.request_id), for the logs. */
  eventRequestId: string | null;
  event: MerchantEventWire;
  /** The operator disabled the merchant: the delivery waits, untried, until it is enabled. */
  merchantDisabled: boolean;
}

/** What an attempt sent and what came back, as the delivery's attempt log keeps it. */
export interface AttemptExchange {
  durationMs: number;
  /**
   * The request: the headers and the body exactly as sent. One refused before sending (an address it may
   * not reach) keeps what it would have sent.
   */
  request: { url: string; headers: Record<string, string>; body: string };
  /** Null when the endpoint gave no answer (refused, unreachable, timed out). */
  response: {
    status: number;
    contentType: string | null;
    /** The start of the answer's body as text, at most `RESPONSE_EXCERPT_BYTES` of it. */
    body: string;
    /** The body went on past the excerpt. */
    bodyTruncated: boolean;
  } | null;
  error: string | null;
}

/** The outcome of one attempt, as stored: on the delivery and, as it went, in its attempt log. */
export interface AttemptRecord {
  at: Date;
  exchange: AttemptExchange;
  /** Set: succeeded. Else `nextAttemptAt` (null: given up). */
  delivered: boolean;
  nextAttemptAt: Date | null;
}

/** One entry of a delivery's attempt log. */
export interface AttemptView {
  attempt: number;
  attemptedAt: string;
  durationMs: number;
  request: AttemptExchange['request'];
  response: AttemptExchange['response'];
  error: string | null;
}

/** An endpoint the sweeper has just disabled. */
export interface DisabledEndpoint {
  id: string;
  merchantId: string;
  url: string;
  failingSince: Date;
  disabledAt: Date;
  disabledReason: string;
}
