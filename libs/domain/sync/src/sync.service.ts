import { Injectable } from '@nestjs/common';
import { type TenantCaller, tenantOf } from '#libs/context';
import type { ReadSource } from '#libs/database';
import { AccountRepository, allowanceView, storedAllowance } from '#libs/domain/accounts';
import { ConsentRepository, transactionsNotCovered } from '#libs/domain/consents';
import { servedPageJson } from '#libs/domain/financial-data';
import {
  type StoredSyncRun,
  SyncRequestsService,
  SyncRunRepository,
  type SyncRunTrigger,
  syncRunTrigger,
  USER_PRESENT_MS,
} from '#libs/domain/sync-runs';
import { dailyLimitReached } from '#libs/domain/upstream-failures';
import { DomainError, ErrorCode, invalidRequest, reconnectHint } from '#libs/errors';
import { isUuid } from '#libs/ids';
import { type StoredPage, StoredPageCache } from './stored-page.cache.js';
import { TransactionRepository } from './transaction.repository.js';
import type { AccountTransactionsState } from './transaction.sql.js';

export interface SyncRunView {
  id: string;
  accountId: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  trigger: SyncRunTrigger;
  window: { from: string | null; before: string | null };
  progress: {
    pages: number;
    fetched: number;
    inserted: number;
    updated: number;
    unchanged: number;
    removed: number;
  };
  queuedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  attempts: number;
  nextAttemptAt: string | null;
  error: { code: string; message: string | null; upstream: unknown } | null;
}

export interface TransactionsPageQuery {
  from?: Date;
  before?: Date;
  status?: string;
  sort: 'date' | '-date';
  limit: number;
  cursor?: string;
}

const accountNotFound = () => new DomainError(ErrorCode.NOT_FOUND, 'Account not found.');
const badCursor = () =>
  invalidRequest([{ field: 'cursor', issue: 'must be a cursor from meta.nextCursor of the same list' }]);

/** A position in an account's transactions: the date and id of the last record of a page. */
function encodePosition(sort: string, date: string, id: string): string {
  return Buffer.from(`${sort}|${date}|${id}`, 'utf8').toString('base64url');
}

