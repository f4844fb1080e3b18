import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import type { MerchantId } from '#libs/context';
import { DatabasePool, type Prisma, queryOn, ReadCache } from '#libs/database';
import { ACCOUNT_SYNC_STATE_SQL, type SyncTarget } from './account-sync-state.statements.js';

type Tx = Prisma.TransactionClient;

/**
 * The owner of an account's sync state (sync_status, next_sync_at, last_synced_at, last_sync_error and
 * closed_at): the sync's reads of it, its marks as a run starts and ends, the accounts closed and reopened
 * as the bank lists them, and the consent's accounts made due or stopped as the consent state owner
 * authorises or ends it (in that owner's transaction, or in the expiry scan's for a batch of expired
 * consents). Two writes set these columns as a part of a larger statement instead: a placement moving an
 * account to another consent (AccountPlacementRepository), and a sync asked for, which shows on its
 * account as it is queued (SyncRunRepository.openRuns).
 */
@Injectable()
export class AccountSyncStateRepository {
  constructor(
    private readonly database: DatabasePool,
    private readonly cache: ReadCache,
  ) {}

  /** The account and its consent, for a sync (the token stays sealed until the sync opens it). */
  async syncTarget(merchantId: MerchantId, accountId: string): Promise<SyncTarget | null> {
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
        featureScope: r.featureScope,
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

  /**
   * A sync succeeded, in the sync's final transaction: synced at `at`, due again at `nextSyncAt` or once
   * the day's allowance of reads without the user lets the next one be taken, whichever is later.
   */
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

  /** A sync ended for a reason no retry mends, in its final transaction: stopped, showing `reason`. */
  async markSyncStopped(
    merchantId: MerchantId,
    db: pg.PoolClient,
    accountId: string,
    reason: string,
  ): Promise<void> {
    await db.query({ ...ACCOUNT_SYNC_STATE_SQL.markSyncStopped, values: [accountId, merchantId, reason] });
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

  /**
   * An attempt failed and the queue tries again at `nextAttemptAt`, in the transaction that records it on
   * the run: the account shows the error, and that time as its next try (its nextSyncAt), at once.
   */
  async noteAttemptFailed(
    merchantId: MerchantId,
    db: pg.PoolClient,
    accountId: string,
    failure: { error: string; nextAttemptAt: Date },
  ): Promise<void> {
    await db.query({
      ...ACCOUNT_SYNC_STATE_SQL.noteAttemptFailed,
      values: [accountId, merchantId, failure.error.slice(0, 1000), failure.nextAttemptAt],
    });
    this.cache.invalidate(merchantId);
  }

  /**
   * The bank's daily allowance of reads of the account without the user is spent until `until`; in `db`'s
   * transaction when given (a sync's attempt records its failure with it).
   */
  async holdForDailyLimit(
    merchantId: MerchantId,
    accountId: string,
    until: Date,
    db?: pg.PoolClient,
  ): Promise<void> {
    const statement = { ...ACCOUNT_SYNC_STATE_SQL.holdForDailyLimit, values: [accountId, merchantId, until] };
    await (db ? queryOn(db, statement) : this.database.rows(statement));
    this.cache.invalidate(merchantId);
  }

  /** The day's allowance of reads without the user is spent: the account's next try is at `at`. */
  async waitForAllowance(merchantId: MerchantId, accountId: string, at: Date): Promise<void> {
    await this.database.rows({
      ...ACCOUNT_SYNC_STATE_SQL.waitForAllowance,
      values: [accountId, merchantId, at],
    });
    this.cache.invalidate(merchantId);
  }

  /** A read outside the schedule took one of today's: its next sync no sooner than the allowance lets it. */
  async deferToAllowance(merchantId: MerchantId, accountId: string, at = new Date()): Promise<void> {
    await this.database.rows({
      ...ACCOUNT_SYNC_STATE_SQL.deferToAllowance,
      values: [accountId, merchantId, at],
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
   * In the consent's authorisation: its accounts due for a sync at `dueAt`. A closed account (the bank no longer
   * lists it) stays stopped, and one being synced at this moment is left to finish. Rows locked in id
   * order, as the placement of a reconnected bank's accounts locks them
   * (AccountPlacementRepository.upsertFromUpstream), which may be moving some of them to another consent
   * right now. The caller invalidates the read cache after it commits.
   */
  async resumeConsent(
    merchantId: MerchantId,
    tx: Tx,
    consentId: string,
    at: { now: Date; dueAt: Date },
  ): Promise<void> {
    await tx.$executeRaw(ACCOUNT_SYNC_STATE_SQL.resumeConsent(merchantId, consentId, at.now, at.dueAt));
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
