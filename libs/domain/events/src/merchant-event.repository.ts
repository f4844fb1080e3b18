import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import { uuidV7 } from '#libs/ids';

/** Event types as merchants see them (API.md), stored as the `merchant_event_type` enum's values. */
export type MerchantEventType =
  | 'consent.authorized'
  | 'consent.failed'
  | 'consent.expiring'
  | 'consent.reauthorisation_required'
  | 'consent.expired'
  | 'consent.revoked'
  | 'sync.succeeded'
  | 'sync.failed'
  | 'transactions.changed'
  | 'payment.completed'
  | 'payment.failed';

export interface NewMerchantEvent {
  merchantId: string;
  userId: string | null;
  type: MerchantEventType;
  data: Record<string, unknown>;
}

/**
 * The one owner of `merchant_events`, the transactional outbox: events are recorded in the same database
 * transaction as the change they describe, so a change never happens without its event, nor the reverse.
 * Delivery (endpoints, SSE) reads them from here.
 */
@Injectable()
export class MerchantEventRepository {
  async record(db: pg.PoolClient, events: readonly NewMerchantEvent[]): Promise<void> {
    if (events.length === 0) return;
    await db.query({
      name: 'merchant-events.record',
      text: `INSERT INTO merchant_events (id, merchant_id, user_id, type, data)
        SELECT r.id, r.merchant_id, r.user_id, r.type::merchant_event_type, r.data
        FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, merchant_id uuid, user_id uuid, type text, data jsonb)`,
      values: [
        JSON.stringify(
          events.map((e) => ({
            id: uuidV7(),
            merchant_id: e.merchantId,
            user_id: e.userId,
            type: e.type,
            data: e.data,
          })),
        ),
      ],
    });
  }
}
