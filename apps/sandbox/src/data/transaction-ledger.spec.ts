import { describe, expect, it } from 'vitest';
import { BalanceSummary } from './balance-summary.js';
import type { AccountPlan } from './fixture-accounts.js';
import { generateAccounts } from './fixture-generator.js';
import { Lru } from './lru.cache.js';
import { BALANCE_EPOCH_DAY, DAY_MS, HISTORY_DAYS, type SandboxTransaction } from './sandbox-records.js';
import { transactionJson } from './transaction-json.js';
import { ALL_TIME, TransactionLedger } from './transaction-ledger.js';
import { REAL_TIME, transactionWire, WITH_CATEGORISATION, WITH_MERCHANT } from './wire-format.js';

const END_DAY = Math.floor(Date.UTC(2026, 10, 22) / DAY_MS);
const START_DAY = END_DAY - HISTORY_DAYS;

function plansOf(seed: string): AccountPlan[] {
  return generateAccounts(seed, END_DAY * DAY_MS).flatMap((a) => (a.plan ? [a.plan] : []));
}

function ledgerOf(plan: AccountPlan, startDay = START_DAY, endDay = END_DAY): TransactionLedger {
  const summary = BalanceSummary.of(plan, startDay, endDay);
  return new TransactionLedger(plan.accountId, plan, startDay, endDay, () => summary);
}

/** Every record, ascending, by brute force: one page as large as the ledger. */
const everything = (ledger: TransactionLedger) =>
  ledger.page(ALL_TIME, 'date', 0, Number.MAX_SAFE_INTEGER).records;

function expectRunningBalances(records: SandboxTransaction[], bookedMinor: number) {
  const booked = records.filter((r) => r.status === 'BOOKED');
  for (let i = 1; i < booked.length; i += 1) {
    expect(booked[i].balanceMinor).toBe(booked[i - 1].balanceMinor! + booked[i].amountMinor);
  }
  expect(booked.at(-1)?.balanceMinor).toBe(bookedMinor);
  for (const r of records.filter((x) => x.status === 'PENDING')) expect(r.balanceMinor).toBeUndefined();
}

describe('sandbox fixtures: the amounts-only replay', () => {
  it('draws what the full generator draws, day for day', () => {
    for (const seed of ['app|aui:one|sandbox-redirect', 'app|aui:two|x', 'other|uuid:3|y']) {
      for (const plan of plansOf(seed)) {
        for (let day = BALANCE_EPOCH_DAY - 40; day < END_DAY + 40; day += 1) {
          const full = plan.day(day).map((e) => [e.index, e.timeMs, e.draft.amountMinor]);
          const lean = plan.leanDay(day).map((e) => [e.index, e.timeMs, e.amountMinor]);
          expect(lean).toEqual(full);
          const totals = new Float64Array(2);
          plan.dayTotals(day, totals);
          const amounts = lean.map(([, , amount]) => amount);
          expect([...totals]).toEqual([
            amounts.reduce((a, b) => a + b, 0),
            amounts.filter((a) => a < 0).reduce((a, b) => a + b, 0),
          ]);
        }
      }
    }
  });
});

describe('sandbox fixtures: balance summaries', () => {
  it('give the balance before any day from checkpoints as a full walk does', () => {
    const [current] = plansOf('app|aui:summary|bank');
    const summary = BalanceSummary.of(current, START_DAY, END_DAY);
    let running = 0;
    const sums = new Map<number, number>();
    for (let day = BALANCE_EPOCH_DAY; day <= END_DAY; day += 1) {
      sums.set(day, running);
      for (const e of current.leanDay(day)) running += e.amountMinor;
    }
    for (const day of [BALANCE_EPOCH_DAY, START_DAY, START_DAY + 1, START_DAY + 17, END_DAY - 3, END_DAY]) {
      expect(summary.balanceBefore(current, day) - summary.baseMinor).toBe(sums.get(day));
    }
  });
});

