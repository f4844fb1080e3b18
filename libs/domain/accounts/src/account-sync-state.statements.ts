import { Prisma, row, sqlStatement, sqlTemplate } from '#libs/database';
import { reconnectHint } from '#libs/errors';
import { nextReadSlot } from './unattended-reads.repository.js';

// The statements AccountSyncStateRepository runs, and the row a sync reads, apart from its methods.

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
    /** Its scopes: a consent without transactions in them is not synced. */
    featureScope: string[];
    tokenCiphertext: string | null;
    tokenKeyId: string | null;
    subApplicationId: string | null;
  };
}

const SYNC_TARGET = `SELECT a.id, a.merchant_id AS "merchantId", a.user_id AS "userId",
    a.upstream_account_id AS "upstreamAccountId", a.currency,
    c.id AS "consentId", c.status AS "consentStatus", c.institution_id AS "institutionId",
    c.expires_at AS "expiresAt", c.transactions_from AS "transactionsFrom",
    coalesce(c.feature_scope, '{}') AS "featureScope", c.token_ciphertext AS "tokenCiphertext", c.token_key_id AS "tokenKeyId",
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

const SYNC_TARGET_ROW = row({
  id: 'string',
  merchantId: 'string',
  userId: 'string',
  upstreamAccountId: 'string',
  currency: 'string?',
  consentId: 'string',
  consentStatus: 'string',
  institutionId: 'string',
  expiresAt: 'Date?',
  transactionsFrom: 'Date?',
  featureScope: 'string[]',
  tokenCiphertext: 'string?',
  tokenKeyId: 'string?',
  subApplicationId: 'string?',
});

const DUE_ACCOUNT = row({ accountId: 'string', merchantId: 'string', nextSyncAt: 'Date!' });

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
  syncTarget: sqlStatement('accounts.sync-target', SYNC_TARGET, SYNC_TARGET_ROW),
  dueForSync: sqlStatement('accounts.due-for-sync', dueForSync(false), DUE_ACCOUNT),
  dueForSyncAfter: sqlStatement('accounts.due-for-sync-after', dueForSync(true), DUE_ACCOUNT),
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
          last_synced_at = $3, sync_failing_since = NULL, daily_limit_until = NULL,
          last_sync_error = CASE WHEN sync_status = 'STOPPED' THEN last_sync_error END,
          next_sync_at = CASE WHEN sync_status = 'STOPPED' THEN NULL
            ELSE GREATEST($4::timestamptz, ${nextReadSlot('accounts', '$3::timestamptz')}) END,
          updated_at = now()
        WHERE id = $1::uuid AND merchant_id = $2::uuid`,
  ),
  /*
   * Retried after as long again as the account has been failing (from its first failed attempt since its
   * last success), between $5 and $6 seconds, give or take a tenth ($7): minutes at first, doubling, and
   * never later than the scheduled interval, nor before the day's allowance of reads without the user
   * lets the next one be taken (nextReadSlot). A stopped account keeps its own reason (its consent's).
   */
  markSyncFailed: sqlStatement(
    'accounts.mark-sync-failed',
    `UPDATE accounts SET
          sync_status = CASE WHEN sync_status = 'STOPPED' THEN sync_status ELSE 'FAILED' END,
          last_sync_error = CASE WHEN sync_status = 'STOPPED' THEN COALESCE(last_sync_error, $3) ELSE $3 END,
          sync_failing_since = COALESCE(sync_failing_since, $4::timestamptz),
          next_sync_at = CASE WHEN sync_status = 'STOPPED' THEN NULL
            ELSE GREATEST(${nextReadSlot('accounts', '$4::timestamptz')},
              $4::timestamptz + make_interval(secs => $7::double precision * LEAST($6::double precision,
              GREATEST($5::double precision,
                extract(epoch FROM $4::timestamptz - COALESCE(sync_failing_since, $4::timestamptz)))))) END,
          updated_at = now()
        WHERE id = $1::uuid AND merchant_id = $2::uuid
        RETURNING next_sync_at AS "nextSyncAt"`,
    { nextSyncAt: 'Date?' },
  ),
  /**
   * A run found the account cannot be synced for a reason no retry mends while its consent stays as it is
   * (the consent does not cover transactions): stopped, undue, saying why, until the consent is resumed.
   */
  markSyncStopped: sqlStatement(
    'accounts.mark-sync-stopped',
    `UPDATE accounts SET sync_status = 'STOPPED', next_sync_at = NULL, last_sync_error = $3,
          sync_failing_since = NULL, updated_at = now()
        WHERE id = $1::uuid AND merchant_id = $2::uuid`,
  ),
  /**
   * An attempt failed and the queue tries again at $4: the account says so while its run goes on, that
   * time its next try (one truth with the run's nextAttemptAt, not the schedule's).
   */
  noteAttemptFailed: sqlStatement(
    'accounts.note-attempt-failed',
    `UPDATE accounts SET last_sync_error = $3, sync_failing_since = COALESCE(sync_failing_since, now()),
          next_sync_at = $4::timestamptz, updated_at = now()
        WHERE id = $1::uuid AND merchant_id = $2::uuid AND sync_status = 'SYNCING'`,
  ),
  /**
   * The bank refused a read of the account for its daily allowance until $3: the account says so, and its
   * next try is then (the run waits for it in the queue).
   */
  holdForDailyLimit: sqlStatement(
    'accounts.hold-for-daily-limit',
    `UPDATE accounts SET daily_limit_until = $3::timestamptz,
          next_sync_at = CASE WHEN sync_status = 'STOPPED' THEN NULL ELSE $3::timestamptz END, updated_at = now()
        WHERE id = $1::uuid AND merchant_id = $2::uuid`,
  ),
  /** The account's allowance of reads without the user is spent until $3: its next try is then. */
  waitForAllowance: sqlStatement(
    'accounts.wait-for-allowance',
    `UPDATE accounts SET next_sync_at = CASE WHEN sync_status = 'STOPPED' THEN NULL ELSE $3::timestamptz END,
          updated_at = now()
        WHERE id = $1::uuid AND merchant_id = $2::uuid`,
  ),
  deferToAllowance: sqlStatement(
    'accounts.defer-to-allowance',
    `UPDATE accounts SET next_sync_at = ${nextReadSlot('accounts', '$3::timestamptz')}
        WHERE id = $1::uuid AND merchant_id = $2::uuid
          AND next_sync_at < ${nextReadSlot('accounts', '$3::timestamptz')}`,
  ),
  idsOfConsent: sqlStatement(
    'accounts.ids-of-consent',
    `SELECT id FROM accounts WHERE merchant_id = $1::uuid AND consent_id = $2::uuid
        AND sync_status <> 'STOPPED' AND closed_at IS NULL ORDER BY id`,
    { id: 'string' },
  ),
  closeUnlisted: sqlStatement(
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
  upstreamIdsOfConsent: sqlStatement(
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
      dueAt: Date,
    ) => Prisma.sql`UPDATE accounts SET sync_status = 'PENDING', next_sync_at = ${dueAt},
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
