import { Injectable } from '@nestjs/common';
import { DatabasePool, type Prisma, row, type RowOf, sqlStatement } from '#libs/database';
import { DomainError, ErrorCode } from '#libs/errors';

export interface NewInboundEvent {
  eventId: string;
  type: string | null;
  applicationId: string | null;
  /** The verified body, as received (JSON text). */
  payload: string;
  /** The receiving request's trace (currentTraceContext's form), when tracing is on. */
  traceContext: string | null;
}

const LOCKED_INBOUND_EVENT_ROW = row({
  id: 'string',
  type: 'string?',
  /** The application whose secret verified the event (null only for rows stored before that was kept). */
  applicationId: 'string?',
  payload: 'json',
});

export type LockedInboundEvent = RowOf<typeof LOCKED_INBOUND_EVENT_ROW>;

interface PendingStore {
  event: NewInboundEvent;
  resolve: (id: string | null) => void;
  reject: (error: unknown) => void;
}

/**
 * JSON that Postgres' jsonb refuses though JavaScript parsed it (a NUL or a lone surrogate escaped in a
 * string, a number beyond numeric's range): the sender's fault, a 400, never a 500.
 */
function refusedPayload(error: unknown): DomainError | undefined {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !code.startsWith('22')) return undefined;
  return new DomainError(ErrorCode.VALIDATION_FAILED, 'The webhook body cannot be stored as JSON.', {
    details: [
      { field: 'body', issue: 'holds a value JSON storage refuses (a NUL, a lone surrogate, a huge number)' },
    ],
  });
}

/** Events written by one INSERT at most. */
const MAX_BATCH = 200;

export const INBOUND_EVENT_SQL = {
  store: sqlStatement(
    'inbound-events.store',
    `INSERT INTO inbound_events
          (id, source, event_id, type, application_id, payload, trace_context, updated_at)
        SELECT uuid_generate_v7(), 'upstream', r.event_id, r.type, r.application_id, r.payload::jsonb,
          r.trace_context, now()
        FROM jsonb_to_recordset($1::jsonb)
          AS r(event_id text, type text, application_id text, payload text, trace_context text)
        ON CONFLICT (source, event_id) DO NOTHING
        RETURNING id, event_id`,
    { id: 'string', event_id: 'string' },
  ),
  /** In the fan-out's Prisma transaction. */
  lockUnprocessed: sqlStatement(
    undefined,
    `SELECT id, type, application_id AS "applicationId", payload FROM inbound_events
        WHERE id = $1::uuid AND status = 'RECEIVED' FOR UPDATE`,
    LOCKED_INBOUND_EVENT_ROW,
  ),
  /** In the fan-out's Prisma transaction. */
  markProcessed: sqlStatement(
    undefined,
    `UPDATE inbound_events SET status = 'PROCESSED', outcome = $2, merchant_id = $3::uuid,
         processed_at = now(), attempts = attempts + 1, last_error = NULL, updated_at = now()
       WHERE id = $1::uuid`,
  ),
  failure: sqlStatement(
    'inbound-events.failure',
    `UPDATE inbound_events SET attempts = attempts + 1, last_error = $2, updated_at = now()
        WHERE id = $1 AND status = 'RECEIVED'`,
  ),
  stale: sqlStatement(
    'inbound-events.stale',
    // Rows that keep failing go last: they must not crowd out jobs that were merely lost.
    `SELECT id, trace_context FROM inbound_events WHERE status = 'RECEIVED' AND received_at < $1
        ORDER BY attempts, received_at LIMIT $2`,
    { id: 'string', trace_context: 'string?' },
  ),
  deleteProcessedBefore: sqlStatement(
    'inbound-events.delete-processed-before',
    `WITH gone AS (
          DELETE FROM inbound_events WHERE id IN (
            SELECT id FROM inbound_events WHERE status = 'PROCESSED' AND received_at < $1
            ORDER BY received_at LIMIT $2 FOR UPDATE SKIP LOCKED)
          RETURNING 1)
        SELECT count(*)::int AS deleted FROM gone`,
    { deleted: 'number' },
  ),
};

/** applied: it changed our state; unchanged: ours was already past it; unmatched: nothing of ours; ignored: a type we do not act on. */
export type FanOutOutcome = 'applied' | 'unchanged' | 'ignored' | 'unmatched';

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
          const ids = await this.insert(batch.map((p) => p.event));
          for (const p of batch) {
            // The same id twice in one batch: the first is the event, the second its redelivery.
            const id = ids.get(p.event.eventId) ?? null;
            ids.delete(p.event.eventId);
            p.resolve(id);
          }
        } catch {
          // One event Postgres refuses must not fail the others written with it: each on its own.
          for (const p of batch) {
            try {
              p.resolve((await this.insert([p.event])).get(p.event.eventId) ?? null);
            } catch (error) {
              p.reject(refusedPayload(error) ?? error);
            }
          }
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  private async insert(events: NewInboundEvent[]): Promise<Map<string, string>> {
    const rows = await this.db.rows({
      ...INBOUND_EVENT_SQL.store,
      values: [
        JSON.stringify(
          events.map((e) => ({
            event_id: e.eventId,
            type: e.type,
            application_id: e.applicationId,
            payload: e.payload,
            trace_context: e.traceContext,
          })),
        ),
      ],
    });
    return new Map(rows.map((r) => [r.event_id, r.id]));
  }

  /** The row, locked for the fan-out's transaction; null once it is processed (or gone). */
  async lockUnprocessed(tx: Prisma.TransactionClient, id: string): Promise<LockedInboundEvent | null> {
    const rows = await tx.$queryRawUnsafe<LockedInboundEvent[]>(INBOUND_EVENT_SQL.lockUnprocessed.text, id);
    return rows[0] ?? null;
  }

  async markProcessed(
    tx: Prisma.TransactionClient,
    id: string,
    outcome: FanOutOutcome,
    merchantId: string | null,
  ): Promise<void> {
    await tx.$executeRawUnsafe(INBOUND_EVENT_SQL.markProcessed.text, id, outcome, merchantId);
  }

  /** A failed attempt, kept for the operator; the job retries. */
  async recordFailure(id: string, error: string): Promise<void> {
    await this.db.rows({
      ...INBOUND_EVENT_SQL.failure,
      values: [id, error.slice(0, 1000)],
    });
  }

  /** Stored but not processed for a while: their fan-out job was lost (Redis down, never enqueued). */
  async stale(before: Date, limit: number): Promise<{ id: string; traceContext: string | null }[]> {
    const rows = await this.db.rows({
      ...INBOUND_EVENT_SQL.stale,
      values: [before, limit],
    });
    return rows.map((r) => ({ id: r.id, traceContext: r.trace_context }));
  }

  /**
   * Removes up to `limit` processed events received before `cutoff`, oldest first, skipping rows another
   * sweep holds; answers how many went. RECEIVED and FAILED rows stay: they still need work or a person.
   */
  async deleteProcessedBefore(cutoff: Date, limit: number): Promise<number> {
    const [row] = await this.db.rows({
      ...INBOUND_EVENT_SQL.deleteProcessedBefore,
      values: [cutoff, limit],
    });
    return row?.deleted ?? 0;
  }
}
