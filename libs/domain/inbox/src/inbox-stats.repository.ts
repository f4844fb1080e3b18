import { Injectable } from '@nestjs/common';
import { DatabasePool, row, type RowOf, sqlStatement } from '#libs/database';

const INBOX_BACKLOG_ROW = row({
  /** Stored, not fanned out yet. */
  received: 'number',
  /** Fan-out gave up on them: they wait for a person (kept until dealt with). */
  failed: 'number',
  /** When the longest-waiting received event arrived; null when none waits. */
  oldestReceivedAt: 'Date?',
});

export type InboxBacklog = RowOf<typeof INBOX_BACKLOG_ROW>;

/**
 * The inbox's backlog from the `(status, received_at)` index, RECEIVED and FAILED ranges only: processed
 * events (nearly all of them) are never read.
 */
const BACKLOG = `SELECT count(*) FILTER (WHERE status = 'RECEIVED')::int AS received,
    count(*) FILTER (WHERE status = 'FAILED')::int AS failed,
    min(received_at) FILTER (WHERE status = 'RECEIVED') AS "oldestReceivedAt"
  FROM inbound_events WHERE status IN ('RECEIVED', 'FAILED')`;

export const INBOX_STATS_SQL = {
  backlog: sqlStatement('inbound-events.backlog', BACKLOG, INBOX_BACKLOG_ROW),
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
