import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import {
  DatabasePool,
  Prisma,
  PrismaService,
  ReadCache,
  isTransactionConflict,
  isoText,
} from '#libs/database';
import type { Account as UpstreamAccount } from '#libs/upstream-client';
import { placeAccounts, type Placement } from './account-placement.js';
import { decimalFromUpstream } from './money.js';
import { isUuid, uuidV7 } from '#libs/ids';

export type AccountSyncStatus = Prisma.AccountGetPayload<object>['syncStatus'];

/** An account as the API reads it, with its latest balance of each type (amounts as decimal strings). */
export interface StoredAccount {
  id: string;
  userId: string;
  consentId: string;
  institutionId: string;
  upstreamAccountId: string;
  type: string | null;
  usageType: string | null;
  currency: string | null;
  nickname: string | null;
  description: string | null;
  accountNames: unknown;
  accountIdentifications: unknown;
  syncStatus: AccountSyncStatus;
  /** ISO text (see isoText): the view prints it as is. */
  lastSyncedAt: string | null;
  nextSyncAt: string | null;
  lastSyncError: string | null;
  /** Set while the bank no longer lists the account under its consent (ISO text). */
  closedAt: string | null;
  createdAt: string;
  updatedAt: string;
  balances: StoredBalance[];
}

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
  ${isoText('a.closed_at')} AS "closedAt",
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

/** The consent an account refresh belongs to (ids only; the token never comes here). */
export interface AccountOwner {
  merchantId: string;
  userId: string;
  consentId: string;
  institutionId: string;
}

const json = (v: unknown): Prisma.InputJsonValue | typeof Prisma.DbNull =>
  v === undefined || v === null ? Prisma.DbNull : v;

/** Where a placement is written in the placing transaction: existing accounts by id, then new ones. */
const rank = (p: Placement) => ('accountId' in p ? `0:${p.accountId}` : '1:');
const byRank = (x: Placement, y: Placement) => {
  const [a, b] = [rank(x), rank(y)];
  return a < b ? -1 : a > b ? 1 : 0;
};

/** What a sync of one account needs: the account, its consent's state and sealed token. */
export interface SyncTarget {
  id: string;
  merchantId: string;
  userId: string;
  upstreamAccountId: string;
  currency: string | null;
  consent: {
    id: string;
    status: string;
    institutionId: string;
    expiresAt: Date | null;
    transactionsFrom: Date | null;
    tokenCiphertext: string | null;
    tokenKeyId: string | null;
    subApplicationId: string | null;
  };
}

const SYNC_TARGET = `SELECT a.id, a.merchant_id AS "merchantId", a.user_id AS "userId",
    a.upstream_account_id AS "upstreamAccountId", a.currency,
    c.id AS "consentId", c.status AS "consentStatus", c.institution_id AS "institutionId",
    c.expires_at AS "expiresAt", c.transactions_from AS "transactionsFrom",
    c.token_ciphertext AS "tokenCiphertext", c.token_key_id AS "tokenKeyId",
    m.sub_application_id AS "subApplicationId"
  FROM accounts a
  JOIN consents c ON c.id = a.consent_id AND c.merchant_id = a.merchant_id
  JOIN merchants m ON m.id = a.merchant_id
  WHERE a.id = $1::uuid AND a.merchant_id = $2::uuid`;

/**
 * Accounts due for a sync, in (next_sync_at, id) order after a keyset position, on the dispatcher's index:
 * the consent authorised and unexpired, the account neither stopped nor closed. Two statements, first
 * batch and next ones: a generic plan of `$n IS NULL OR (…) > (…)` could not start the index scan at the
 * position, and every batch would read the ones before it again.
 */
const dueForSync = (after: boolean) => `SELECT a.id AS "accountId", a.merchant_id AS "merchantId",
    a.next_sync_at AS "nextSyncAt"
  FROM accounts a JOIN consents c ON c.id = a.consent_id AND c.merchant_id = a.merchant_id
  WHERE a.next_sync_at <= $1::timestamptz AND a.sync_status <> 'STOPPED' AND a.closed_at IS NULL
    ${after ? 'AND (a.next_sync_at, a.id) > ($3::timestamptz, $4::uuid)' : ''}
    AND c.status = 'AUTHORIZED' AND (c.expires_at IS NULL OR c.expires_at > $1::timestamptz)
  ORDER BY a.next_sync_at, a.id LIMIT $2`;

