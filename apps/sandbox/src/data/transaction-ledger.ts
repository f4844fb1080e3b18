import type { BalanceSummary } from './balance-summary.js';
import type { AccountPlan } from './fixture-accounts.js';
import { dayTransactions, generatedTransactionId } from './fixture-generator.js';
import type { Window } from './paging.js';
import type { LedgerTotals, RecordChange } from './sandbox-account.js';
import {
  ADMIN_SEQ_BASE,
  DAY_MS,
  dayNumberOf,
  type SandboxTransaction,
  SEQ_PER_DAY,
} from './sandbox-records.js';

export const ALL_TIME: Window = { fromMs: -Infinity, beforeMs: Infinity };

/** Never written to: the shared empty state of a ledger without overlay. */
const EMPTY = new Map<never, never>();
const NONE: never[] = [];

const bySeqInTime = (x: SandboxTransaction, y: SandboxTransaction) => x.timeMs - y.timeMs || x.seq - y.seq;

const inWindow = (window: Window, timeMs: number) => timeMs >= window.fromMs && timeMs <= window.beforeMs;

/**
 * One account's transactions, as pages: the generated days of the window [startDay, endDay), computed
 * only where a page falls (a day's count is known without generating it), under a small overlay of the
 * control API's changes (records added or changed, and generated records hidden). Nothing per
 * transaction is held, so memory does not grow with the number of consents.
 *
 * Order is (time, seq) ascending; a booked record's balance is the account's booked balance after it.
 * Kept whole: counting, paging and balances all read the same days under the same overlay.
 */
export class TransactionLedger {
  /** Records the control API added, or generated ones it changed (under their generated seq). */
  // Shared empty collections until the control API first touches this account: thousands of ledgers are
  // cached, and almost none ever has an overlay.
  private extras: SandboxTransaction[] = NONE;
  private extrasById: ReadonlyMap<string, SandboxTransaction> = EMPTY;
  private extrasByDay: ReadonlyMap<number, SandboxTransaction[]> = EMPTY;
  private extraDays: number[] = NONE;
  /** Generated records hidden (deleted, or replaced by their changed copy): seq → generated amount. */
  private hidden: Map<number, number> = EMPTY;
  private hiddenByDay: Map<number, number> = EMPTY;
  nextAdminSeq = ADMIN_SEQ_BASE;

  constructor(
    private readonly accountId: string,
    private readonly plan: AccountPlan | undefined,
    private readonly startDay: number,
    private readonly endDay: number,
    private readonly summary: () => BalanceSummary,
  ) {}

  /** How many records fall in the window. */
  count(window: Window): number {
    let total = 0;
    for (const day of this.daysIn(window)) total += this.countOn(day, window);
    return total;
  }

  /**
   * One offset page: `sort=date` reads forward from the window's start, `-date` backward from its end.
   * Only the days the page covers are generated, plus at most two partly covered days to count them.
   */
  page(
    window: Window,
    sort: 'date' | '-date',
    offset: number,
    limit: number,
  ): { total: number; records: SandboxTransaction[] } {
    const days = this.daysIn(window);
    const counts = days.map((day) => this.countOn(day, window));
    const total = counts.reduce((a, b) => a + b, 0);
    const start = sort === 'date' ? offset : Math.max(0, total - offset - limit);
    const end = sort === 'date' ? Math.min(total, offset + limit) : total - offset;
    if (start >= end) return { total, records: [] };
    let first = 0;
    let beforeFirst = 0;
    while (beforeFirst + counts[first] <= start) beforeFirst += counts[first++];
    let last = first;
    for (let seen = beforeFirst + counts[first]; seen < end; seen += counts[++last]);
    const visible: SandboxTransaction[] = [];
    let balance = this.balanceBefore(days[first]);
    for (let i = first; i <= last; i += 1) {
      for (const record of this.dayRecords(days[i])) {
        balance = this.withBalance(record, balance);
        if (inWindow(window, record.timeMs)) visible.push(record);
      }
    }
    const records = visible.slice(start - beforeFirst, end - beforeFirst);
    return { total, records: sort === 'date' ? records : records.reverse() };
  }

