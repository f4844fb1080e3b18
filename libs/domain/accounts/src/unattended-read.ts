import type { MerchantId } from '#libs/context';
import { msToUtcMidnight } from '#libs/domain/upstream-failures';
import { UpstreamError } from '#libs/upstream-client';
import type { StoredAllowance, UnattendedReadsRepository } from './unattended-reads.repository.js';

/** An account's allowance of reads without the user as merchants see it (`sync.unattendedReads`). */
export interface AllowanceView {
  perDay: number;
  /** Taken today (UTC): syncs and live reads without `psu-ip-address` the bank may have counted. */
  used: number;
  /** Left today: 0 while the bank's own 429 holds the account. */
  remaining: number;
  /** When `remaining` is back to `perDay`: the next UTC midnight, or the end of the bank's hold. */
  resetsAt: string;
}

/** The allowance at `nowMs`. A kept answer read later may show a `resetsAt` past: all reads are back. */
export function allowanceView(stored: StoredAllowance, nowMs = Date.now()): AllowanceView {
  const today = new Date(nowMs).toISOString().slice(0, 10);
  const used = stored.day === today ? stored.reads : 0;
  const heldUntil = stored.dailyLimitUntil === null ? 0 : Date.parse(stored.dailyLimitUntil);
  const held = heldUntil > nowMs;
  return {
    perDay: stored.perDay,
    used,
    remaining: held ? 0 : Math.max(0, stored.perDay - used),
    resetsAt: new Date(held ? heldUntil : nowMs + msToUtcMidnight(nowMs)).toISOString(),
  };
}

/**
 * Whether the bank may have counted a read that failed. A bank counts the reads it serves: not one it
 * refused or failed (an error answer, 4xx or 5xx), nor one never sent (the breaker open). A read with an
 * attempt that got no answer (a dropped connection, a timeout) may have been served: kept, so the count
 * may run ahead of the bank's, never behind it.
 */
export function bankMayHaveCounted(error: unknown): boolean {
  if (!(error instanceof UpstreamError) || error.attemptsUnanswered > 0) return true;
  if (error.shape === 'circuitOpen') return false;
  return error.status === undefined || error.status < 400;
}

/** A read of the account without the user, taken from today's allowance before the bank is asked. */
export class UnattendedRead {
  private settled = false;

  constructor(
    private readonly reads: UnattendedReadsRepository,
    private readonly merchantId: MerchantId,
    private readonly accountId: string,
    private readonly day: string,
  ) {}

  /** The bank answered the read: it counted it. */
  answered(): void {
    this.settled = true;
  }

  /**
   * The read failed before the bank answered it: given back when the failure shows it was not counted.
   * The bank's own refusal for its allowance (its count may differ from ours) is the caller's to record
   * (the account held until the bank's Retry-After), with whatever else it writes of the failure.
   */
  async failed(error: unknown): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    if (!bankMayHaveCounted(error)) {
      await this.reads.giveBack(this.merchantId, this.accountId, this.day);
    }
  }
}
