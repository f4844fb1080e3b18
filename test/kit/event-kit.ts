import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';
import { generateWebhookSecret, webhookHeaders } from '#libs/crypto';
import type { DatabasePool } from '#libs/database';
import { UpstreamWebhookRepository } from '#libs/domain/inbox';
import type { ApiResponse } from './api-client.js';
import type { Stack } from './api-kit.js';
import { uniqueName } from './factories.js';

/** One request a merchant endpoint received. */
export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
  /** When its headers arrived (`performance.now()`, this process's monotonic clock, in ms). */
  arrivedAt: number;
}

/**
 * A merchant's webhook endpoint on a random local port: records every request (exact bytes and headers)
 * and answers each with the next status of `script`, then `otherwise` (200 unless changed), its body the
 * text `answer` makes of that status (`ok` or `no` unless changed).
 */
export class EventReceiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly script: number[];
  otherwise = 200;
  answer: (status: number) => string = (status) => (status < 300 ? 'ok' : 'no');
  /**
   * How many requests are answered together: set to 2, the next two wait for each other, so two attempts
   * of one delivery are certainly in flight at once. Back to 1 once they are answered.
   */
  together = 1;
  private readonly held: (() => void)[] = [];
  private server!: Server;
  url = '';

  constructor(script: number[] = []) {
    this.script = [...script];
  }

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const arrivedAt = performance.now();
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const status = this.script.shift() ?? this.otherwise;
        this.requests.push({
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          status,
          arrivedAt,
        });
        this.held.push(() =>
          response.writeHead(status, { 'content-type': 'text/plain' }).end(this.answer(status)),
        );
        if (this.held.length < this.together) return;
        this.together = 1;
        for (const reply of this.held.splice(0)) reply();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
    return this;
  }

  /** The events received with a 2xx answer, by event id, in arrival order. */
  accepted(): { id: string; type: string; body: string; headers: IncomingHttpHeaders }[] {
    return this.requests
      .filter((r) => r.status < 300)
      .map((r) => ({
        ...(JSON.parse(r.body) as { id: string; type: string }),
        body: r.body,
        headers: r.headers,
      }));
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The root application's id: events about merchants without a sub-application name it. */
/**
 * An EventReceiver the `describe` block's tests share, started in a `beforeAll` registered here and
 * stopped in its `afterAll` (register it after `useStack` and before the hooks that use its `url`).
 */
export function useReceiver(script: number[] = []): EventReceiver {
  const receiver = new EventReceiver(script);
  beforeAll(async () => {
    await receiver.start();
  });
  afterAll(async () => {
    // Unset when starting failed: nothing to stop.
    if (receiver.url) await receiver.stop();
  });
  return receiver;
}

export const rootApplication = (stack: Stack): string => stack.api.config.upstream.applicationId;

/**
 * A registration of our receiver stored directly (the admin route's own tests cover registering upstream):
 * its secret verifies events that name `applicationId`, the root application unless told otherwise.
 */
export async function registeredSecret(
  stack: Stack,
  applicationId = rootApplication(stack),
): Promise<string> {
  const secret = generateWebhookSecret();
  await stack.api.app.get(UpstreamWebhookRepository).store({
    applicationId,
    merchantId: null,
    upstreamWebhookId: null,
    categories: ['consent.state.revoked'],
    callbackUrl: `${stack.api.url}/v1/webhooks/upstream`,
    secret,
    status: 'active',
  });
  return secret;
}

export interface UpstreamEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

export function upstreamEvent(type: string, data: Record<string, unknown>): UpstreamEvent {
  return { id: uniqueName('evt'), type, data };
}

/**
 * The body the upstream sends for an event: the event, the application it is for (the root application
 * unless told; null leaves it out) and when it was made.
 */
export function upstreamEventBody(
  stack: Stack,
  event: UpstreamEvent | (UpstreamEvent & Record<string, unknown>),
  applicationId: string | null = rootApplication(stack),
): string {
  return JSON.stringify({
    ...event,
    ...(applicationId === null ? {} : { applicationId }),
    createdAt: new Date().toISOString(),
  });
}

/**
 * POSTs an upstream event to the receiver, for `applicationId` (the root application unless told), signed
 * with `secret` unless `tamper` says otherwise: `body` is sent in place of the signed one, `signedBody` is
 * signed and sent in place of the event's, `signature` replaces the signature header.
 */
export function postUpstreamEvent(
  stack: Stack,
  event: UpstreamEvent,
  secret: string,
  tamper: {
    body?: string;
    signedBody?: string;
    timestampOffset?: number;
    /** Sign at this time (seconds) rather than now: a test can then know the signature beforehand. */
    timestampSeconds?: number;
    unsigned?: boolean;
    applicationId?: string | null;
    signature?: (signed: string) => string;
    /** Sent as this content type instead of application/json. */
    contentType?: string;
  } = {},
): Promise<ApiResponse> {
  const body = tamper.signedBody ?? upstreamEventBody(stack, event, tamper.applicationId);
  const headers: Record<string, string> = tamper.unsigned
    ? {}
    : webhookHeaders({
        id: event.id,
        timestampSeconds:
          (tamper.timestampSeconds ?? Math.floor(Date.now() / 1000)) + (tamper.timestampOffset ?? 0),
        body,
        secrets: [secret],
      });
  if (tamper.signature && !tamper.unsigned) {
    headers['webhook-signature'] = tamper.signature(headers['webhook-signature']);
  }
  return stack.anonymous.call('POST', '/v1/webhooks/upstream', {
    rawBody: tamper.body ?? body,
    headers,
    contentType: tamper.contentType,
  });
}

/** The error a webhook is refused with when no secret registered for the application it names signed it. */
export const unsignedWebhookError = () => ({
  code: 'UNAUTHENTICATED',
  status: 401,
  message: 'The webhook has no signature made with a webhook secret registered for the application it names.',
  tracingId: expect.any(String),
});

/**
 * `count` events of a user, already relayed (numbered past the relay's mark, so no relay makes deliveries
 * of them), each with a delivery to the endpoint in `status`, created `ageHours` ago, with one failed
 * attempt in its log: deliveries as an outage `ageHours` ago left them. Answers the events' ids.
 */
export async function pastDeliveries(
  db: DatabasePool,
  of: {
    merchantId: string;
    userId: string;
    endpointId: string;
    count: number;
    status: 'FAILED' | 'SUCCEEDED';
    ageHours: number;
  },
): Promise<string[]> {
  const events = await db.rows<{ id: string }>({
    name: 'past-deliveries.insert-events',
    text: `WITH base AS (SELECT last_stream_seq FROM outbox_relay_state WHERE id = 1),
        advanced AS (UPDATE outbox_relay_state SET last_stream_seq = last_stream_seq + $3 WHERE id = 1)
      INSERT INTO merchant_events (id, merchant_id, user_id, type, data, created_at, stream_seq)
      SELECT uuid_generate_v7(), $1, $2, 'sync.succeeded', jsonb_build_object('n', n),
        now() - make_interval(hours => $4), (SELECT last_stream_seq FROM base) + n
      FROM generate_series(1, $3::int) AS n
      RETURNING id`,
    values: [of.merchantId, of.userId, of.count, of.ageHours],
  });
  await db.rows({
    name: 'past-deliveries.insert-deliveries',
    text: `WITH made AS (
        INSERT INTO event_deliveries (merchant_id, endpoint_id, event_id, status, attempts, last_attempt_at,
          last_response_status, last_error, created_at, updated_at)
        SELECT $1, $2, e, $4::delivery_status, 1, now() - make_interval(hours => $5), 500, 'answered 500',
          now() - make_interval(hours => $5), now()
        FROM unnest($3::uuid[]) AS e
        RETURNING id, merchant_id, last_attempt_at)
      INSERT INTO event_delivery_attempts (delivery_id, attempt, merchant_id, attempted_at, duration_ms,
        request_url, request_headers, request_body, response_status, error)
      SELECT id, 1, merchant_id, last_attempt_at, 3, 'http://127.0.0.1:9/hooks', '{}'::jsonb, '{}', 500,
        'answered 500'
      FROM made`,
    values: [of.merchantId, of.endpointId, events.map((e) => e.id), of.status, of.ageHours],
  });
  return events.map((e) => e.id);
}
