import { Injectable } from '@nestjs/common';
import { DatabasePool, sqlStatement } from '#libs/database';

export interface InboxBacklog {
  /** Stored, not fanned out yet. */
  received: number;
  /** Fan-out gave up on them: they wait for a person (kept until dealt with). */
  failed: number;
  /** When the longest-waiting received event arrived; null when none waits. */
  oldestReceivedAt: Date | null;
}

/**
 * The inbox's backlog from the `(status, received_at)` index, RECEIVED and FAILED ranges only: processed
 * events (nearly all of them) are never read.
 */
const BACKLOG = `SELECT count(*) FILTER (WHERE status = 'RECEIVED')::int AS received,
    count(*) FILTER (WHERE status = 'FAILED')::int AS failed,
    min(received_at) FILTER (WHERE status = 'RECEIVED') AS "oldestReceivedAt"
  FROM inbound_events WHERE status IN ('RECEIVED', 'FAILED')`;

export const INBOX_STATS_SQL = {
  backlog: sqlStatement<InboxBacklog>('inbound-events.backlog', BACKLOG, {
    received: 'number',
    failed: 'number',
    oldestReceivedAt: 'Date',
  }),
};

/** Reads `inbound_events` for the worker's metrics. */
@Injectable()
export class InboxStatsRepository {
  constructor(private readonly db: DatabasePool) {}

  async backlog(): Promise<InboxBacklog> {
    const [row] = await this.db.rows({
      ...INBOX_STATS_SQL.backlog,
      values: [],
    });
    return row;
  }
}
