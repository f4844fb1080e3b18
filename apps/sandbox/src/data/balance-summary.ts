import type { AccountPlan } from './fixture-accounts.js';
import { BALANCE_EPOCH_DAY, HISTORY_DAYS } from './sandbox-records.js';
import { SeededRandom } from './seeded-random.js';

/** Days between stored running sums: a balance then costs at most this many days' amounts. */
const CHECKPOINT_DAYS = 16;

/**
 * What an account's balances need from its whole history, in a few hundred bytes. A balance is the
 * account's base plus every generated amount since the balance epoch (signed: days before it subtract),
 * so the summary keeps the base and a running sum every CHECKPOINT_DAYS days, and any day's sum is a
 * checkpoint plus at most CHECKPOINT_DAYS - 1 days of amounts, recomputed from their seeds.
 */
export class BalanceSummary {
  private constructor(
    /** The first day the checkpoints count from. */
    private readonly firstDay: number,
    /** checkpoints[k]: the sum of the amounts of days [firstDay, firstDay + k * CHECKPOINT_DAYS). */
    private readonly checkpoints: Float64Array,
    /** The sum of days [firstDay, BALANCE_EPOCH_DAY). */
    private readonly atEpoch: number,
    /** The booked balance at the start of the epoch day. */
    readonly baseMinor: number,
  ) {}

  /**
   * Walks every day from the epoch (or the window's start, if earlier) to the window's end, or to the end
   * of the first HISTORY_DAYS after the epoch if later: those fix the base, high enough that the balance
   * never dips below a cushion there. About a millisecond per thousand days.
   */
  static of(plan: AccountPlan, windowStartDay: number, endDay: number): BalanceSummary {
    const firstDay = Math.min(BALANCE_EPOCH_DAY, windowStartDay);
    const lastDay = Math.max(endDay, BALANCE_EPOCH_DAY + HISTORY_DAYS);
    const checkpoints = new Float64Array(Math.ceil((lastDay - firstDay) / CHECKPOINT_DAYS) + 1);
    let running = 0;
    let atEpoch = 0;
    let lowestAfterEpoch = 0;
    for (let day = firstDay; day < lastDay; day += 1) {
      if ((day - firstDay) % CHECKPOINT_DAYS === 0) checkpoints[(day - firstDay) / CHECKPOINT_DAYS] = running;
      if (day === BALANCE_EPOCH_DAY) atEpoch = running;
      if (plan.countOn(day) === 0) continue;
      plan.dayTotals(day, totals);
      const inBaseSpan = day >= BALANCE_EPOCH_DAY && day < BALANCE_EPOCH_DAY + HISTORY_DAYS;
      // Only a day whose debits, all taken first, could go below the lowest yet needs its order.
      if (inBaseSpan && running - atEpoch + totals[1] < lowestAfterEpoch) {
        for (const { amountMinor } of plan.leanDay(day)) {
          running += amountMinor;
          if (running - atEpoch < lowestAfterEpoch) lowestAfterEpoch = running - atEpoch;
        }
      } else {
        running += totals[0];
      }
    }
    if ((lastDay - firstDay) % CHECKPOINT_DAYS === 0) {
      checkpoints[(lastDay - firstDay) / CHECKPOINT_DAYS] = running;
    }
    const baseMinor = -lowestAfterEpoch + new SeededRandom(plan.baseSeed).int(20_000, 150_000);
    return new BalanceSummary(firstDay, checkpoints, atEpoch, baseMinor);
  }

  /**
   * The booked balance at the start of `day`, from generated transactions alone. The plan is passed in,
   * not kept: a summary outlives its account set in the cache, and holding plans there held far more
   * memory than the summaries themselves.
   */
  balanceBefore(plan: AccountPlan, day: number): number {
    const k = Math.min(Math.floor((day - this.firstDay) / CHECKPOINT_DAYS), this.checkpoints.length - 1);
    let sum = this.checkpoints[k];
    for (let d = this.firstDay + k * CHECKPOINT_DAYS; d < day; d += 1) sum += daySum(plan, d);
    return this.baseMinor + sum - this.atEpoch;
  }
}

/** Scratch for dayTotals: [sum, debits]. The sandbox is one thread, and no caller keeps it. */
const totals = new Float64Array(2);

function daySum(plan: AccountPlan, day: number): number {
  if (plan.countOn(day) === 0) return 0;
  plan.dayTotals(day, totals);
  return totals[0];
}