function decodePosition(cursor: string, sort: string): { date: string; id: string } {
  const [cursorSort, date, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (rest.length > 0 || cursorSort !== sort || !id || !isUuid(id) || !date || Number.isNaN(Date.parse(date)))
    throw badCursor();
  return { date, id };
}

export function toSyncRunView(r: StoredSyncRun): SyncRunView {
  return {
    id: r.id,
    accountId: r.accountId,
    status: r.status.toLowerCase() as SyncRunView['status'],
    trigger: syncRunTrigger(r),
    window: { from: r.windowFrom, before: r.windowBefore },
    progress: {
      pages: r.pages,
      fetched: r.fetched,
      inserted: r.inserted,
      updated: r.updated,
      unchanged: r.unchanged,
      removed: r.removed,
    },
    queuedAt: r.queuedAt,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    attempts: r.attempts,
    nextAttemptAt: r.nextAttemptAt,
    error: r.errorCode
      ? { code: r.errorCode, message: r.errorMessage, upstream: r.errorDetails ?? null }
      : null,
  };
}

/** The merchant API's side of sync: ask for one, watch it, and read what it stored. */
@Injectable()
export class SyncService {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly runs: SyncRunRepository,
    private readonly requests: SyncRequestsService,
    private readonly transactions: TransactionRepository,
    private readonly pages: StoredPageCache,
    private readonly consents: ConsentRepository,
  ) {}

  /** The account's active run (a new one when none is queued or running): its id. */
  async requestSync(
    caller: TenantCaller,
    accountId: string,
    psu: { ipAddress?: string } = {},
  ): Promise<{ syncId: string }> {
    const account = await this.accounts.findOne(tenantOf(caller), accountId, caller.userId);
    if (!account) throw accountNotFound();
    if (account.closedAt !== null) {
      // Closed under a consent that may well be authorised still: a new consent would not bring it back.
      throw new DomainError(
        ErrorCode.CONFLICT,
        'The bank no longer lists this account under its consent, so it is not synced; its data is kept. ' +
          'It is synced again once the bank lists it again (the next sync of another account of the consent checks).',
      );
    }
    const consent = await this.consents.findOne(tenantOf(caller), account.consentId);
    const notCovered = consent && transactionsNotCovered(consent.featureScope);
    if (notCovered) throw new DomainError(ErrorCode.CONFLICT, notCovered);
    if (account.syncStatus === 'STOPPED') {
      throw new DomainError(
        ErrorCode.CONSENT_NOT_AUTHORISED,
        `The account’s consent is no longer authorised; ${reconnectHint(account.userId, account.institutionId)}`,
      );
    }
    // Without the user, the run would take one of the day's reads: refused now when none is left.
    const allowance = allowanceView(storedAllowance(account));
    if (psu.ipAddress === undefined && allowance.remaining === 0) {
      throw dailyLimitReached(Date.parse(allowance.resetsAt) - Date.now());
    }
    const attended =
      psu.ipAddress === undefined
        ? undefined
        : { ipAddress: psu.ipAddress, presentUntil: Date.now() + USER_PRESENT_MS };
    const [run] = await this.requests.request(
      [{ merchantId: caller.merchantId, accountId }],
      'MANUAL',
      attended,
    );
    return { syncId: run.id };
  }

  async getRun(caller: TenantCaller, runId: string): Promise<SyncRunView> {
    const run = await this.runs.findForCaller(tenantOf(caller), runId, caller.userId);
    if (!run) throw new DomainError(ErrorCode.NOT_FOUND, 'Sync not found.');
    return toSyncRunView(run);
  }

  /** The account's runs, newest first, keyset-paged by run id; 404 for an account the caller cannot see. */
  async listRuns(
    caller: TenantCaller,
    accountId: string,
    limit: number,
    beforeId?: string,
  ): Promise<{ runs: SyncRunView[]; nextBeforeId: string | null }> {
    const page = await this.runs.pageForAccount(tenantOf(caller), accountId, limit, beforeId, caller.userId);
    if (!page) throw new DomainError(ErrorCode.NOT_FOUND, 'Account not found.');
    return {
      runs: page.runs.map(toSyncRunView),
      nextBeforeId: page.more ? (page.runs.at(-1)?.id ?? null) : null,
    };
  }

  /**
   * A page of the account's stored transactions. The account's transactions version is read first (it
   * also proves the caller may read the account): a page this process served at that version is served
   * again as it was, since no sync has changed anything since. Version and page come from one server (a
   * replica behind the primary would otherwise answer an older page under a newer version).
   */
  async listTransactions(
    caller: TenantCaller,
    accountId: string,
    query: TransactionsPageQuery,
  ): Promise<
    StoredPage &
      Pick<AccountTransactionsState, 'complete' | 'syncStatus' | 'syncError'> & {
        /** Where the account's state was read: an answer made from the replica's is not to be kept. */
        source: ReadSource;
      }
  > {
    const { state, source } = await this.transactions.stateFor(tenantOf(caller), accountId, caller.userId);
    if (state === null) throw accountNotFound();
    const { version } = state;
    const status = {
      complete: state.complete,
      syncStatus: state.syncStatus,
      syncError: state.syncError,
      source,
    };
    const after = query.cursor !== undefined ? decodePosition(query.cursor, query.sort) : undefined;
    const key = JSON.stringify([
      accountId,
      version,
      query.sort,
      query.limit,
      query.status ?? null,
      query.from?.getTime() ?? null,
      query.before?.getTime() ?? null,
      query.cursor ?? null,
    ]);
    const cached = this.pages.get(key);
    if (cached) return { ...cached, ...status };
    const read = await this.transactions.page(
      tenantOf(caller),
      accountId,
      {
        from: query.from,
        before: query.before,
        status: query.status,
        ascending: query.sort === 'date',
        after,
        limit: query.limit,
      },
      source,
    );
    const stored = this.pages.keep(key, {
      recordsJson: servedPageJson(read.records ?? '', read.unmapped ?? []),
      count: read.count,
      nextCursor:
        read.more && read.lastDate !== null && read.lastId !== null
          ? encodePosition(query.sort, read.lastDate, read.lastId)
          : null,
    });
    return { ...stored, ...status };
  }
}
