import { Injectable } from '@nestjs/common';
import { DatabasePool, sqlStatement } from '#libs/database';

/** How long ago the accounts that sync were last synced, counted per bucket; the never-synced apart. */
export interface SyncLagCounts {
  /** Per bucket, not cumulative: `counts[i]` lags up to `buckets[i]` (and above the one before); one more for the rest. */
  counts: number[];
  /** Seconds, summed over the counted accounts. */
  sum: number;
  /** Accounts that sync but have not finished a first sync yet (no lag to speak of). */
  neverSynced: number;
}

/**
 * Accounts that sync (`next_sync_at` set: not stopped, not closed, their consent usable) of merchants
 * not disabled (their accounts are left due on purpose), bucketed by Postgres: one row per bucket comes
 * back, never one per account. It reads `accounts_last_synced_at_merchant_id_idx` alone, a partial index
 * on exactly these accounts (an index-only scan, several times cheaper than a scan of the table at
 * 10^6 accounts). `width_bucket` over the thresholds as timestamps, ascending, so no per-row
 * arithmetic but the lag's sum.
 */
const SYNC_LAG = `SELECT width_bucket(a.last_synced_at, $2::timestamptz[]) AS bucket, count(*)::int AS accounts,
    coalesce(extract(epoch FROM sum($1::timestamptz - a.last_synced_at)), 0)::float8 AS seconds
  FROM accounts a LEFT JOIN merchants disabled ON disabled.id = a.merchant_id AND disabled.disabled_at IS NOT NULL
  WHERE a.next_sync_at IS NOT NULL AND disabled.id IS NULL
  GROUP BY 1`;

/** An institution holding accounts for its daily allowance, and how many of its accounts sync. */
export interface DailyLimitCount {
  institutionId: string;
  held: number;
  syncing: number;
}

/**
 * Per institution holding any account for its daily allowance at $1: those, from a partial index of the
 * accounts ever held, and how many of its accounts sync, from a partial index of those (only for such an
 * institution: none is read while no bank holds anything).
 */
const DAILY_LIMIT = `SELECT h.institution_id AS "institutionId", h.held::int AS held,
    (SELECT count(*) FROM accounts a WHERE a.institution_id = h.institution_id AND a.next_sync_at IS NOT NULL)::int
      AS syncing
  FROM (SELECT institution_id, count(*) AS held FROM accounts
    WHERE daily_limit_until IS NOT NULL AND daily_limit_until > $1::timestamptz GROUP BY institution_id) h`;

export const ACCOUNT_SYNC_STATS_SQL = {
  dailyLimit: sqlStatement('accounts.daily-limit', DAILY_LIMIT, {
    institutionId: 'string',
    held: 'number',
    syncing: 'number',
  }),
  syncLag: sqlStatement('accounts.sync-lag', SYNC_LAG, {
    bucket: 'number?',
    accounts: 'number',
    seconds: 'number',
  }),
};

/**
 * Reads `accounts` for the worker's metrics: aggregate statements only, on indexes, whatever the table's
 * size. The sync state's writers are AccountSyncStateRepository's.
 */
@Injectable()
export class AccountSyncStatsRepository {
  constructor(private readonly database: DatabasePool) {}

  /** Sync lag at `now`, per bucket of `bucketsSeconds` (ascending upper bounds). */
  async syncLag(now: Date, bucketsSeconds: readonly number[]): Promise<SyncLagCounts> {
    // Bucket i holds lags in (b[i-1], b[i]]: last synced in [now - b[i], now - b[i-1]). As ascending
    // timestamps, the largest lag first: width_bucket answers 0 below the first (lag over the last
    // bound), k for [t[k-1], t[k]), and n from the last one on (lag under the first bound).
    const thresholds = [...bucketsSeconds].reverse().map((s) => new Date(now.getTime() - s * 1000));
    const n = bucketsSeconds.length;
    const rows = await this.database.rows({
      ...ACCOUNT_SYNC_STATS_SQL.syncLag,
      values: [now, thresholds],
    });
    const counts = new Array<number>(n + 1).fill(0);
    let sum = 0;
    let neverSynced = 0;
    for (const row of rows) {
      if (row.bucket === null) {
        neverSynced += row.accounts;
        continue;
      }
      // width_bucket k (0..n) is lag bucket n - k: k = n is the smallest lags, k = 0 beyond every bound.
      counts[n - row.bucket] += row.accounts;
      // A clock a little behind the writer's makes a lag slightly negative: none is counted below 0.
      sum += Math.max(0, row.seconds);
    }
    return { counts, sum, neverSynced };
  }

  /** The institutions holding accounts for their daily allowance at `now`, with how many of theirs sync. */
  async dailyLimitHolds(now: Date): Promise<DailyLimitCount[]> {
    return this.database.rows({ ...ACCOUNT_SYNC_STATS_SQL.dailyLimit, values: [now] });
  }
}
