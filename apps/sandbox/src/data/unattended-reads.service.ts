import { Injectable } from '@nestjs/common';
import {
  type ConsentRecord,
  InstitutionsCatalog,
  ResetRegistryService,
  SandboxClockService,
  type SandboxContext,
  SandboxError,
} from '../core/index.js';

const DAY_MS = 24 * 60 * 60 * 1000;
export const DAILY_LIMIT_MESSAGE = 'Daily request limit set by the Institution has been exceeded';

/** An account's unattended reads on the sandbox clock's day (UTC), against its institution's allowance. */
export interface UnattendedReads {
  accountId: string;
  day: string;
  count: number;
  /** Null: the institution sets no allowance (InstitutionQuirks.unattendedReadsPerDay). */
  limit: number | null;
  resetsAt: string;
}

/**
 * The bank's daily allowance of reads without the user present (PSD2's four a day, enforced by banks):
 * a read of an account's transactions that carries no `psu-ip-address` is unattended. A read is its first
 * page (no `offset`, or 0; a real-time read without a cursor); the pages that follow belong to it. Counted
 * per listed account and sandbox-clock day whether or not the institution sets an allowance (the control
 * API shows the count); past an allowance the read is refused with 429, the institution's message and a
 * Retry-After to the next day. In memory: a reset, a restart or the next day clears the counts.
 */
@Injectable()
export class UnattendedReadsService {
  private day = '';
  private counts = new Map<string, number>();

  constructor(
    private readonly clock: SandboxClockService,
    private readonly institutions: InstitutionsCatalog,
    resets: ResetRegistryService,
  ) {
    resets.register(() => {
      this.counts = new Map();
    });
  }

  /** Counts a read of the account's transactions, or refuses it past the institution's allowance. */
  admit(ctx: SandboxContext, consent: ConsentRecord, accountId: string, firstPage: boolean): void {
    if (!firstPage || ctx.psu.ipAddress !== undefined) return;
    const reads = this.of(accountId, consent.institutionId);
    if (reads.limit !== null && reads.count >= reads.limit) {
      const retryAfter = Math.max(1, Math.ceil((Date.parse(reads.resetsAt) - this.clock.nowMs()) / 1000));
      const institutionError = { errorMessage: DAILY_LIMIT_MESSAGE, httpStatusCode: 429 };
      throw new SandboxError(
        429,
        DAILY_LIMIT_MESSAGE,
        [
          {
            type: 'TOO_MANY_REQUESTS',
            code: 'TOO_MANY_REQUESTS',
            message: DAILY_LIMIT_MESSAGE,
            institutionError,
          },
        ],
        { source: 'INSTITUTION', institutionError, headers: { 'retry-after': String(retryAfter) } },
      );
    }
    this.counts.set(accountId, reads.count + 1);
  }

  /** Starts every account's count for the day again; answers how many accounts had one. */
  clear(): number {
    const counted = this.counts.size;
    this.counts = new Map();
    return counted;
  }

  /** The account's count today, its institution's allowance and when the count starts again. */
  of(accountId: string, institutionId: string): UnattendedReads {
    const nowMs = this.clock.nowMs();
    const day = new Date(nowMs).toISOString().slice(0, 10);
    if (day !== this.day) {
      this.day = day;
      this.counts = new Map();
    }
    return {
      accountId,
      day,
      count: this.counts.get(accountId) ?? 0,
      limit: this.institutions.quirksOf(institutionId).unattendedReadsPerDay,
      resetsAt: new Date(Date.parse(day) + DAY_MS).toISOString(),
    };
  }
}
