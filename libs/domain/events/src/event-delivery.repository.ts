import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import type { MerchantId } from '#libs/context';
import { DatabasePool, queryOn } from '#libs/database';
import type {
  AttemptRecord,
  AttemptView,
  DeliveryStatus,
  DeliveryView,
  DeliveryWork,
} from './delivery-views.js';
import { EVENT_DELIVERY_SQL, toView } from './event-delivery.statements.js';

export { EVENT_DELIVERY_SQL };

/**
 * The one owner of `event_deliveries`: one row per (event, endpoint), made by the outbox relay, advanced
 * by each attempt (guarded by the attempt count it read, so a duplicated job cannot count twice).
 */
@Injectable()
export class EventDeliveryRepository {
  constructor(private readonly db: DatabasePool) {}

  /**
   * A delivery per subscribed endpoint of each event's merchant; existing ones are kept. A disabled
   * endpoint's is recorded failed at once, so the merchant can still send it once the endpoint is enabled
   * again. Returns the pending ones, to enqueue, each with its event's id.
   */
  async createForEvents(
    db: pg.PoolClient,
    eventIds: readonly string[],
  ): Promise<{ id: string; eventId: string }[]> {
    if (eventIds.length === 0) return [];
    const { rows } = await queryOn(db, {
      ...EVENT_DELIVERY_SQL.createForEvents,
      values: [eventIds],
    });
    return rows.filter((r) => r.pending).map((r) => ({ id: r.id, eventId: r.event_id }));
  }

  /** A pending delivery whose endpoint is disabled: failed now, for the merchant to retry once it is enabled. */
  async failForDisabledEndpoint(id: string, attemptsSeen: number, at: Date): Promise<void> {
    await this.db.rows({
      ...EVENT_DELIVERY_SQL.failDisabled,
      values: [id, attemptsSeen, at],
    });
  }

  async work(id: string): Promise<DeliveryWork | null> {
    const [row] = await this.db.rows({
      ...EVENT_DELIVERY_SQL.work,
      values: [id],
    });
    if (!row) return null;
    return {
      id: row.id,
      endpointId: row.endpoint_id,
      status: row.status,
      attempts: row.attempts,
      nextAttemptAt: row.next_attempt_at,
      eventCreatedAt: row.event_created_at,
      eventRequestId: row.request_id,
      merchantDisabled: row.merchant_disabled,
      event: {
        id: row.event_id,
        type: row.type,
        createdAt: row.created_at,
        userId: row.user_id,
        userReference: row.user_reference,
        data: row.data,
      },
      endpoint: {
        id: row.endpoint_id,
        url: row.url,
        secretCiphertext: row.secret_ciphertext,
        secretKeyId: row.secret_key_id,
        previousSecretCiphertext: row.previous_secret_ciphertext,
        previousSecretKeyId: row.previous_secret_key_id,
        previousSecretExpiresAt: row.previous_secret_expires_at,
        failing: row.failing,
        disabled: row.disabled,
        rateLimit: row.rate_limit,
      },
    };
  }

  /**
   * A delivery the endpoint's rate limit holds back: due at `until` (the job comes back then), with no
   * attempt counted or logged.
   */
  async deferForThrottle(id: string, attemptsSeen: number, until: Date, at: Date): Promise<void> {
    await this.db.rows({
      ...EVENT_DELIVERY_SQL.deferForThrottle,
      values: [id, attemptsSeen, until, at],
    });
  }

  /**
   * Records an attempt made after reading `attemptsSeen`, on the delivery and in its attempt log; false
   * (nothing recorded) when another attempt got there first.
   */
  async recordAttempt(id: string, attemptsSeen: number, attempt: AttemptRecord): Promise<boolean> {
    const status: DeliveryStatus = attempt.delivered
      ? 'SUCCEEDED'
      : attempt.nextAttemptAt
        ? 'PENDING'
        : 'FAILED';
    const { request, response, error, durationMs } = attempt.exchange;
    const rows = await this.db.rows({
      ...EVENT_DELIVERY_SQL.recordAttempt,
      values: [
        id,
        attemptsSeen,
        status,
        attempt.at,
        response?.status ?? null,
        error,
        attempt.nextAttemptAt,
        durationMs,
        request.url,
        JSON.stringify(request.headers),
        request.body,
        response?.contentType ?? null,
        response?.body ?? null,
        response?.bodyTruncated ?? false,
      ],
    });
    return rows.length === 1;
  }

