import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import type { MerchantId } from '#libs/context';
import { DatabasePool, type Prisma, queryOn, ReplicaReads } from '#libs/database';
import type { MerchantEventType } from './event-catalogue.js';
import {
  MERCHANT_EVENT_SQL,
  type NewMerchantEvent,
  recordValues,
  type RelayedEvent,
  type StreamedEvent,
  type StreamRefusal,
  type StreamRow,
  toStreamed,
  type WireRow,
} from './merchant-event.statements.js';

export type { MerchantEventType };
export {
  MERCHANT_EVENT_SQL,
  type NewMerchantEvent,
  type RelayedEvent,
  type StreamedEvent,
  type StreamRefusal,
} from './merchant-event.statements.js';

/**
 * The one owner of `merchant_events`, the transactional outbox: events are recorded in the same database
 * transaction as the change they describe, so a change never happens without its event, nor the reverse.
 * The relay numbers committed events in commit order (`stream_seq`); deliveries and streams read them.
 */
@Injectable()
export class MerchantEventRepository {
  constructor(
    private readonly db: DatabasePool,
    private readonly reads: ReplicaReads,
  ) {}

  /** Inside a transaction of the `pg` pool (the sync's writes). */
  async record(db: pg.PoolClient, events: readonly NewMerchantEvent[]): Promise<void> {
    if (events.length === 0) return;
    await db.query({ ...MERCHANT_EVENT_SQL.record, values: [recordValues(events)] });
  }

  /** Inside a Prisma transaction (consent and payment state changes). */
  async recordInTransaction(
    tx: Prisma.TransactionClient,
    events: readonly NewMerchantEvent[],
  ): Promise<void> {
    if (events.length === 0) return;
    await tx.$executeRawUnsafe(MERCHANT_EVENT_SQL.record.text, recordValues(events));
  }

  /**
   * Numbers the oldest committed, unnumbered events after `lastStreamSeq`, in `seq` order. Only the relay
   * calls it, holding the relay-state row's lock, so numbers are handed out in commit order.
   */
  async numberUnrelayed(db: pg.PoolClient, lastStreamSeq: string, limit: number): Promise<RelayedEvent[]> {
    const { rows } = await queryOn(db, {
      ...MERCHANT_EVENT_SQL.numberUnrelayed,
      values: [lastStreamSeq, limit],
    });
    return rows
      .map((r) => ({
        id: r.id,
        merchantId: r.merchant_id,
        userId: r.user_id,
        streamSeq: r.stream_seq,
        traceContext: r.trace_context,
      }))
      .sort((a, b) => (BigInt(a.streamSeq) < BigInt(b.streamSeq) ? -1 : 1));
  }

  /**
   * A user's relayed events after a stream position, oldest first (SSE replay and live reads), read only
   * while the caller may still read them: the merchant enabled, the user not erased and, for a caller
   * with an API key (`apiKeyId`), that key neither revoked nor expired. Otherwise `refusal` says why and
   * no event is read, so a stream never sends an event its caller could no longer ask for.
   */
  async streamForCaller(
    merchantId: MerchantId,
    userId: string,
    apiKeyId: string | null,
    afterStreamSeq: string,
    limit: number,
    consoleSessionId: string | null = null,
  ): Promise<{ refusal: StreamRefusal | null; events: StreamedEvent[] }> {
    const rows = await this.db.rows({
      ...MERCHANT_EVENT_SQL.streamForCaller,
      values: [merchantId, userId, afterStreamSeq, limit, apiKeyId, consoleSessionId],
    });
    const refusal = rows[0]?.refusal ?? null;
    const events = rows.filter((row): row is StreamRow & WireRow => row.id !== null).map(toStreamed);
    return { refusal, events };
  }

  /**
   * A merchant's relayed events (what endpoints and streams were sent), newest first in commit order,
   * before the stream position `beforeStreamSeq` when given; each filter optional. Answers one more than
   * `limit` when there is more, for the caller to tell.
   */
  async listForMerchant(
    merchantId: MerchantId,
    filters: {
      beforeStreamSeq?: string;
      type?: string;
      userId?: string;
      from?: string;
      before?: string;
    },
    limit: number,
  ): Promise<StreamedEvent[]> {
    // May be a little behind: an event read there has its changes there too (they commit together).
    const rows = await this.reads.rows(merchantId, {
      ...MERCHANT_EVENT_SQL.listForMerchant,
      values: [
        merchantId,
        filters.beforeStreamSeq ?? null,
        filters.type ?? null,
        filters.userId ?? null,
        filters.from ?? null,
        filters.before ?? null,
        limit,
      ],
    });
    return rows.map(toStreamed);
  }

  /** One of the merchant's relayed events, or null. */
  async findForMerchant(merchantId: MerchantId, eventId: string): Promise<StreamedEvent | null> {
    const [row] = await this.db.rows({
      ...MERCHANT_EVENT_SQL.findForMerchant,
      values: [eventId, merchantId],
    });
    return row ? toStreamed(row) : null;
  }

  /**
   * The merchant's relayed events an id leads to: the event `eventId`, those recorded by the request
   * `requestId` (merchant_events.request_id, never answered), those of the runs `syncIds`. Newest first in
   * commit order, at most `limit`. Each criterion optional (null, or no run).
   */
  async findForTracingLookup(
    merchantId: MerchantId,
    by: { eventId: string | null; requestId: string | null; syncIds: readonly string[] },
    limit: number,
  ): Promise<StreamedEvent[]> {
    const rows = await this.db.rows({
      ...MERCHANT_EVENT_SQL.findForTracingLookup,
      values: [merchantId, by.eventId, by.requestId, by.syncIds, limit],
    });
    return rows.map(toStreamed);
  }

  /** Where a new stream starts: the user's newest relayed event, or 0. */
  async latestStreamSeq(merchantId: MerchantId, userId: string): Promise<string> {
    const [row] = await this.db.rows({
      ...MERCHANT_EVENT_SQL.latestStreamSeq,
      values: [merchantId, userId],
    });
    return row?.seq ?? '0';
  }

  /**
   * Removes up to `limit` relayed events created before `cutoff` (their delivery log goes with them, by
   * the foreign key), never one with a delivery still being tried. One short statement per batch, rows
   * another sweep holds skipped. Answers how many went and the highest stream position among them.
   */
  async deleteRelayedBefore(
    cutoff: Date,
    limit: number,
  ): Promise<{ deleted: number; through: string | null }> {
    const [row] = await this.db.rows({
      ...MERCHANT_EVENT_SQL.deleteRelayedBefore,
      values: [cutoff, limit],
    });
    return row ?? { deleted: 0, through: null };
  }
}