  /** The booked balance after every booked record, and the sum of the pending ones. */
  balances(): { bookedMinor: number; pendingMinor: number } {
    let pendingMinor = 0;
    for (const extra of this.extras) if (extra.status === 'PENDING') pendingMinor += extra.amountMinor;
    return { bookedMinor: this.balanceBefore(Infinity), pendingMinor };
  }

  totals(): LedgerTotals {
    let count = this.extras.length - this.hidden.size;
    if (this.plan) for (let day = this.startDay; day < this.endDay; day += 1) count += this.plan.countOn(day);
    const oldest = this.page(ALL_TIME, 'date', 0, 1).records[0];
    const newest = this.page(ALL_TIME, '-date', 0, 1).records[0];
    return {
      count,
      ...this.balances(),
      oldestMs: oldest?.timeMs,
      newestMs: newest?.timeMs,
    };
  }

  /** The record with this id, with its balance; generated ones are found by their ids alone. */
  find(id: string): SandboxTransaction | undefined {
    const extra = this.extrasById.get(id);
    const day = extra ? dayNumberOf(extra.timeMs) : this.locateGenerated(id)?.day;
    if (day === undefined) return undefined;
    let balance = this.balanceBefore(day);
    for (const record of this.dayRecords(day)) {
      balance = this.withBalance(record, balance);
      if (record.id === id) return record;
    }
    return undefined;
  }

  has(id: string): boolean {
    return this.extrasById.has(id) || this.locateGenerated(id) !== undefined;
  }

  // ---- the overlay: each returns false when its target is not (or no longer) there

  add(record: SandboxTransaction): boolean {
    if (this.has(record.id)) return false;
    this.extras = [...this.extras, { ...record, balanceMinor: undefined }];
    this.nextAdminSeq = Math.max(this.nextAdminSeq, record.seq + 1);
    this.reindex();
    return true;
  }

  /** `seq` names a generated target without searching for its id (known when the change was made). */
  change(targetId: string, change: RecordChange, seq?: number): boolean {
    let record = this.extrasById.get(targetId);
    if (!record) {
      const generated = this.takeGenerated(targetId, seq);
      if (!generated) return false;
      record = generated;
      this.extras = [...this.extras, record];
    }
    record.id = change.id;
    if (change.status) record.status = change.status;
    if (change.amountMinor !== undefined) record.amountMinor = change.amountMinor;
    if (change.description !== undefined) record.description = change.description;
    if (change.reference !== undefined) record.reference = change.reference;
    if (change.timeMs !== undefined) record.timeMs = change.timeMs;
    this.reindex();
    return true;
  }

  remove(targetId: string, seq?: number): boolean {
    const extra = this.extrasById.get(targetId);
    if (extra) {
      this.extras = this.extras.filter((r) => r !== extra);
      this.reindex();
      return true;
    }
    return this.takeGenerated(targetId, seq) !== undefined;
  }

  /** The seq of a visible generated record, searched by id (newest days first): control-API calls only. */
  locateGenerated(id: string): { day: number; seq: number } | undefined {
    if (!this.plan) return undefined;
    for (let day = this.endDay - 1; day >= this.startDay; day -= 1) {
      for (let index = 0, count = this.plan.countOn(day); index < count; index += 1) {
        const seq = day * SEQ_PER_DAY + index;
        if (!this.hidden.has(seq) && generatedTransactionId(this.accountId, day, index) === id) {
          return { day, seq };
        }
      }
    }
    return undefined;
  }

  // ---- internals

