import { Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import { bankHoldUntil, dailyLimitReached } from '#libs/domain/upstream-failures';
import { UpstreamError } from '#libs/upstream-client';
import { AccountSyncStateRepository } from './account-sync-state.repository.js';
import { allowanceView, UnattendedRead } from './unattended-read.js';
import { UnattendedReadsRepository } from './unattended-reads.repository.js';

/** A read refused: the allowance is spent (or the bank holds the account) until `resetsAt`. */
export interface AllowanceSpent {
  refused: true;
  resetsAt: Date;
}

/**
 * The bank's daily allowance of reads of an account without the user present (a sync, a live read without
 * `psu-ip-address`), counted in Postgres across every process: a read is taken before the bank is asked
 * and refused once the day's are taken. Reads with the user present are not counted, as the rules say.
 */
@Injectable()
export class UnattendedReadsService {
  constructor(
    private readonly reads: UnattendedReadsRepository,
    private readonly syncState: AccountSyncStateRepository,
  ) {}

  /** Today's next read, or when one is to be had again. */
  async take(
    merchantId: MerchantId,
    accountId: string,
    now = new Date(),
  ): Promise<UnattendedRead | AllowanceSpent> {
    const day = await this.reads.take(merchantId, accountId, now);
    if (day !== null) {
      return new UnattendedRead(this.reads, merchantId, accountId, day);
    }
    const standing = await this.reads.standing(merchantId, accountId);
    const resetsAt = standing ? Date.parse(allowanceView(standing, now.getTime()).resetsAt) : now.getTime();
    return { refused: true, resetsAt: new Date(resetsAt) };
  }

  /**
   * `call`, a read of the account without the user (a live read's first page), within the allowance: 429
   * DAILY_LIMIT_REACHED with its reset when none is left, and the read given back when it fails uncounted.
   */
  async read<T>(merchantId: MerchantId, accountId: string, call: () => Promise<T>): Promise<T> {
    const read = await this.take(merchantId, accountId);
    if ('refused' in read) throw dailyLimitReached(read.resetsAt.getTime() - Date.now());
    let answer: T;
    try {
      answer = await call();
      read.answered();
    } catch (error) {
      await read.failed(error);
      // The bank's own refusal for its allowance (its count may differ from ours) holds the account until
      // its Retry-After: syncs wait and reads without the user are refused until then.
      if (error instanceof UpstreamError && error.kind === 'DAILY_LIMIT') {
        await this.syncState.holdForDailyLimit(merchantId, accountId, bankHoldUntil(error.retryAfterMs));
      }
      throw error;
    }
    // Counted: the schedule's next read moves past it (past the day's last, the next day's).
    await this.syncState.deferToAllowance(merchantId, accountId);
    return answer;
  }
}
