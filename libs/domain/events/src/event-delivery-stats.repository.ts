import { Injectable } from '@nestjs/common';
import { DatabasePool, row, type RowOf, sqlStatement } from '#libs/database';

const DELIVERY_BACKLOG_ROW = row({
  /** Pending deliveries whose attempt is due (a job should be on them). */
  due: 'number',
  /** Pending deliveries waiting for a retry later (their endpoint failed). */
  waiting: 'number',
  /** When the longest-due attempt fell due; null when none is due. */
  oldestDueAt: 'Date?',
});

export type DeliveryBacklog = RowOf<typeof DELIVERY_BACKLOG_ROW>;

const ENDPOINT_HEALTH_ROW = row({
  /** Enabled endpoints whose last attempt succeeded (or that have had none). */
  healthy: 'number',
  /** Enabled endpoints failing since their first failed attempt after a success. */
  failing: 'number',
  disabled: 'number',
  /** The longest-failing enabled endpoint's first failure; null when none fails. */
  failingSince: 'Date?',
});

export type EndpointHealth = RowOf<typeof ENDPOINT_HEALTH_ROW>;

/**
 * Pending deliveries, due or waiting: the `(status, next_attempt_at)` index's PENDING range only (the
 * delivered and failed ones, nearly all of the 10^7, are never read). A disabled merchant's deliveries
 * wait on purpose and are left out; the merchants join touches only the pending ones.
 */
const BACKLOG = `SELECT count(*) FILTER (WHERE d.next_attempt_at <= $1)::int AS due,
    count(*) FILTER (WHERE d.next_attempt_at > $1)::int AS waiting,
    min(d.next_attempt_at) FILTER (WHERE d.next_attempt_at <= $1) AS "oldestDueAt"
  FROM event_deliveries d JOIN merchants m ON m.id = d.merchant_id AND m.disabled_at IS NULL
  WHERE d.status = 'PENDING'`;

/** Endpoints are a few per merchant (thousands in all): one pass over the table, of enabled merchants. */
const ENDPOINTS = `SELECT count(*) FILTER (WHERE e.disabled_at IS NULL AND e.failing_since IS NULL)::int AS healthy,
    count(*) FILTER (WHERE e.disabled_at IS NULL AND e.failing_since IS NOT NULL)::int AS failing,
    count(*) FILTER (WHERE e.disabled_at IS NOT NULL)::int AS disabled,
    min(e.failing_since) FILTER (WHERE e.disabled_at IS NULL) AS "failingSince"
  FROM event_endpoints e JOIN merchants m ON m.id = e.merchant_id AND m.disabled_at IS NULL`;

export const EVENT_DELIVERY_STATS_SQL = {
  backlog: sqlStatement('event-deliveries.backlog', BACKLOG, DELIVERY_BACKLOG_ROW),
  endpointHealth: sqlStatement('event-endpoints.health', ENDPOINTS, ENDPOINT_HEALTH_ROW),
};

/** Reads `event_deliveries` and `event_endpoints` for the worker's metrics: aggregates, never a row per delivery. */
@Injectable()
export class EventDeliveryStatsRepository {
  constructor(private readonly db: DatabasePool) {}

  async backlog(now: Date): Promise<DeliveryBacklog> {
    const [row] = await this.db.rows({
      ...EVENT_DELIVERY_STATS_SQL.backlog,
      values: [now],
    });
    return row;
  }

  async endpointHealth(): Promise<EndpointHealth> {
    const [row] = await this.db.rows({
      ...EVENT_DELIVERY_STATS_SQL.endpointHealth,
      values: [],
    });
    return row;
  }
}
