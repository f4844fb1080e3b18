import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import type { MerchantId } from '#libs/context';
import { DatabasePool, Prisma, queryOn, ReadCache, sqlStatement, sqlTemplate } from '#libs/database';
import { reconnectHint } from '#libs/errors';
import { isUuid } from '#libs/ids';

type Tx = Prisma.TransactionClient;

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
 * the consent authorised and unexpired, the account neither stopped nor closed, its merchant enabled (a
 * disabled merchant's accounts stay due, and are dispatched once it is enabled). Two statements, first
 * batch and next ones: a generic plan of `$n IS NULL OR (…) > (…)` could not start the index scan at the
 * position, and every batch would read the ones before it again. The consent is joined by its id alone: an
 * account's consent is always its merchant's (placement keeps it so), and naming the merchant in the join
 * too makes the planner multiply the two conditions, expect a handful of rows and hash-join both whole
 * tables, many times slower than this index walk (re-measure: `npm run bench:scale`).
 */
const dueForSync = (after: boolean) => `SELECT a.id AS "accountId", a.merchant_id AS "merchantId",
    a.next_sync_at AS "nextSyncAt"
  FROM accounts a JOIN consents c ON c.id = a.consent_id
    JOIN merchants m ON m.id = a.merchant_id AND m.disabled_at IS NULL
  WHERE a.next_sync_at <= $1::timestamptz AND a.sync_status <> 'STOPPED' AND a.closed_at IS NULL
    ${after ? 'AND (a.next_sync_at, a.id) > ($3::timestamptz, $4::uuid)' : ''}
    AND c.status = 'AUTHORIZED' AND (c.expires_at IS NULL OR c.expires_at > $1::timestamptz)
  ORDER BY a.next_sync_at, a.id LIMIT $2`;

interface SyncTargetRow {
  id: string;
  merchantId: string;
  userId: string;
  upstreamAccountId: string;
  currency: string | null;
  consentId: string;
  consentStatus: string;
  institutionId: string;
  expiresAt: Date | null;
  transactionsFrom: Date | null;
  tokenCiphertext: string | null;
  tokenKeyId: string | null;
  subApplicationId: string | null;
}

type DueAccount = { accountId: string; merchantId: string; nextSyncAt: Date };
const DUE_ACCOUNT = { accountId: 'string', merchantId: 'string', nextSyncAt: 'Date' } as const;

/** The way back for a stopped account as an SQL literal (a constant), its user and institution filled in. */
const STOPPED_HINT = `'${reconnectHint('{userId}', '{institutionId}').replaceAll("'", "''")}'`;

/**
 * Why a stopped account does not sync (an earlier failure is no longer the reason), as an SQL expression
 * of its consent's status (itself an SQL expression).
 */
const stoppedByConsent = (status: string) =>
  `'The consent is ' || ${status} || ': syncs stopped; ' ||
    replace(replace(${STOPPED_HINT}, '{userId}', accounts.user_id::text), '{institutionId}', accounts.institution_id)`;

export const ACCOUNT_SYNC_STATE_SQL = {
  syncTarget: sqlStatement<SyncTargetRow>('accounts.sync-target', SYNC_TARGET, {
    id: 'string',
    merchantId: 'string',
    userId: 'string',
    upstreamAccountId: 'string',
    currency: 'string',
    consentId: 'string',
    consentStatus: 'string',
    institutionId: 'string',
    expiresAt: 'Date',
    transactionsFrom: 'Date',
    tokenCiphertext: 'string',
    tokenKeyId: 'string',
    subApplicationId: 'string',
  }),
  dueForSync: sqlStatement<DueAccount>('accounts.due-for-sync', dueForSync(false), DUE_ACCOUNT),
  dueForSyncAfter: sqlStatement<DueAccount>('accounts.due-for-sync-after', dueForSync(true), DUE_ACCOUNT),
  markSyncing: sqlStatement(
    'accounts.mark-syncing',
    `UPDATE accounts SET sync_status = 'SYNCING', updated_at = now()
        WHERE id = $1::uuid AND merchant_id = $2::uuid AND sync_status <> 'STOPPED'`,
  ),
  markSyncSucceeded: sqlStatement(
    'accounts.mark-sync-succeeded',
    // A stopped account (its consent ended while the run finished) stays stopped, undue, saying why.
    `UPDATE accounts SET
          sync_status = CASE WHEN sync_status = 'STOPPED' THEN sync_status ELSE 'SYNCED' END,
          last_synced_at = $3, sync_failing_since = NULL,
          last_sync_error = CASE WHEN sync_status = 'STOPPED' THEN last_sync_error END,
          next_sync_at = CASE WHEN sync_status = 'STOPPED' THEN NULL ELSE $4::timestamptz END,
          updated_at = now()
        WHERE id = $1::uuid AND merchant_id = $2::uuid`,
  ),
  /*
   * Retried after as long again as the account has been failing (from its first failed attempt since its
   * last success), between $5 and $6 seconds, give or take a tenth ($7): minutes at first, doubling, and
   * never later than the scheduled interval. A stopped account keeps its own reason (its consent's).
   */
  markSyncFailed: sqlStatement<{ nextSyncAt: Date | null }>(
    'accounts.mark-sync-failed',
    `UPDATE accounts SET
          sync_status = CASE WHEN sync_status = 'STOPPED' THEN sync_status ELSE 'FAILED' END,
          last_sync_error = CASE WHEN sync_status = 'STOPPED' THEN COALESCE(last_sync_error, $3) ELSE $3 END,
          sync_failing_since = COALESCE(sync_failing_since, $4::timestamptz),
          next_sync_at = CASE WHEN sync_status = 'STOPPED' THEN NULL
            ELSE $4::timestamptz + make_interval(secs => $7::double precision * LEAST($6::double precision,
              GREATEST($5::double precision,
                extract(epoch FROM $4::timestamptz - COALESCE(sync_failing_since, $4::timestamptz))))) END,
          updated_at = now()
        WHERE id = $1::uuid AND merchant_id = $2::uuid
        RETURNING next_sync_at AS "nextSyncAt"`,
    { nextSyncAt: 'Date' },
  ),
  /** An attempt failed and the queue tries again: the account says so while its run goes on. */
  noteAttemptFailed: sqlStatement(
    'accounts.note-attempt-failed',
    `UPDATE accounts SET last_sync_error = $3, sync_failing_since = COALESCE(sync_failing_since, now()),
          updated_at = now()
        WHERE id = $1::uuid AND merchant_id = $2::uuid AND sync_status = 'SYNCING'`,
  ),
  idsOfConsent: sqlStatement<{ id: string }>(
    'accounts.ids-of-consent',
    `SELECT id FROM accounts WHERE merchant_id = $1::uuid AND consent_id = $2::uuid
        AND sync_status <> 'STOPPED' AND closed_at IS NULL ORDER BY id`,
    { id: 'string' },
  ),
  closeUnlisted: sqlStatement<{ id: string }>(
    'accounts.close-unlisted',
    `UPDATE accounts SET closed_at = now(), sync_status = 'STOPPED', next_sync_at = NULL,
          last_sync_error = 'The bank no longer lists this account under the consent; its data is kept.',
          updated_at = now()
        WHERE id IN (SELECT id FROM accounts WHERE merchant_id = $1::uuid AND consent_id = $2::uuid
            AND closed_at IS NULL AND NOT (upstream_account_id = ANY($3::text[])) ORDER BY id FOR NO KEY UPDATE)
          AND consent_id = $2::uuid AND closed_at IS NULL AND NOT (upstream_account_id = ANY($3::text[]))
        RETURNING id`,
    { id: 'string' },
  ),
  reopenListed: sqlStatement(
    'accounts.reopen-listed',
    `UPDATE accounts SET closed_at = NULL, sync_status = 'PENDING', next_sync_at = now(),
          last_sync_error = NULL, updated_at = now()
        WHERE id IN (SELECT id FROM accounts WHERE merchant_id = $1::uuid AND consent_id = $2::uuid
            AND closed_at IS NOT NULL AND upstream_account_id = ANY($3::text[]) ORDER BY id FOR NO KEY UPDATE)
          AND consent_id = $2::uuid AND closed_at IS NOT NULL AND upstream_account_id = ANY($3::text[])`,
  ),
  upstreamIdsOfConsent: sqlStatement<{ upstreamAccountId: string }>(
    'accounts.upstream-ids-of-consent',
    `SELECT upstream_account_id AS "upstreamAccountId" FROM accounts
        WHERE merchant_id = $1::uuid AND consent_id = $2::uuid`,
    { upstreamAccountId: 'string' },
  ),
  /**
   * In the expiry scan's transaction, after its batch of consents expired: each consent's accounts, of
   * that consent's merchant, stopped.
   */
  stopExpired: sqlStatement(
    'accounts.stop-expired',
    `UPDATE accounts SET sync_status = 'STOPPED', next_sync_at = NULL, updated_at = $3::timestamptz,
          last_sync_error = ${stoppedByConsent("'EXPIRED'")}
        WHERE id IN (
            SELECT a.id FROM accounts a
              JOIN unnest($1::uuid[], $2::uuid[]) AS e(consent_id, merchant_id)
                ON e.consent_id = a.consent_id AND e.merchant_id = a.merchant_id
            ORDER BY a.id FOR NO KEY UPDATE OF a)
          AND consent_id = ANY($1::uuid[])`,
  ),
  /** In the consent state owner's Prisma transaction. */
  resumeConsent: sqlTemplate(
    'accounts.resume-consent',
    (
      merchantId: string,
      consentId: string,
      now: Date,
    ) => Prisma.sql`UPDATE accounts SET sync_status = 'PENDING', next_sync_at = ${now},
            last_sync_error = NULL, sync_failing_since = NULL, updated_at = ${now}
          WHERE id IN (SELECT id FROM accounts WHERE merchant_id = ${merchantId}::uuid
              AND consent_id = ${consentId}::uuid ORDER BY id FOR NO KEY UPDATE)
            AND consent_id = ${consentId}::uuid AND sync_status <> 'SYNCING' AND closed_at IS NULL`,
  ),
  /** In the consent state owner's Prisma transaction. */
  stopConsent: sqlTemplate(
    'accounts.stop-consent',
    (
      merchantId: string,
      consentId: string,
    ) => Prisma.sql`UPDATE accounts SET sync_status = 'STOPPED', next_sync_at = NULL, updated_at = now(),
        last_sync_error = ${Prisma.raw(stoppedByConsent('(SELECT status::text FROM consents WHERE id = accounts.consent_id)'))}
      WHERE id IN (SELECT id FROM accounts WHERE merchant_id = ${merchantId}::uuid
          AND consent_id = ${consentId}::uuid ORDER BY id FOR NO KEY UPDATE)
        AND consent_id = ${consentId}::uuid`,
  ),
};

/**
 * The owner of an account's sync state (sync_status, next_sync_at, last_synced_at, last_sync_error and
 * closed_at): the sync's reads of it, its marks as a run starts and ends, the accounts closed and reopened
 * as the bank lists them, and the consent's accounts made due or stopped as the consent state owner
 * authorises or ends it (in that owner's transaction, or in the expiry scan's for a batch of expired
 * consents). One write sets these columns as a part of a larger statement instead: a placement moving an
 * account to another consent (AccountPlacementRepository).
 */
@Injectable()
export class AccountSyncStateRepository {
  constructor(
    private readonly database: DatabasePool,
    private readonly cache: ReadCache,
  ) {}

  /** The account and its consent, for a sync (the token stays sealed until the sync opens it). */
  async syncTarget(merchantId: MerchantId, accountId: string): Promise<SyncTarget | null> {
    if (!isUuid(accountId) || !isUuid(merchantId)) return null;
    const [r] = await this.database.rows({
      ...ACCOUNT_SYNC_STATE_SQL.syncTarget,
      values: [accountId, merchantId],
    });
    if (!r) return null;
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
            ...ACCOUNT_SYNC_STATE_SQL.dueForSyncAfter,
            values: [now, limit, after.nextSyncAt, after.accountId],
          }
        : { ...ACCOUNT_SYNC_STATE_SQL.dueForSync, values: [now, limit] },
    );
  }

  /** A sync started: shown as `syncing` unless the consent stopped it meanwhile. */
  async markSyncing(merchantId: MerchantId, accountId: string): Promise<void> {
    await this.database.rows({
      ...ACCOUNT_SYNC_STATE_SQL.markSyncing,
      values: [accountId, merchantId],
    });
    this.cache.invalidate(merchantId);
  }

  /** A sync succeeded, in the sync's final transaction: synced at `at`, due again at `nextSyncAt`. */
  async markSyncSucceeded(
    merchantId: MerchantId,
    db: pg.PoolClient,
    accountId: string,
    outcome: { at: Date; nextSyncAt: Date },
  ): Promise<void> {
    await db.query({
      ...ACCOUNT_SYNC_STATE_SQL.markSyncSucceeded,
      values: [accountId, merchantId, outcome.at, outcome.nextSyncAt],
    });
  }

  /**
   * A sync failed, in its final transaction: the error shown, and due again after as long as the account
   * has been failing, within `retry` (seconds), `jitter` its factor. Answers when (null: stopped).
   */
  async markSyncFailed(
    merchantId: MerchantId,
    db: pg.PoolClient,
    accountId: string,
    failure: { error: string; at: Date; retry: { minSeconds: number; maxSeconds: number }; jitter: number },
  ): Promise<Date | null> {
    const { rows } = await queryOn(db, {
      ...ACCOUNT_SYNC_STATE_SQL.markSyncFailed,
      values: [
        accountId,
        merchantId,
        failure.error.slice(0, 1000),
        failure.at,
        failure.retry.minSeconds,
        failure.retry.maxSeconds,
        failure.jitter,
      ],
    });
    return rows[0]?.nextSyncAt ?? null;
  }

  /** An attempt of a running sync failed and will be tried again: the account shows the error now. */
  async noteAttemptFailed(merchantId: MerchantId, accountId: string, error: string): Promise<void> {
    await this.database.rows({
      ...ACCOUNT_SYNC_STATE_SQL.noteAttemptFailed,
      values: [accountId, merchantId, error.slice(0, 1000)],
    });
    this.cache.invalidate(merchantId);
  }

  /** The ids of a consent's accounts that may sync (not stopped). */
  async idsOfConsent(merchantId: MerchantId, consentId: string): Promise<string[]> {
    const rows = await this.database.rows({
      ...ACCOUNT_SYNC_STATE_SQL.idsOfConsent,
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
    merchantId: MerchantId,
    consentId: string,
    listedUpstreamIds: readonly string[],
  ): Promise<string[]> {
    const rows = await this.database.rows({
      ...ACCOUNT_SYNC_STATE_SQL.closeUnlisted,
      values: [merchantId, consentId, listedUpstreamIds],
    });
    this.cache.invalidate(merchantId);
    return rows.map((r) => r.id);
  }

  /** Closed accounts the upstream lists again are reopened, and due at once (rows locked in id order). */
  async reopenListed(
    merchantId: MerchantId,
    consentId: string,
    listedUpstreamIds: readonly string[],
  ): Promise<void> {
    await this.database.rows({
      ...ACCOUNT_SYNC_STATE_SQL.reopenListed,
      values: [merchantId, consentId, listedUpstreamIds],
    });
    this.cache.invalidate(merchantId);
  }

  /** The upstream ids of every account of a consent, closed ones included. */
  async upstreamIdsOfConsent(merchantId: MerchantId, consentId: string): Promise<string[]> {
    const rows = await this.database.rows({
      ...ACCOUNT_SYNC_STATE_SQL.upstreamIdsOfConsent,
      values: [merchantId, consentId],
    });
    return rows.map((r) => r.upstreamAccountId);
  }

  /**
   * In the consent's authorisation: its accounts due for a sync now. A closed account (the bank no longer
   * lists it) stays stopped, and one being synced at this moment is left to finish. Rows locked in id
   * order, as the placement of a reconnected bank's accounts locks them
   * (AccountPlacementRepository.upsertFromUpstream), which may be moving some of them to another consent
   * right now. The caller invalidates the read cache after it commits.
   */
  async resumeConsent(merchantId: MerchantId, tx: Tx, consentId: string, now: Date): Promise<void> {
    await tx.$executeRaw(ACCOUNT_SYNC_STATE_SQL.resumeConsent(merchantId, consentId, now));
  }

  /**
   * In the expiry scan's transaction, once its batch of consents expired: their accounts stop syncing.
   * A batch spans merchants, each consent named with its own (as the expired rows carry it). Rows locked
   * in id order, like every writer of a set of accounts (a placement may be moving some of them to another
   * consent right now). Read caches learn of it from the database's notification.
   */
  async stopExpiredConsents(
    db: pg.PoolClient,
    consents: readonly { merchantId: string; consentId: string }[],
    now: Date,
  ): Promise<void> {
    if (consents.length === 0) return;
    await queryOn(db, {
      ...ACCOUNT_SYNC_STATE_SQL.stopExpired,
      values: [consents.map((c) => c.consentId), consents.map((c) => c.merchantId), now],
    });
  }

  /**
   * In the consent's end (revoked, gone): its accounts stop syncing. Rows locked in id order, like every
   * writer of a set of accounts. The caller invalidates the read cache after it commits.
   */
  async stopConsent(merchantId: MerchantId, tx: Tx, consentId: string): Promise<void> {
    await tx.$executeRaw(ACCOUNT_SYNC_STATE_SQL.stopConsent(merchantId, consentId));
  }
}
