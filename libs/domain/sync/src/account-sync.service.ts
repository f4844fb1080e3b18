import { performance } from 'node:perf_hooks';
import { Inject, Injectable } from '@nestjs/common';
import type pg from 'pg';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { describeWork, tenantOfRecord } from '#libs/context';
import { DatabasePool, isUniqueViolation } from '#libs/database';
import {
  AccountPlacementRepository,
  AccountSyncStateRepository,
  type SyncTarget,
} from '#libs/domain/accounts';
import {
  consentGoneOnError,
  ConsentStateRepository,
  ConsentStatus,
  ConsentTokenVault,
} from '#libs/domain/consents';
import { RunSupersededError, SyncRunRepository, type SyncWindow } from '#libs/domain/sync-runs';
import { reauthoriseHint, reconnectHint } from '#libs/errors';
import { type AppLogger, LOGGER } from '#libs/observability';
import {
  type ConsentCallOptions,
  UPSTREAM_CLIENT,
  type UpstreamClient,
  UpstreamError,
} from '#libs/upstream-client';
import { SyncRateLimitedError, SyncStoppedError } from './sync.errors.js';
import { DEFAULT_RATE_LIMIT_WAIT_MS, failureOf, isPermanent, sideCall } from './sync-failures.js';
import { type SyncOutcome, SyncRunEndingService, type TenantRun } from './sync-run-ending.service.js';
import { TransactionRepository } from './transaction.repository.js';
import type { PageCounts } from './transaction.sql.js';
import { pageRows, type TransactionRow } from './transaction-records.js';

/** What the queue does if this attempt fails with a retryable error: nothing more, or try again. */
export interface AttemptPlan {
  finalAttempt: boolean;
  retryInMs: number;
}

/**
 * One sync run of one account: reads the run's window from the upstream page by page (fetching the next
 * page while writing this one), writes each page in one statement with the run's progress, then in one
 * final transaction removes what the window no longer holds, refreshes the balances, ends the run, marks
 * the account and records the merchant events. Any number of workers may run it: one active run per
 * account (a unique index), BullMQ's job lock, and a fencing token on the run (a worker whose job was taken
 * over writes nothing more) keep one sync of an account at a time; a run a dead worker left running restarts.
 */
