import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import { DatabasePool, queryOn, sqlStatement } from '#libs/database';

export const OUTBOX_RELAY_STATE_SQL = {
  lock: sqlStatement(
    'outbox-relay-state.lock',
    `SELECT last_stream_seq::text AS last FROM outbox_relay_state WHERE id = 1 FOR UPDATE SKIP LOCKED`,
    { last: 'string' },
  ),
  advance: sqlStatement(
    'outbox-relay-state.advance',
    `UPDATE outbox_relay_state SET last_stream_seq = $1::bigint, updated_at = now() WHERE id = 1`,
  ),
  prunedThrough: sqlStatement(
    'outbox-relay-state.pruned-through',
    `UPDATE outbox_relay_state SET pruned_through_stream_seq = greatest(pruned_through_stream_seq, $1::bigint)
        WHERE id = 1`,
  ),
  readBounds: sqlStatement(
    'outbox-relay-state.read-bounds',
    `SELECT pruned_through_stream_seq::text AS through, last_stream_seq::text AS last
      FROM outbox_relay_state WHERE id = 1`,
    { through: 'string', last: 'string' },
  ),
};

/** The one owner of `outbox_relay_state`: the relay's high-water mark, and the lock on it. */
@Injectable()
export class OutboxRelayStateRepository {
  constructor(private readonly pool: DatabasePool) {}

  /** The last number handed out, locked for this transaction; null when another relay holds it. */
  async lockHighWater(db: pg.PoolClient): Promise<string | null> {
    const { rows } = await queryOn(db, { ...OUTBOX_RELAY_STATE_SQL.lock, values: [] });
    return rows[0]?.last ?? null;
  }

  async advance(db: pg.PoolClient, lastStreamSeq: string): Promise<void> {
    await db.query({
      ...OUTBOX_RELAY_STATE_SQL.advance,
      values: [lastStreamSeq],
    });
  }

  /**
   * Retention removed events up to this stream position: a stream resumed from before it may have missed
   * some. Only ever moves forward.
   */
  async recordPrunedThrough(streamSeq: string): Promise<void> {
    await this.pool.rows({
      ...OUTBOX_RELAY_STATE_SQL.prunedThrough,
      values: [streamSeq],
    });
  }

  /**
   * What a stream may resume from: after `prunedThrough` (the highest position retention has removed, 0:
   * none yet) and up to `last` (the last position handed out).
   */
  async bounds(): Promise<{ prunedThrough: bigint; last: bigint }> {
    const rows = await this.pool.rows({ ...OUTBOX_RELAY_STATE_SQL.readBounds, values: [] });
    return { prunedThrough: BigInt(rows[0]?.through ?? '0'), last: BigInt(rows[0]?.last ?? '0') };
  }
}