describe('sandbox fixtures: the transaction ledger', () => {
  it('holds 6,500 and 467 records whose pages are slices of the whole, balances running throughout', () => {
    const [current, savings] = plansOf('app|aui:ledger|bank');
    for (const [plan, expected] of [
      [current, 6500],
      [savings, 467],
    ] as const) {
      const ledger = ledgerOf(plan);
      const all = everything(ledger);
      expect(all).toHaveLength(expected);
      expect(ledger.totals()).toMatchObject({ count: expected, oldestMs: all[0].timeMs });
      expectRunningBalances(all, ledger.balances().bookedMinor);
      const window = { fromMs: all[40].timeMs + 1, beforeMs: all[expected - 30].timeMs - 1 };
      const inWindow = all.filter((r) => r.timeMs >= window.fromMs && r.timeMs <= window.beforeMs);
      expect(ledger.count(window)).toBe(inWindow.length);
      for (const [offset, limit] of [
        [0, 100],
        [37, 250],
        [inWindow.length - 5, 100],
        [inWindow.length, 10],
      ]) {
        const asc = ledger.page(window, 'date', offset, limit);
        expect(asc.total).toBe(inWindow.length);
        expect(asc.records).toEqual(inWindow.slice(offset, offset + limit));
        const desc = ledger.page(window, '-date', offset, limit).records;
        expect(desc).toEqual([...inWindow].reverse().slice(offset, offset + limit));
      }
    }
  });

  it('applies added, changed, moved and deleted records with balances and counts kept consistent', () => {
    const [current] = plansOf('app|aui:overlay|bank');
    const ledger = ledgerOf(current);
    const before = everything(ledger);
    const [a, b, c] = [before[100], before[2000], before[5000]];
    const extra = { ...a, id: 'added-1', seq: 2 ** 45, status: 'PENDING' as const, amountMinor: -1234 };
    expect(ledger.add({ ...extra, timeMs: a.timeMs + 1 })).toBe(true);
    expect(ledger.add({ ...extra, timeMs: a.timeMs + 1 })).toBe(false);
    expect(ledger.add({ ...extra, id: 'old', timeMs: (START_DAY - 10) * DAY_MS, status: 'BOOKED' })).toBe(
      true,
    );
    expect(ledger.change(b.id, { id: b.id, amountMinor: b.amountMinor - 500, timeMs: a.timeMs - 1 })).toBe(
      true,
    );
    expect(ledger.remove(c.id)).toBe(true);
    expect(ledger.remove(c.id)).toBe(false);
    expect(ledger.change('added-1', { id: 'booked-1', status: 'BOOKED' })).toBe(true);

    const after = everything(ledger);
    expect(after).toHaveLength(6500 + 2 - 1);
    expect(ledger.totals().count).toBe(after.length);
    expectRunningBalances(after, ledger.balances().bookedMinor);
    expect(after[0].id).toBe('old');
    const moved = after.findIndex((r) => r.id === b.id);
    expect(after[moved + 2].id).toBe('booked-1');
    expect(after.some((r) => r.id === c.id || r.id === 'added-1')).toBe(false);
    expect(ledger.find(b.id)).toEqual(after[moved]);
    expect(ledger.find(c.id)).toBeUndefined();
    // The sum moved by exactly the changes: -500 on b, the booked 'old' and 'booked-1', minus c.
    const beforeBooked = before.at(-1)!.balanceMinor!;
    expect(ledger.balances().bookedMinor).toBe(beforeBooked - 500 + extra.amountMinor * 2 - c.amountMinor);
    const page = ledger.page(ALL_TIME, '-date', 6000, 100).records;
    expect(page).toEqual([...after].reverse().slice(6000, 6100));
  });
});

describe('sandbox: the bounded caches', () => {
  it('keep the most recently used entries up to their capacity', () => {
    const cache = new Lru<string, number>(3);
    for (const [i, key] of ['a', 'b', 'c'].entries()) cache.set(key, i);
    expect(cache.get('a')).toBe(0);
    cache.set('d', 3);
    expect([cache.size, cache.get('b'), cache.get('a'), cache.get('d')]).toEqual([3, undefined, 0, 3]);
    expect(cache.getOrSet('e', () => 4)).toBe(4);
    expect(cache.get('c')).toBeUndefined();
    cache.deleteWhere((key) => key === 'a');
    expect(cache.size).toBe(2);
  });
});

describe('sandbox: transactions written straight to JSON', () => {
  it('are byte for byte what JSON.stringify makes of the wire object, in every variant', () => {
    const [current, savings] = plansOf('app|aui:json|bank');
    const ledger = ledgerOf(current);
    ledger.add({
      ...everything(ledger)[3],
      id: 'pending "quoted" \u00e9',
      seq: 2 ** 45,
      status: 'PENDING',
      reference: undefined as unknown as string,
      description: 'Caf\u00e9 \\ "x"',
      merchant: undefined,
      counterparty: undefined,
    });
    const account = { ...generateAccounts('app|aui:json|bank', END_DAY * DAY_MS)[0].fixture, ledger };
    const records = [...everything(ledger).slice(0, 400), ...everything(ledgerOf(savings)).slice(0, 100)];
    for (const variant of [0, WITH_CATEGORISATION, WITH_MERCHANT, 3, REAL_TIME]) {
      for (const tx of records) {
        expect(transactionJson(tx, account, JSON.stringify('bank-1'), variant)).toBe(
          JSON.stringify(transactionWire(tx, account, 'bank-1', variant)),
        );
      }
    }
  });
});