@Injectable()
export class AccountRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly database: DatabasePool,
    private readonly cache: ReadCache,
  ) {}

  /**
   * Stores a consent's accounts as the upstream lists them and replaces each one's balances, all in one
   * transaction, so a reader never sees an account without its balances or half of a refresh. Balances
   * of a type the bank no longer reports are removed: the table holds the latest balance of each type.
   *
   * A listed account the user already has at this institution (under an earlier consent, or under
   * another upstream id) is that account, moved to this consent with its id, transactions and sync
   * history, and due for a sync (see placeAccounts); only an account that matches none is created. The
   * user's accounts at the institution are placed under one lock, so two consents of the same bank
   * authorised at once cannot both add a row for one account. `approvedAt`: the authorisation being
   * stored (else the consent's stored one).
   */
  async upsertFromUpstream(
    owner: AccountOwner,
    accounts: readonly UpstreamAccount[],
    options: { approvedAt?: Date; now?: Date } = {},
  ): Promise<void> {
    const now = options.now ?? new Date();
    for (let attempt = 1; ; attempt++) {
      try {
        await this.prisma.$transaction((tx) => this.place(tx, owner, accounts, options, now));
        this.cache.invalidate(owner.merchantId);
        return;
      } catch (error) {
        // A deadlock with another writer of these rows (a sync ending, a revocation) picked this one: the
        // placement is whole or not at all, so it is simply made again.
        if (!isTransactionConflict(error) || attempt >= 3) throw error;
      }
    }
  }

  /**
   * The same placement inside the caller's transaction, so the move commits with whatever else that
   * transaction writes (the consent's authorisation: a consent that is not authorised takes no accounts).
   * The caller invalidates the read cache after it commits, and retries on a conflict.
   */
  placeWithin(
    tx: Prisma.TransactionClient,
    owner: AccountOwner,
    accounts: readonly UpstreamAccount[],
    options: { approvedAt?: Date; now?: Date } = {},
  ): Promise<void> {
    return this.place(tx, owner, accounts, options, options.now ?? new Date());
  }

  private async place(
    tx: Prisma.TransactionClient,
    owner: AccountOwner,
    accounts: readonly UpstreamAccount[],
    options: { approvedAt?: Date },
    now: Date,
  ): Promise<void> {
    // Two placements of the same user's accounts at one bank (two consents authorised at once) take
    // turns: the rows either would insert are not there yet to be locked.
    const key = `accounts:${owner.merchantId}:${owner.userId}:${owner.institutionId}`;
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`;
    const held = await tx.account.findMany({
      where: { merchantId: owner.merchantId, userId: owner.userId, institutionId: owner.institutionId },
      select: {
        id: true,
        consentId: true,
        upstreamAccountId: true,
        accountIdentifications: true,
        consent: { select: { status: true, authorizedAt: true } },
      },
    });
    const approvedAt =
      options.approvedAt ??
      (
        await tx.consent.findFirst({
          where: { id: owner.consentId, merchantId: owner.merchantId },
          select: { authorizedAt: true },
        })
      )?.authorizedAt ??
      null;
    const placements = placeAccounts(
      owner.consentId,
      approvedAt,
      held.map((h) => ({
        id: h.id,
        consentId: h.consentId,
        upstreamAccountId: h.upstreamAccountId,
        accountIdentifications: h.accountIdentifications,
        consentStatus: h.consent.status,
        consentAuthorizedAt: h.consent.authorizedAt,
      })),
      accounts,
    );
    // Existing rows in id order, each one's balances before the row itself: the order in which a sync's
    // last transaction (balances, then the account) and ConsentStateRepository (a consent's accounts,
    // by id) lock them, so none of them waits for another in a circle. New rows last.
    const order = accounts
      .map((upstream, i) => ({ upstream, placement: placements[i] }))
      .filter(({ placement }) => placement.action !== 'keep' && placement.action !== 'repeat')
      .sort((x, y) => byRank(x.placement, y.placement));
    for (const { upstream: a, placement } of order) {
      const fields = {
        type: a.accountType ?? a.type ?? null,
        usageType: a.usageType ?? null,
        currency: a.currency ?? null,
        nickname: a.nickname ?? null,
        description: a.description ?? null,
        details: a.details ?? null,
        accountNames: json(a.accountNames),
        accountIdentifications: json(a.accountIdentifications),
        raw: a as Prisma.InputJsonValue,
      };
      if (placement.action === 'create') {
        const { id } = await tx.account.create({
          data: { ...owner, upstreamAccountId: a.id, ...fields, nextSyncAt: now },
          select: { id: true },
        });
        await this.storeBalances(tx, owner.merchantId, id, a);
      } else if (placement.action === 'move' || placement.action === 'update') {
        await this.storeBalances(tx, owner.merchantId, placement.accountId, a);
        if (placement.action === 'move') await this.move(tx, owner, placement.accountId, a.id, now);
        await tx.account.updateMany({
          where: { id: placement.accountId, merchantId: owner.merchantId },
          data: fields,
        });
      }
    }
  }

  /** The account's latest balance of each type the bank reports; those of types it no longer reports go. */
  private async storeBalances(
    tx: Prisma.TransactionClient,
    merchantId: string,
    accountId: string,
    a: UpstreamAccount,
  ): Promise<void> {
    const balances = (a.accountBalances ?? []).filter(
      (b): b is typeof b & { type: string; balanceAmount: { amount: number; currency: string } } =>
        typeof b.type === 'string' && b.balanceAmount !== undefined,
    );
    await tx.accountBalance.deleteMany({
      where: { merchantId, accountId, type: { notIn: balances.map((b) => b.type) } },
    });
    for (const b of balances) {
      const values = {
        amount: decimalFromUpstream(b.balanceAmount.amount),
        currency: b.balanceAmount.currency,
        dateTime: b.dateTime ? new Date(b.dateTime) : null,
        creditLineIncluded: b.creditLineIncluded ?? null,
        creditLines: json(b.creditLines),
      };
      await tx.accountBalance.upsert({
        where: { accountId_type: { accountId, type: b.type } },
        create: { merchantId, accountId, type: b.type, ...values },
        update: values,
      });
    }
  }

  /**
   * An existing account comes to `owner`'s consent under the id this consent lists it by: open again and
   * due for a sync now (one running keeps running and ends as it would), with the stopped consent's error
   * cleared. Its transactions and sync runs hang off the account, so they come with it.
   */
  private async move(
    tx: Prisma.TransactionClient,
    owner: AccountOwner,
    accountId: string,
    upstreamAccountId: string,
    now: Date,
  ): Promise<void> {
    await tx.$executeRaw`UPDATE accounts SET consent_id = ${owner.consentId}::uuid,
        upstream_account_id = ${upstreamAccountId}, closed_at = NULL, last_sync_error = NULL,
        sync_status = CASE WHEN sync_status = 'SYNCING' THEN sync_status ELSE 'PENDING' END,
        next_sync_at = ${now}, updated_at = ${now}
      WHERE id = ${accountId}::uuid AND merchant_id = ${owner.merchantId}::uuid AND user_id = ${owner.userId}::uuid`;
  }

  /** One account of the merchant (and of the user, for a session), or null: another tenant's is "missing". */
  async findOne(merchantId: string, accountId: string, userId?: string): Promise<StoredAccount | null> {
    if (!isUuid(accountId) || !isUuid(merchantId) || (userId !== undefined && !isUuid(userId))) return null;
    const [row] = await this.database.rows<StoredAccount>({
      name: 'accounts.find-one',
      text: FIND_ONE,
      values: [accountId, merchantId, userId ?? null],
    });
    return row ?? null;
  }

  /**
   * A user's accounts in creation order (uuid v7 ids), keyset-paged with one extra row to detect more;
   * null when the merchant has no such user (another merchant's user must read as missing, not empty).
   */
  async listForUser(merchantId: string, userId: string, limit: number, afterId?: string) {
    if (!isUuid(merchantId) || !isUuid(userId) || (afterId !== undefined && !isUuid(afterId))) return null;
    // Every page view reads this: kept per process until Postgres notifies a change of the merchant's.
    return this.cache.read(merchantId, `accounts:${userId}:${afterId ?? ''}:${limit}`, async () => {
      const rows = await this.database.rows<StoredAccount & { ownerId: string }>({
        name: 'accounts.list-for-user',
        text: LIST_FOR_USER,
        values: [merchantId, userId, afterId ?? null, limit + 1],
      });
      if (rows.length === 0) return null;
      const accounts = rows.filter((r) => r.id !== null);
      return { rows: accounts.slice(0, limit), more: accounts.length > limit };
    });
  }

  /** The account and its consent, for a sync (the token stays sealed until the sync opens it). */
  async syncTarget(merchantId: string, accountId: string): Promise<SyncTarget | null> {
    if (!isUuid(accountId) || !isUuid(merchantId)) return null;
    const [row] = await this.database.rows<Record<string, unknown>>({
      name: 'accounts.sync-target',
      text: SYNC_TARGET,
      values: [accountId, merchantId],
    });
    if (!row) return null;
    const r = row as Record<string, never>;
    return {
      id: r.id,
      merchantId: r.merchantId,
      userId: r.userId,
      upstreamAccountId: r.upstreamAccountId,
      currency: r.currency,
      consent: {
        id: r.consentId,
        status: r.consentStatus,
        institutionId: r.institutionId,
        expiresAt: r.expiresAt,
        transactionsFrom: r.transactionsFrom,
        tokenCiphertext: r.tokenCiphertext,
        tokenKeyId: r.tokenKeyId,
        subApplicationId: r.subApplicationId,
      },
    };
  }

  /** One keyset batch of accounts due for a sync at `now`. */
  dueForSync(
    now: Date,
    after: { nextSyncAt: Date; accountId: string } | null,
    limit: number,
  ): Promise<{ accountId: string; merchantId: string; nextSyncAt: Date }[]> {
    return this.database.rows(
      after
        ? {
            name: 'accounts.due-for-sync-after',
            text: dueForSync(true),
            values: [now, limit, after.nextSyncAt, after.accountId],
          }
        : { name: 'accounts.due-for-sync', text: dueForSync(false), values: [now, limit] },
    );
  }

  /** A sync started: shown as `syncing` unless the consent stopped it meanwhile. */
  async markSyncing(merchantId: string, accountId: string): Promise<void> {
    await this.database.rows({
      name: 'accounts.mark-syncing',
      text: `UPDATE accounts SET sync_status = 'SYNCING', updated_at = now()
        WHERE id = $1::uuid AND merchant_id = $2::uuid AND sync_status <> 'STOPPED'`,
      values: [accountId, merchantId],
    });
    this.cache.invalidate(merchantId);
  }

  /** A sync ended, in the sync's final transaction: synced (or failed, with why) and due again at `nextSyncAt`. */
  async markSyncEnded(
    db: pg.PoolClient,
    merchantId: string,
    accountId: string,
    outcome:
      { synced: true; at: Date; nextSyncAt: Date } | { synced: false; error: string; nextSyncAt: Date },
  ): Promise<void> {
    await db.query({
      name: 'accounts.mark-sync-ended',
      // A stopped account (its consent gone) stays stopped and undue, but still shows why.
      text: `UPDATE accounts SET
          sync_status = CASE WHEN sync_status = 'STOPPED' THEN sync_status ELSE $3::account_sync_status END,
          last_synced_at = COALESCE($4, last_synced_at), last_sync_error = $5,
          next_sync_at = CASE WHEN sync_status = 'STOPPED' THEN NULL ELSE $6::timestamptz END,
          updated_at = now()
        WHERE id = $1::uuid AND merchant_id = $2::uuid`,
      values: [
        accountId,
        merchantId,
        outcome.synced ? 'SYNCED' : 'FAILED',
        outcome.synced ? outcome.at : null,
        outcome.synced ? null : outcome.error.slice(0, 1000),
        outcome.nextSyncAt,
      ],
    });
  }

  /** The latest balances, in the sync's final transaction (the table holds one per type). */
  async replaceBalances(
    db: pg.PoolClient,
    merchantId: string,
    accountId: string,
    balances: readonly {
      type: string;
      amount: number;
      currency: string;
      dateTime: string | null;
      creditLineIncluded: boolean | null;
      creditLines: unknown;
    }[],
  ): Promise<void> {
    await db.query({
      name: 'accounts.delete-stale-balances',
      text: `DELETE FROM account_balances WHERE merchant_id = $1::uuid AND account_id = $2::uuid
        AND NOT (type = ANY($3::text[]))`,
      values: [merchantId, accountId, balances.map((b) => b.type)],
    });
    if (balances.length === 0) return;
    await db.query({
      name: 'accounts.upsert-balances',
      text: `INSERT INTO account_balances AS b (id, merchant_id, account_id, type, amount, currency, date_time,
          credit_line_included, credit_lines, updated_at)
        SELECT r.id, $1::uuid, $2::uuid, r.type, r.amount, r.currency, r.date_time, r.credit_line_included,
          r.credit_lines, now()
        FROM jsonb_to_recordset($3::jsonb) AS r(id uuid, type text, amount numeric, currency text,
          date_time timestamptz, credit_line_included boolean, credit_lines jsonb)
        ON CONFLICT (account_id, type) DO UPDATE SET amount = EXCLUDED.amount, currency = EXCLUDED.currency,
          date_time = EXCLUDED.date_time, credit_line_included = EXCLUDED.credit_line_included,
          credit_lines = EXCLUDED.credit_lines, updated_at = now()`,
      values: [
        merchantId,
        accountId,
        JSON.stringify(
          balances.map((b) => ({
            id: uuidV7(),
            type: b.type,
            amount: b.amount,
            currency: b.currency,
            date_time: b.dateTime,
            credit_line_included: b.creditLineIncluded,
            credit_lines: b.creditLines ?? null,
          })),
        ),
      ],
    });
  }

  /** The ids of a consent's accounts that may sync (not stopped). */
  async idsOfConsent(merchantId: string, consentId: string): Promise<string[]> {
    const rows = await this.database.rows<{ id: string }>({
      name: 'accounts.ids-of-consent',
      text: `SELECT id FROM accounts WHERE merchant_id = $1::uuid AND consent_id = $2::uuid
        AND sync_status <> 'STOPPED' AND closed_at IS NULL ORDER BY id`,
      values: [merchantId, consentId],
    });
    return rows.map((r) => r.id);
  }

  /**
   * The consent's accounts the upstream no longer lists are closed: stopped, undue, and saying why. Their
   * data is kept. Answers the ids closed now. Rows locked in id order, as every writer of a set of
   * accounts locks them (a placement may be moving some of them to another consent meanwhile); the
   * conditions are checked again on the locked rows, so one moved away meanwhile is left alone.
   */
  async closeUnlisted(
    merchantId: string,
    consentId: string,
    listedUpstreamIds: readonly string[],
  ): Promise<string[]> {
    const rows = await this.database.rows<{ id: string }>({
      name: 'accounts.close-unlisted',
      text: `UPDATE accounts SET closed_at = now(), sync_status = 'STOPPED', next_sync_at = NULL,
          last_sync_error = 'The bank no longer lists this account under the consent; its data is kept.',
          updated_at = now()
        WHERE id IN (SELECT id FROM accounts WHERE merchant_id = $1::uuid AND consent_id = $2::uuid
            AND closed_at IS NULL AND NOT (upstream_account_id = ANY($3::text[])) ORDER BY id FOR NO KEY UPDATE)
          AND consent_id = $2::uuid AND closed_at IS NULL AND NOT (upstream_account_id = ANY($3::text[]))
        RETURNING id`,
      values: [merchantId, consentId, listedUpstreamIds],
    });
    this.cache.invalidate(merchantId);
    return rows.map((r) => r.id);
  }

  /** Closed accounts the upstream lists again are reopened, and due at once (rows locked in id order). */
  async reopenListed(
    merchantId: string,
    consentId: string,
    listedUpstreamIds: readonly string[],
  ): Promise<void> {
    await this.database.rows({
      name: 'accounts.reopen-listed',
      text: `UPDATE accounts SET closed_at = NULL, sync_status = 'PENDING', next_sync_at = now(),
          last_sync_error = NULL, updated_at = now()
        WHERE id IN (SELECT id FROM accounts WHERE merchant_id = $1::uuid AND consent_id = $2::uuid
            AND closed_at IS NOT NULL AND upstream_account_id = ANY($3::text[]) ORDER BY id FOR NO KEY UPDATE)
          AND consent_id = $2::uuid AND closed_at IS NOT NULL AND upstream_account_id = ANY($3::text[])`,
      values: [merchantId, consentId, listedUpstreamIds],
    });
    this.cache.invalidate(merchantId);
  }

  /** The upstream ids of every account of a consent, closed ones included. */
  async upstreamIdsOfConsent(merchantId: string, consentId: string): Promise<string[]> {
    const rows = await this.database.rows<{ upstreamAccountId: string }>({
      name: 'accounts.upstream-ids-of-consent',
      text: `SELECT upstream_account_id AS "upstreamAccountId" FROM accounts
        WHERE merchant_id = $1::uuid AND consent_id = $2::uuid`,
      values: [merchantId, consentId],
    });
    return rows.map((r) => r.upstreamAccountId);
  }
}