  /** Hides a visible generated record and returns a copy of it. */
  private takeGenerated(id: string, seq?: number): SandboxTransaction | undefined {
    const at = seq === undefined ? this.locateGenerated(id) : { day: Math.floor(seq / SEQ_PER_DAY), seq };
    if (!this.plan || !at || at.day < this.startDay || at.day >= this.endDay || this.hidden.has(at.seq)) {
      return undefined;
    }
    const record = dayTransactions(this.plan, at.day).find((r) => r.seq === at.seq && r.id === id);
    if (!record) return undefined;
    if (this.hidden === EMPTY) {
      this.hidden = new Map<number, number>();
      this.hiddenByDay = new Map<number, number>();
    }
    this.hidden.set(at.seq, record.amountMinor);
    this.hiddenByDay.set(at.day, (this.hiddenByDay.get(at.day) ?? 0) + 1);
    return record;
  }

  private reindex(): void {
    this.extras.sort(bySeqInTime);
    this.extrasById = new Map(this.extras.map((r) => [r.id, r]));
    const byDay = new Map<number, SandboxTransaction[]>();
    for (const record of this.extras) {
      const day = dayNumberOf(record.timeMs);
      const list = byDay.get(day);
      if (list) list.push(record);
      else byDay.set(day, [record]);
    }
    this.extrasByDay = byDay;
    this.extraDays = [...byDay.keys()];
  }

  private withBalance(record: SandboxTransaction, balance: number): number {
    if (record.status !== 'BOOKED') {
      record.balanceMinor = undefined;
      return balance;
    }
    record.balanceMinor = balance + record.amountMinor;
    return record.balanceMinor;
  }

  /** The booked balance at the start of a day (Infinity: after everything). */
  private balanceBefore(day: number): number {
    let balance = 0;
    if (this.plan) {
      balance = this.summary().balanceBefore(this.plan, Math.min(Math.max(day, this.startDay), this.endDay));
      for (const [seq, amountMinor] of this.hidden) {
        if (Math.floor(seq / SEQ_PER_DAY) < day) balance -= amountMinor;
      }
    }
    const dayStartMs = day * DAY_MS;
    for (const extra of this.extras) {
      if (extra.timeMs >= dayStartMs) break;
      if (extra.status === 'BOOKED') balance += extra.amountMinor;
    }
    return balance;
  }

  private generates(day: number): boolean {
    return this.plan !== undefined && day >= this.startDay && day < this.endDay;
  }

  /** Days that may hold records in the window, ascending. */
  private daysIn(window: Window): number[] {
    const lo = Number.isFinite(window.fromMs) ? dayNumberOf(window.fromMs) : -Infinity;
    const hi = Number.isFinite(window.beforeMs) ? dayNumberOf(window.beforeMs) : Infinity;
    const days: number[] = [];
    const extraDays = this.extraDays.filter((d) => d >= lo && d <= hi && !this.generates(d));
    let e = 0;
    if (this.plan) {
      const genLo = Math.max(lo, this.startDay);
      const genHi = Math.min(hi, this.endDay - 1);
      while (e < extraDays.length && extraDays[e] < genLo) days.push(extraDays[e++]);
      for (let day = genLo; day <= genHi; day += 1) days.push(day);
    }
    while (e < extraDays.length) days.push(extraDays[e++]);
    return days;
  }

  private countOn(day: number, window: Window): number {
    const whole = window.fromMs <= day * DAY_MS && window.beforeMs >= (day + 1) * DAY_MS - 1;
    if (!whole) return this.dayRecords(day).filter((r) => inWindow(window, r.timeMs)).length;
    const generated = this.generates(day) ? this.plan!.countOn(day) - (this.hiddenByDay.get(day) ?? 0) : 0;
    return generated + (this.extrasByDay.get(day)?.length ?? 0);
  }

  /** Every visible record of a day, ascending, as fresh objects (balances are written into them). */
  private dayRecords(day: number): SandboxTransaction[] {
    let records: SandboxTransaction[] = [];
    if (this.generates(day) && this.plan!.countOn(day) > 0) {
      records = dayTransactions(this.plan!, day);
      if (this.hiddenByDay.has(day)) records = records.filter((r) => !this.hidden.has(r.seq));
    }
    const extras = this.extrasByDay.get(day);
    if (extras) {
      for (const extra of extras) records.push({ ...extra });
      records.sort(bySeqInTime);
    }
    return records;
  }
}
