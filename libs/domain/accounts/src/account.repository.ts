import { Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import {
  column,
  DatabasePool,
  isoText,
  outerJoined,
  Prisma,
  ReadCache,
  row,
  type RowOf,
  sqlStatement,
} from '#libs/database';
import { allowanceOf } from './unattended-reads.repository.js';

export type AccountSyncStatus = Prisma.AccountGetPayload<object>['syncStatus'];

const STORED_ACCOUNT = row({
  id: 'string',
  userId: 'string',
  consentId: 'string',
  institutionId: 'string',
  upstreamAccountId: 'string',
  type: 'string?',
  usageType: 'string?',
  currency: 'string?',
  nickname: 'string?',
  description: 'string?',
  accountNames: 'json?',
  accountIdentifications: 'json?',
  syncStatus: column<AccountSyncStatus>('string'),
  /** ISO text (see isoText): the view prints it as is. */
  lastSyncedAt: 'string?',
  nextSyncAt: 'string?',
  lastSyncError: 'string?',
  /** Since when its syncs have failed (ISO text); null while they succeed. */
  syncFailingSince: 'string?',
  /** Set while the bank no longer lists the account under its consent (ISO text). */
  closedAt: 'string?',
  /** Until when the bank's daily allowance of reads without the user was spent (ISO text). */
  dailyLimitUntil: 'string?',
  /** The UTC day (YYYY-MM-DD) of `unattendedReads`, the reads taken without the user (see allowanceView). */
  unattendedReadsDay: 'string?',
  unattendedReads: 'number',
  unattendedReadsPerDay: 'number',
  createdAt: 'string',
  updatedAt: 'string',
  balances: column<StoredBalance[]>('json'),
});

/** An account as the API reads it, with its latest balance of each type (amounts as decimal strings). */
export type StoredAccount = RowOf<typeof STORED_ACCOUNT>;

export interface StoredBalance {
  type: string;
  /** Postgres `numeric` as text: exact, and no Decimal object per amount on the way out. */
  amount: string;
  currency: string;
  dateTime: string | null;
  creditLineIncluded: boolean | null;
}

/*
 * The reads behind every page view are hand-written SQL on the shared pool (the Prisma runtime cost more
 * than the query): one statement each, balances aggregated in the same round trip, prepared by name.
 */
const ACCOUNT_COLUMNS = `a.id, a.user_id AS "userId", a.consent_id AS "consentId",
  a.institution_id AS "institutionId", a.upstream_account_id AS "upstreamAccountId", a.type, a.usage_type AS "usageType", a.currency, a.nickname,
  a.description, a.account_names AS "accountNames", a.account_identifications AS "accountIdentifications",
  a.sync_status AS "syncStatus", ${isoText('a.last_synced_at')} AS "lastSyncedAt",
  ${isoText('a.next_sync_at')} AS "nextSyncAt", a.last_sync_error AS "lastSyncError",
  ${isoText('a.sync_failing_since')} AS "syncFailingSince",
  ${isoText('a.closed_at')} AS "closedAt", ${isoText('a.daily_limit_until')} AS "dailyLimitUntil",
  to_char(a.unattended_reads_day, 'YYYY-MM-DD') AS "unattendedReadsDay", a.unattended_reads AS "unattendedReads",
  ${allowanceOf('a')} AS "unattendedReadsPerDay",
  ${isoText('a.created_at')} AS "createdAt", ${isoText('a.updated_at')} AS "updatedAt",
  COALESCE((SELECT json_agg(json_build_object('type', b.type, 'amount', b.amount::text,
      'currency', b.currency, 'dateTime', ${isoText('b.date_time')},
      'creditLineIncluded', b.credit_line_included)
      ORDER BY b.type)
    FROM account_balances b WHERE b.account_id = a.id AND b.merchant_id = a.merchant_id), '[]'::json)
  AS balances`;

const FIND_ONE = `SELECT ${ACCOUNT_COLUMNS} FROM accounts a
  WHERE a.id = $1::uuid AND a.merchant_id = $2::uuid AND ($3::uuid IS NULL OR a.user_id = $3::uuid)`;

/** The user row decides "missing" (no row) from "no accounts" (one row of nulls): one round trip. */
const LIST_FOR_USER = `SELECT u.id AS "ownerId", acc.* FROM users u
  LEFT JOIN LATERAL (
    SELECT ${ACCOUNT_COLUMNS} FROM accounts a
    WHERE a.merchant_id = u.merchant_id AND a.user_id = u.id AND ($3::uuid IS NULL OR a.id > $3::uuid)
    ORDER BY a.id LIMIT $4
  ) acc ON true
  WHERE u.id = $2::uuid AND u.merchant_id = $1::uuid`;

export const ACCOUNT_SQL = {
  findOne: sqlStatement('accounts.find-one', FIND_ONE, STORED_ACCOUNT),
  listForUser: sqlStatement('accounts.list-for-user', LIST_FOR_USER, {
    ownerId: 'string',
    ...outerJoined(STORED_ACCOUNT),
  }),
};

/**
 * The account views: the reads behind what a merchant or a user sees of their accounts. Accounts are
 * written by the placement (AccountPlacementRepository) and their sync state by its owner
 * (AccountSyncStateRepository).
 */
@Injectable()
export class AccountRepository {
  constructor(
    private readonly database: DatabasePool,
    private readonly cache: ReadCache,
  ) {}

  /** One account of the merchant (and of the user, for a session), or null: another tenant's is "missing". */
  async findOne(merchantId: MerchantId, accountId: string, userId?: string): Promise<StoredAccount | null> {
    const [row] = await this.database.rows({
      ...ACCOUNT_SQL.findOne,
      values: [accountId, merchantId, userId ?? null],
    });
    return row ?? null;
  }

  /**
   * A user's accounts in creation order (uuid v7 ids), keyset-paged with one extra row to detect more;
   * null when the merchant has no such user (another merchant's user must read as missing, not empty).
   */
  async listForUser(merchantId: MerchantId, userId: string, limit: number, afterId?: string) {
    // Every page view reads this: kept per process until Postgres notifies a change of the merchant's.
    return this.cache.read(merchantId, `accounts:${userId}:${afterId ?? ''}:${limit}`, async () => {
      const rows = await this.database.rows({
        ...ACCOUNT_SQL.listForUser,
        values: [merchantId, userId, afterId ?? null, limit + 1],
      });
      if (rows.length === 0) return null;
      // The lateral join's columns are null together, on the one row of a user without accounts.
      const accounts = rows.filter((r) => r.id !== null) as (StoredAccount & { ownerId: string })[];
      return { rows: accounts.slice(0, limit), more: accounts.length > limit };
    });
  }
}
