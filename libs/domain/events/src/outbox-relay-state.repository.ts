import { Injectable } from '@nestjs/common';
import type pg from 'pg';

/** The one owner of `outbox_relay_state`: the relay's high-water mark, and the lock on it. */
@Injectable()
export class OutboxRelayStateRepository {
  /** The last number handed out, locked for this transaction; null when another relay holds it. */
  async lockHighWater(db: pg.PoolClient): Promise<string | null> {
    const { rows } = await db.query<{ last: string }>({
      name: 'outbox-relay-state.lock',
      text: `SELECT last_stream_seq::text AS last FROM outbox_relay_state WHERE id = 1 FOR UPDATE SKIP LOCKED`,
    });
    return rows[0]?.last ?? null;
  }

  async advance(db: pg.PoolClient, lastStreamSeq: string): Promise<void> {
    await db.query({
      name: 'outbox-relay-state.advance',
      text: `UPDATE outbox_relay_state SET last_stream_seq = $1::bigint, updated_at = now() WHERE id = 1`,
      values: [lastStreamSeq],
    });
  }
}