  /**
   * A delivery's attempts, newest first, keyset-paged by attempt number; null when the merchant has no
   * such delivery on that endpoint.
   */
  async listAttempts(
    merchantId: MerchantId,
    endpointId: string,
    deliveryId: string,
    beforeAttempt: number | null,
    limit: number,
  ): Promise<AttemptView[] | null> {
    const rows = await this.db.rows({
      ...(beforeAttempt === null ? EVENT_DELIVERY_SQL.attemptsFirst : EVENT_DELIVERY_SQL.attemptsBefore),
      values:
        beforeAttempt === null
          ? [merchantId, endpointId, deliveryId, limit]
          : [merchantId, endpointId, deliveryId, limit, beforeAttempt],
    });
    if (rows.length === 0) return null;
    return rows.flatMap((r) =>
      r.attempt === null
        ? []
        : [
            {
              attempt: r.attempt,
              attemptedAt: r.attempted_at!,
              durationMs: r.duration_ms!,
              request: { url: r.request_url!, headers: r.request_headers!, body: r.request_body! },
              response:
                r.response_status === null
                  ? null
                  : {
                      status: r.response_status,
                      contentType: r.response_content_type,
                      body: r.response_body ?? '',
                      bodyTruncated: r.response_body_truncated ?? false,
                    },
              error: r.error,
            },
          ],
    );
  }

  /** A merchant's manual retry: pending again, due now (a delivered one may be sent again too). */
  async requeue(
    merchantId: MerchantId,
    endpointId: string,
    id: string,
    now: Date,
  ): Promise<DeliveryView | null> {
    const [row] = await this.db.rows({
      ...EVENT_DELIVERY_SQL.requeue,
      values: [merchantId, endpointId, id, now],
    });
    return row ? toView(row) : null;
  }

  /**
   * A recovery: at most `limit` of the endpoint's deliveries that FAILED for good, created at or after
   * `since`, pending again and due `now` (their attempts kept). Answers those made pending, to enqueue,
   * and whether more are left for another call. None while the endpoint is disabled.
   */
  async recoverFailed(
    merchantId: MerchantId,
    endpointId: string,
    since: Date,
    now: Date,
    limit: number,
  ): Promise<{ ids: string[]; more: boolean }> {
    const [row] = await this.db.rows({
      ...EVENT_DELIVERY_SQL.recoverFailed,
      values: [merchantId, endpointId, since, now, limit],
    });
    return { ids: row.ids, more: row.more };
  }

  /** An endpoint's deliveries, newest first, keyset-paged by id (uuid v7: time-ordered). */
  async listForEndpoint(
    merchantId: MerchantId,
    endpointId: string,
    beforeId: string | null,
    limit: number,
  ): Promise<DeliveryView[]> {
    const rows = await this.db.rows({
      ...(beforeId ? EVENT_DELIVERY_SQL.listAfter : EVENT_DELIVERY_SQL.listFirst),
      values: beforeId ? [merchantId, endpointId, limit, beforeId] : [merchantId, endpointId, limit],
    });
    return rows.map(toView);
  }

  /**
   * The merchant's deliveries an id leads to: the delivery `deliveryId`, those of the events `eventIds`.
   * Newest first (uuid v7 ids), at most `limit`, each with its endpoint's id.
   */
  async findForTracingLookup(
    merchantId: MerchantId,
    by: { deliveryId: string | null; eventIds: readonly string[] },
    limit: number,
  ): Promise<(DeliveryView & { endpointId: string })[]> {
    const rows = await this.db.rows({
      ...EVENT_DELIVERY_SQL.findForTracingLookup,
      values: [merchantId, by.deliveryId, by.eventIds, limit],
    });
    return rows.map((r) => ({ ...toView(r), endpointId: r.endpoint_id }));
  }

  /**
   * Pending deliveries whose attempt is overdue: their job was lost (Redis flushed, never enqueued), or
   * their merchant was disabled when it ran and is enabled again. A disabled merchant's wait.
   */
  async overdue(before: Date, limit: number): Promise<{ id: string; traceContext: string | null }[]> {
    const rows = await this.db.rows({
      ...EVENT_DELIVERY_SQL.overdue,
      values: [before, limit],
    });
    return rows.map((r) => ({ id: r.id, traceContext: r.trace_context }));
  }
}
