import { Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import { DatabasePool, isoText, ReadCache, sqlStatement } from '#libs/database';

/**
 * PSD2's RTS (art. 36(5)(b)): without the user present, a provider reads an account at most four times a
 * day. A bank may allow otherwise; an operator says so per institution (institutions.unattended_reads_per_day).
 */
export const UNATTENDED_READS_PER_DAY = 4;

/** The daily allowance of the account row `a` as SQL: its institution's, as an operator set it, else four. */
export const allowanceOf = (a: string) =>
  `coalesce((SELECT i.unattended_reads_per_day FROM institutions i WHERE i.id = ${a}.institution_id), ${UNATTENDED_READS_PER_DAY})`;

const utcDay = (at: string) => `(${at} AT TIME ZONE 'UTC')::date`;

/** The reads of the account row `a` taken on the UTC day of `at`, as SQL. */
const takenOn = (a: string, at: string) =>
  `(CASE WHEN ${a}.unattended_reads_day = ${utcDay(at)} THEN ${a}.unattended_reads ELSE 0 END)`;

/**
 * The earliest a scheduled sync of the account row `a` may take its next read, as SQL: the day's allowance
 * spread evenly over the UTC day of `at` (the k-th of n reads no sooner than k/n of the way through it),
 * the next day once all are taken. A manual sync or a retry that took one moves the plan along with it.
 */
export const nextReadSlot = (a: string, at: string) =>
  `((date_trunc('day', ${at} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') + interval '1 day' *
    LEAST(1.0, ${takenOn(a, at)}::double precision / ${allowanceOf(a)}))`;

export const UNATTENDED_READS_SQL = {
  /**
   * One read of today's allowance, unless all are taken or the bank holds the account (its own 429 until
   * daily_limit_until): the day's reads after it, and the day. Conditions on the row alone, so two
   * processes taking the last read at once see each other's (Postgres re-checks them on the locked row).
   */
  take: sqlStatement(
    'unattended-reads.take',
    `UPDATE accounts a SET unattended_reads = ${takenOn('a', '$3::timestamptz')} + 1,
          unattended_reads_day = ${utcDay('$3::timestamptz')}
        WHERE a.id = $1::uuid AND a.merchant_id = $2::uuid
          AND ${takenOn('a', '$3::timestamptz')} < ${allowanceOf('a')}
          AND (a.daily_limit_until IS NULL OR a.daily_limit_until <= $3::timestamptz)
        RETURNING to_char(a.unattended_reads_day, 'YYYY-MM-DD') AS day`,
    { day: 'string' },
  ),
  /** A read taken on the UTC day $3 that the bank did not count: given back. */
  giveBack: sqlStatement(
    'unattended-reads.give-back',
    `UPDATE accounts SET unattended_reads = unattended_reads - 1
        WHERE id = $1::uuid AND merchant_id = $2::uuid AND unattended_reads_day = $3::date
          AND unattended_reads > 0`,
  ),
  /** What the account's allowance stands at: the columns a refusal is explained by. */
  standing: sqlStatement(
    'unattended-reads.standing',
    `SELECT to_char(a.unattended_reads_day, 'YYYY-MM-DD') AS day, a.unattended_reads AS reads,
          ${allowanceOf('a')} AS "perDay", ${isoText('a.daily_limit_until')} AS "dailyLimitUntil"
        FROM accounts a WHERE a.id = $1::uuid AND a.merchant_id = $2::uuid`,
    { day: 'string?', reads: 'number', perDay: 'number', dailyLimitUntil: 'string?' },
  ),
};

/** The stored columns an account's allowance is read from (the account row carries them too). */
export interface StoredAllowance {
  /** The UTC day (YYYY-MM-DD) of `reads`. */
  day: string | null;
  reads: number;
  perDay: number;
  /** Until when the bank's own 429 holds the account (ISO text). */
  dailyLimitUntil: string | null;
}

/**
 * The owner of an account's count of reads without the user present (unattended_reads and its day): a
 * read taken before the bank is asked, and given back when its answer shows the bank did not count it.
 * Taken first, so no number of processes can ask the bank more often than it allows.
 */
@Injectable()
export class UnattendedReadsRepository {
  constructor(
    private readonly database: DatabasePool,
    private readonly cache: ReadCache,
  ) {}

  /** The UTC day the read was taken on, or null when the allowance (or the bank's hold) refuses it. */
  async take(merchantId: MerchantId, accountId: string, at: Date): Promise<string | null> {
    const [taken] = await this.database.rows({
      ...UNATTENDED_READS_SQL.take,
      values: [accountId, merchantId, at],
    });
    if (taken) this.cache.invalidate(merchantId);
    return taken?.day ?? null;
  }

  async giveBack(merchantId: MerchantId, accountId: string, day: string): Promise<void> {
    await this.database.rows({ ...UNATTENDED_READS_SQL.giveBack, values: [accountId, merchantId, day] });
    this.cache.invalidate(merchantId);
  }

  async standing(merchantId: MerchantId, accountId: string): Promise<StoredAllowance | null> {
    const [row] = await this.database.rows({
      ...UNATTENDED_READS_SQL.standing,
      values: [accountId, merchantId],
    });
    return row ?? null;
  }
}