@Injectable()
export class AccountSyncService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    private readonly database: DatabasePool,
    private readonly runs: SyncRunRepository,
    private readonly transactions: TransactionRepository,
    private readonly placement: AccountPlacementRepository,
    private readonly syncState: AccountSyncStateRepository,
    private readonly consentState: ConsentStateRepository,
    private readonly vault: ConsentTokenVault,
    private readonly ending: SyncRunEndingService,
  ) {}

  /**
   * `plan.finalAttempt`: when the queue will not try again, a retryable failure ends the run as failed;
   * otherwise the run and the account show the attempt's error, and when the next one starts.
   */
  async run(
    job: { merchantId: string; accountId: string; runId: string },
    plan: AttemptPlan,
  ): Promise<SyncOutcome> {
    const claimed = await this.runs.claim(job.runId);
    if (!claimed || claimed.merchantId !== job.merchantId || claimed.accountId !== job.accountId) {
      return 'already-ended';
    }
    const run: TenantRun = { ...claimed, merchantId: tenantOfRecord(job) };
    const target = await this.syncState.syncTarget(run.merchantId, run.accountId);
    if (!target) return 'already-ended';
    describeWork({ merchantId: run.merchantId, institutionId: target.consent.institutionId });
    const token = this.openToken(target);
    if (!token) {
      const { consent } = target;
      // Still AUTHORIZED here when the expiry passed before the scan marked it: it has ended all the same.
      const expired = consent.expiresAt !== null && consent.expiresAt.getTime() <= Date.now();
      const state =
        consent.status !== ConsentStatus.Authorised
          ? consent.status
          : expired
            ? 'past its expiry'
            : 'without a token';
      await this.ending.fail(run, target, {
        code: 'CONSENT_NOT_AUTHORISED',
        message:
          consent.status === ConsentStatus.AwaitingReauthorisation
            ? `The consent waits for the user's re-authorisation: ${reauthoriseHint(consent.id)}`
            : `The consent is ${state}, not usable: if it has ended (revoked, expired), ${reconnectHint(target.userId, consent.institutionId)}`,
      });
      throw new SyncStoppedError(`consent ${target.consent.id} is not usable`);
    }
    const options: ConsentCallOptions = {
      consent: token,
      institutionId: target.consent.institutionId,
      subApplication: target.consent.subApplicationId ?? undefined,
      requestId: `sync-${run.id}`,
    };
    try {
      // The consent's account list and the balances travel while the window is read; awaited at the end.
      const listAccounts = () => this.refreshAccounts(run, target, options);
      const readBalances = () => this.upstream.getAccountBalances(target.upstreamAccountId, options);
      const listing = listAccounts();
      listing.catch(() => undefined);
      const balances = readBalances();
      balances.catch(() => undefined);
      const { window, append } = await this.windowOf(run, target);
      await this.syncState.markSyncing(run.merchantId, run.accountId);
      const { seen, appendedAll } = await this.readWindow(run, target, window, append, options);
      if (!(await sideCall(listing, listAccounts))) {
        await this.ending.fail(run, target, {
          code: 'ACCOUNT_CLOSED',
          message: 'The bank no longer lists this account under the consent; its data is kept.',
        });
        throw new SyncStoppedError(`account ${target.id} is closed`);
      }
      const { data } = await sideCall(balances, readBalances);
      const removable = appendedAll ? null : seen;
      return await this.ending.succeed(run, target, window, removable, data.balances ?? []);
    } catch (error) {
      return this.onFailure(error, run, target, plan);
    }
  }

  /**
   * The consent's accounts as the upstream lists them now: new ones are added (due at once, for the next
   * dispatch), unlisted ones closed, relisted ones reopened. False when this run's own account is closed.
   * Sent alongside the window's first pages, so it adds no wait to a sync.
   */
  private async refreshAccounts(
    run: TenantRun,
    target: SyncTarget,
    options: ConsentCallOptions,
  ): Promise<boolean> {
    const { data: listed } = await this.upstream.getAccounts(options);
    const ids = listed.map((a) => a.id);
    await this.syncState.reopenListed(run.merchantId, target.consent.id, ids);
    // Only accounts new to us are stored here (their balances come with their first sync).
    const known = new Set(await this.syncState.upstreamIdsOfConsent(run.merchantId, target.consent.id));
    const added = listed.filter((a) => !known.has(a.id));
    if (added.length > 0) {
      await this.placement.upsertFromUpstream(
        run.merchantId,
        {
          userId: target.userId,
          consentId: target.consent.id,
          institutionId: target.consent.institutionId,
        },
        added,
      );
    }
    const closed = await this.syncState.closeUnlisted(run.merchantId, target.consent.id, ids);
    if (closed.length > 0)
      this.logger.info({ consentId: target.consent.id, closed }, 'sync: accounts closed');
    return ids.includes(target.upstreamAccountId);
  }

  private openToken(target: SyncTarget): string | null {
    const { consent } = target;
    if (consent.status !== ConsentStatus.Authorised) return null;
    if (consent.expiresAt && consent.expiresAt.getTime() <= Date.now()) return null;
    return this.vault.open(consent, consent.id);
  }

  /**
   * The first claim fixes the window: everything the consent allows on a first sync, else from the overlap
   * before the newest booked record (or the oldest pending one), to the run's start. A restart reuses it.
   * `append`: the first attempt of a run on an account with no rows appends its pages (see appendPage).
   */
  private async windowOf(
    run: TenantRun,
    target: SyncTarget,
  ): Promise<{ window: SyncWindow; append: boolean }> {
    if (run.windowBefore)
      return { window: { from: run.windowFrom, before: run.windowBefore }, append: false };
    const stored = await this.transactions.windowStart(
      run.merchantId,
      run.accountId,
      this.config.tuning.syncOverlapDays,
    );
    const allowed = target.consent.transactionsFrom;
    const incremental = stored.from;
    const from =
      incremental && allowed ? new Date(Math.max(+incremental, +allowed)) : (incremental ?? allowed);
    const window = { from, before: new Date() };
    await this.runs.setWindow(run, window);
    return { window, append: stored.empty && run.claim === 1 };
  }

  /**
   * Pages the window into the table; answers the dedupe key of every record the upstream returned, and
   * whether every page was appended (see storePage).
   */
  private async readWindow(
    run: TenantRun,
    target: SyncTarget,
    window: SyncWindow,
    append: boolean,
    options: ConsentCallOptions,
  ): Promise<{ seen: Set<string>; appendedAll: boolean }> {
    const pages = this.upstream.transactionPages(
      target.upstreamAccountId,
      {
        from: window.from?.toISOString(),
        before: window.before.toISOString(),
        sort: 'date',
        limit: this.config.tuning.syncPageSize,
      },
      options,
    );
    const seen = new Set<string>();
    const iterator = pages[Symbol.asyncIterator]();
    // Where the time goes, kept on the run's checkpoint: waiting for the upstream (its answer parsed
    // included; a page fetched ahead costs nothing here) and writing.
    const spent = { offset: 0, upstreamMs: 0, writeMs: 0 };
    for (let next = prefetch(iterator); ;) {
      let started = performance.now();
      const page = await next;
      spent.upstreamMs += performance.now() - started;
      if (page.done) break;
      // The next page travels while this one is written.
      next = prefetch(iterator);
      started = performance.now();
      const rows = pageRows(page.value.data, target.currency);
      spent.offset += page.value.data.length;
      const fetched = page.value.data.length;
      append = await this.storePage(run, rows, seen, append, async (db, counts) => {
        spent.writeMs += performance.now() - started;
        const checkpoint = {
          offset: spent.offset,
          upstreamMs: Math.round(spent.upstreamMs),
          writeMs: Math.round(spent.writeMs),
        };
        await this.runs.recordPage(db, run, { fetched, ...counts }, checkpoint);
      });
      for (const row of rows) seen.add(row.k);
    }
    return { seen, appendedAll: append };
  }

  /**
   * One page in one transaction with the run's progress (`record`): appended while `append` (see
   * appendPage), else upserted. A row there after all (a taken-over attempt's) makes the run upsert from
   * this page on: answers whether the next page may still be appended.
   */
  private async storePage(
    run: TenantRun,
    rows: TransactionRow[],
    seen: ReadonlySet<string>,
    append: boolean,
    record: (db: pg.PoolClient, counts: PageCounts) => Promise<void>,
  ): Promise<boolean> {
    const write = (db: pg.PoolClient, appending: boolean) =>
      appending
        ? this.transactions.appendPage(run.merchantId, db, run.accountId, rows, run.id, (k) => seen.has(k))
        : this.transactions.writePage(run.merchantId, db, run.accountId, rows, {
            id: run.id,
            // The first claim is the run's first attempt: nothing of this run can be stored yet.
            again: run.claim > 1,
          });
    const store = (appending: boolean) =>
      this.database.transaction(async (db) => record(db, await write(db, appending)));
    try {
      await store(append);
      return append;
    } catch (error) {
      if (!append || !isUniqueViolation(error)) throw error;
      await store(false);
      return false;
    }
  }

  private async onFailure(
    error: unknown,
    run: TenantRun,
    target: SyncTarget,
    plan: AttemptPlan,
  ): Promise<SyncOutcome> {
    if (error instanceof RunSupersededError) {
      this.logger.warn({ runId: run.id }, 'sync run taken over by another worker; this one stops');
      return 'already-ended';
    }
    if (error instanceof UpstreamError && error.kind === 'RATE_LIMITED') {
      throw new SyncRateLimitedError(error.retryAfterMs ?? DEFAULT_RATE_LIMIT_WAIT_MS);
    }
    const gone = error instanceof UpstreamError ? consentGoneOnError(error) : undefined;
    if (error instanceof UpstreamError && gone) {
      // Stops every account of the consent; the account then shows why its sync stopped.
      const marked = await this.consentState.markGone(run.merchantId, {
        consentId: target.consent.id,
        ...gone,
        now: new Date(),
        tokenUsed: target.consent.tokenCiphertext,
      });
      // The consent moved on meanwhile (re-authorised with a new token): the next attempt uses that one.
      if (!marked.applied && !plan.finalAttempt) throw error;
      await this.ending.fail(run, target, failureOf(error, 'CONSENT_EXPIRED'));
      throw new SyncStoppedError(`consent ${target.consent.id} is ${gone.status}`);
    }
    if (error instanceof SyncStoppedError) throw error;
    const permanent = isPermanent(error);
    if (!permanent && !plan.finalAttempt) {
      await this.ending.attemptFailed(run, target, failureOf(error, 'SYNC_FAILED'), plan.retryInMs);
      throw error;
    }
    await this.ending.fail(run, target, failureOf(error, 'SYNC_FAILED'));
    if (permanent) throw new SyncStoppedError(error instanceof Error ? error.message : String(error));
    throw error;
  }
}

/**
 * The iterator's next page, requested now. A page fetched ahead may fail while the current one is being
 * written, before anything awaits it: marked handled at once so Node does not report the rejection as
 * unhandled; the loop's `await` still receives it (or, when the run fails first, it goes with the run).
 */
function prefetch<T>(iterator: AsyncIterator<T>): Promise<IteratorResult<T>> {
  const next = iterator.next();
  next.catch(() => undefined);
  return next;
}
