import { Injectable } from '@nestjs/common';
import { DatabasePool, row, type RowOf, sqlStatement } from '#libs/database';
import { FINAL_STATUSES_SQL as FINAL, PARKED_PAYMENT, PaymentStatus } from './payment-status.js';

export const PAYMENT_KINDS = ['SINGLE', 'VRP'] as const;

/**
 * The statuses a payment not final yet is counted under: ours before the bank, and the bank's one we
 * name. The bank may answer others (stored as given): they are counted as `OTHER`, so the label stays a
 * closed set whatever a bank says.
 */
export const UNFINISHED_PAYMENT_STATUSES = [
  PaymentStatus.AwaitingAuthorisation,
  PaymentStatus.Submitting,
  PaymentStatus.Pending,
  'OTHER',
] as const;

const UNFINISHED_PAYMENT_COUNT = row({ status: 'string', kind: 'string', payments: 'number' });

/** Payments not final by status (see {@link UNFINISHED_PAYMENT_STATUSES}) and kind. */
export type UnfinishedPaymentCount = RowOf<typeof UNFINISHED_PAYMENT_COUNT>;

export interface ParkedPayments {
  /** Payments no check will move any more: they wait for a webhook or a person. */
  parked: number;
  /** When the oldest of them was created; null when none is parked. */
  oldestCreatedAt: Date | null;
}

const SUBMITTING_PAYMENTS = row({
  /** `SUBMITTING` and still checked (not parked), of merchants not disabled. */
  submitting: 'number',
  /** When the longest-submitting of them became `SUBMITTING` (its creation for a VRP payment); null when none. */
  oldestSince: 'Date?',
});

export type SubmittingPayments = RowOf<typeof SUBMITTING_PAYMENTS>;

const statusBucket = (p: string) =>
  `CASE WHEN ${p}.status IN (${UNFINISHED_PAYMENT_STATUSES.map((status) => `'${status}'`).join(', ')})
    THEN ${p}.status ELSE 'OTHER' END`;

/**
 * Payments still checked by the status poll: the `(next_status_check_at)` index's non-null range, which
 * holds only payments in flight (a final status clears it), never the final ones that make up the table.
 */
const CHECKED = `SELECT ${statusBucket('p')} AS status, p.kind::text AS kind, count(*)::int AS payments
  FROM payments p WHERE p.next_status_check_at IS NOT NULL AND p.status NOT IN (${FINAL})
  GROUP BY 1, 2`;

/**
 * Parked payments by status and kind, with the oldest's creation per group. The index's null range holds
 * the final payments too, so without a partial index on the parked rows this reads the table.
 */
const PARKED = `SELECT ${statusBucket('p')} AS status, p.kind::text AS kind, count(*)::int AS payments,
    min(p.created_at) AS "oldestCreatedAt"
  FROM payments p WHERE ${PARKED_PAYMENT('p')}
  GROUP BY 1, 2`;

/**
 * `SUBMITTING` payments the poll still sends: the same index range. A disabled merchant's payments wait
 * on purpose (the poll skips them) and are left out; the join touches only the submitting ones. A single
 * payment's claim sets `status_updated_at`; a VRP payment is created `SUBMITTING` without it.
 */
const SUBMITTING = `SELECT count(*)::int AS submitting,
    min(coalesce(p.status_updated_at, p.created_at)) AS "oldestSince"
  FROM payments p JOIN merchants m ON m.id = p.merchant_id AND m.disabled_at IS NULL
  WHERE p.next_status_check_at IS NOT NULL AND p.status = '${PaymentStatus.Submitting}'`;

export const PAYMENT_STATS_SQL = {
  checked: sqlStatement('payments.count-checked', CHECKED, UNFINISHED_PAYMENT_COUNT),
  parked: sqlStatement('payments.count-parked', PARKED, {
    ...UNFINISHED_PAYMENT_COUNT,
    oldestCreatedAt: 'Date?',
  }),
  submitting: sqlStatement('payments.count-submitting', SUBMITTING, SUBMITTING_PAYMENTS),
};

/**
 * Reads `payments` for the worker's metrics: aggregates, never a row per payment, and no merchant in
 * what comes back. Final payments (nearly all of them) are not counted: they only grow.
 */
@Injectable()
export class PaymentStatsRepository {
  constructor(private readonly db: DatabasePool) {}

  /** Payments not final (checked and parked alike) by status and kind, and the parked ones apart. */
  async unfinished(): Promise<{ byStatus: UnfinishedPaymentCount[]; parked: ParkedPayments }> {
    const checked = await this.db.rows({ ...PAYMENT_STATS_SQL.checked, values: [] });
    const parked = await this.db.rows({ ...PAYMENT_STATS_SQL.parked, values: [] });
    const byStatus = new Map<string, UnfinishedPaymentCount>();
    for (const row of [...checked, ...parked]) {
      const key = `${row.status} ${row.kind}`;
      const counted = byStatus.get(key);
      byStatus.set(key, {
        status: row.status,
        kind: row.kind,
        payments: (counted?.payments ?? 0) + row.payments,
      });
    }
    const oldest = parked
      .map((row) => row.oldestCreatedAt)
      .filter((at): at is Date => at !== null)
      .sort((a, b) => a.getTime() - b.getTime())[0];
    return {
      byStatus: [...byStatus.values()],
      parked: {
        parked: parked.reduce((total, row) => total + row.payments, 0),
        oldestCreatedAt: oldest ?? null,
      },
    };
  }

  async submitting(): Promise<SubmittingPayments> {
    const [row] = await this.db.rows({ ...PAYMENT_STATS_SQL.submitting, values: [] });
    return row;
  }
}
