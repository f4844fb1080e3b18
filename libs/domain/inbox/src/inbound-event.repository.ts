import { Injectable } from '@nestjs/common';
import { DatabasePool, type Prisma } from '#libs/database';

export interface NewInboundEvent {
  eventId: string;
  type: string | null;
  applicationId: string | null;
  /** The verified body, as received (JSON text). */
  payload: string;
}

export interface LockedInboundEvent {
  id: string;
  type: string | null;
  payload: unknown;
}

interface PendingStore {
  event: NewInboundEvent;
  resolve: (id: string | null) => void;
  reject: (error: unknown) => void;
}

/** Events written by one INSERT at most. */
const MAX_BATCH = 200;

export type FanOutOutcome = 'applied' | 'ignored' | 'unmatched';

/**
 * The one owner of `inbound_events`, the inbox: a verified upstream event is stored once per event id
 * before it is acknowledged; fan-out marks it processed in the same transaction as its effects.
 */
@Injectable()
export class InboundEventRepository {
  constructor(private readonly db: DatabasePool) {}

  /**
   * Stores the event; null when it was already there (a redelivery), which changes nothing. Concurrent
   * calls are written together: one multi-row INSERT (one commit, one WAL flush) per batch, the next
   * batch gathering while the last one commits, so the receiver's cost per event falls as load rises.
   */
  store(event: NewInboundEvent): Promise<string | null> {
    return new Promise((resolve, reject) => {
      this.pending.push({ event, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private pending: PendingStore[] = [];
  private flushing = false;

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, MAX_BATCH);
        try {
          const rows = await this.db.rows<{ id: string; event_id: string }>({
            name: 'inbound-events.store',
            text: `INSERT INTO inbound_events (id, source, event_id, type, application_id, payload, updated_at)
              SELECT uuid_generate_v7(), 'upstream', r.event_id, r.type, r.application_id, r.payload::jsonb, now()
              FROM jsonb_to_recordset($1::jsonb) AS r(event_id text, type text, application_id text, payload text)
              ON CONFLICT (source, event_id) DO NOTHING
              RETURNING id, event_id`,
            values: [
              JSON.stringify(
                batch.map((p) => ({
                  event_id: p.event.eventId,
                  type: p.event.type,
                  application_id: p.event.applicationId,
                  payload: p.event.payload,
                })),
              ),
            ],
          });
          const inserted = new Map(rows.map((r) => [r.event_id, r.id]));
          for (const p of batch) {
            // The same id twice in one batch: the first is the event, the second its redelivery.
            const id = inserted.get(p.event.eventId) ?? null;
            inserted.delete(p.event.eventId);
            p.resolve(id);
          }
        } catch (error) {
          for (const p of batch) p.reject(error);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  /** The row, locked for the fan-out's transaction; null once it is processed (or gone). */
  async lockUnprocessed(tx: Prisma.TransactionClient, id: string): Promise<LockedInboundEvent | null> {
    const rows = await tx.$queryRawUnsafe<LockedInboundEvent[]>(
      `SELECT id, type, payload FROM inbound_events WHERE id = $1::uuid AND status = 'RECEIVED' FOR UPDATE`,
      id,
    );
    return rows[0] ?? null;
  }

  async markProcessed(
    tx: Prisma.TransactionClient,
    id: string,
    outcome: FanOutOutcome,
    merchantId: string | null,
  ): Promise<void> {
    await tx.$executeRawUnsafe(
      `UPDATE inbound_events SET status = 'PROCESSED', outcome = $2, merchant_id = $3::uuid,
         processed_at = now(), attempts = attempts + 1, last_error = NULL, updated_at = now()
       WHERE id = $1::uuid`,
      id,
      outcome,
      merchantId,
    );
  }

  /** A failed attempt, kept for the operator; the job retries. */
  async recordFailure(id: string, error: string): Promise<void> {
    await this.db.rows({
      name: 'inbound-events.failure',
      text: `UPDATE inbound_events SET attempts = attempts + 1, last_error = $2, updated_at = now()
        WHERE id = $1 AND status = 'RECEIVED'`,
      values: [id, error.slice(0, 1000)],
    });
  }

  /** Stored but not processed for a while: their fan-out job was lost (Redis down, never enqueued). */
  async stale(before: Date, limit: number): Promise<string[]> {
    const rows = await this.db.rows<{ id: string }>({
      name: 'inbound-events.stale',
      text: `SELECT id FROM inbound_events WHERE status = 'RECEIVED' AND received_at < $1
        ORDER BY received_at LIMIT $2`,
      values: [before, limit],
    });
    return rows.map((r) => r.id);
  }
}
