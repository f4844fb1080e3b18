import { performance } from 'node:perf_hooks';
import { Inject, Injectable } from '@nestjs/common';
import type pg from 'pg';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { DatabasePool, isUniqueViolation } from '#libs/database';
import type { SyncTarget, UnattendedRead } from '#libs/domain/accounts';
import { SyncRunRepository, type SyncWindow } from '#libs/domain/sync-runs';
import { type ConsentCallOptions, UPSTREAM_CLIENT, type UpstreamClient } from '#libs/upstream-client';
import type { TenantRun } from './sync-run-ending.service.js';
import { TransactionRepository } from './transaction.repository.js';
import type { PageCounts } from './transaction.sql.js';
import { pageRows, type TransactionRow } from './transaction-records.js';

/**
 * A sync run's window, and its pages read from the upstream into the table (AccountSyncService's middle):
 * the next page fetched while this one is written, each page in one transaction with the run's progress.
 */
@Injectable()
export class SyncWindowService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    private readonly database: DatabasePool,
    private readonly runs: SyncRunRepository,
    private readonly transactions: TransactionRepository,
  ) {}

  /**
   * The first claim fixes the window: everything the consent allows on a first sync, else from the overlap
   * before the newest booked record (or the oldest pending one), to the run's start. A restart reuses it.
   * `append`: the first attempt of a run on an account with no rows appends its pages (see appendPage).
   * A first sync whose window starts from stored records is marked `reconnected` with it (the label says
   * what the window is).
   */
  async fix(run: TenantRun, target: SyncTarget): Promise<{ window: SyncWindow; append: boolean }> {
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
    await this.runs.setWindow(run, window, incremental !== null);
    return { window, append: stored.empty && run.claim === 1 };
  }

  /**
   * Pages the window into the table; answers the dedupe key of every record the upstream returned, and
   * whether every page was appended (see storePage). The first page answered is the read the bank counts
   * (`unattended`; null when the user is present); the pages after it belong to it.
   */
  async read(
    run: TenantRun,
    target: SyncTarget,
    window: SyncWindow,
    append: boolean,
    options: ConsentCallOptions,
    unattended: UnattendedRead | null,
  ): Promise<{ seen: Set<string>; appendedAll: boolean }> {
    const pages = this.upstream.data.transactionPages(
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
      unattended?.answered();
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
