import { Injectable } from '@nestjs/common';
import { assertActsFor, type TenantCaller, tenantOf } from '#libs/context';
import { AccountRepository } from '#libs/domain/accounts';
import {
  type ServedTransaction,
  servedTransaction,
  type StoredTransaction,
} from '#libs/domain/financial-data';
import { DomainError, ErrorCode, invalidRequest } from '#libs/errors';
import { type FeedPosition, TransactionChangeRepository } from './transaction-change.repository.js';

/** A page of a user's transactions change feed: apply it to a copy, then ask again from `next`. */
export interface TransactionChangesPage {
  /** Records new since the cursor (or first seen), each as the stored list serves it. */
  added: { accountId: string; transaction: ServedTransaction }[];
  /** Records the copy holds that changed since the cursor. */
  modified: { accountId: string; transaction: ServedTransaction }[];
  /** Records the bank no longer lists (a pending record booked under a new id, a deletion). */
  removed: { accountId: string; id: string }[];
  /** Where the next page starts: the last change of this page, or the position asked from when none. */
  next: FeedPosition;
  hasMore: boolean;
}

const userNotFound = () => new DomainError(ErrorCode.NOT_FOUND, 'User not found.');

/**
 * A user's transactions as changes since a cursor (Plaid's `/transactions/sync`): every account of the
 * user, or one. The feed keeps each transaction once, at its newest change, so a page lists a record
 * changed twice since the cursor once, as it is now.
 */
@Injectable()
export class TransactionChangesService {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly changes: TransactionChangeRepository,
  ) {}

  /** `after`: the cursor's position (absent: from the start, every stored record as added). */
  async page(
    caller: TenantCaller,
    userId: string,
    query: { after?: FeedPosition; limit: number; accountId?: string },
  ): Promise<TransactionChangesPage> {
    assertActsFor(caller, userId);
    if (query.accountId !== undefined) {
      const account = await this.accounts.findOne(tenantOf(caller), query.accountId, userId);
      if (!account) throw new DomainError(ErrorCode.NOT_FOUND, 'Account not found.');
    } else if (!(await this.accounts.listForUser(tenantOf(caller), userId, 1))) {
      throw userNotFound();
    }
    const after = query.after ?? { seq: 0n };
    const { rows, head } = await this.changes.pageAndHead(
      tenantOf(caller),
      userId,
      after,
      query.limit + 1,
      query.accountId,
    );
    if (query.after !== undefined && after.seq > head.last) {
      throw invalidRequest([{ field: 'cursor', issue: 'must be a cursor from nextCursor of this feed' }]);
    }
    if (query.after !== undefined && after.seq < head.prunedThrough) {
      throw new DomainError(
        ErrorCode.CURSOR_EXPIRED,
        'This cursor is older than the removals kept (EVENT_RETENTION_DAYS): changes may have been missed. ' +
          'Empty your copy and read the feed again without a cursor.',
      );
    }
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    const result: TransactionChangesPage = {
      added: [],
      modified: [],
      removed: [],
      next: last
        ? { seq: BigInt(last.seq), ...(last.batched ? { afterId: last.transactionId } : {}) }
        : after,
      hasMore: rows.length > query.limit,
    };
    for (const row of page) {
      if (row.removed) result.removed.push({ accountId: row.accountId, id: row.id });
      else if (row.raw === null) throw new Error(`transaction ${row.id} is in the feed but not stored`);
      else
        (row.added ? result.added : result.modified).push({
          accountId: row.accountId,
          // The feed row's `id` is the record's served id: the dedupe key where the upstream gave none.
          transaction: servedTransaction(JSON.parse(row.raw) as StoredTransaction, {
            key: row.id,
            currency: row.currency,
          }),
        });
    }
    return result;
  }
}
