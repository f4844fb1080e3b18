import { FIXTURE_CURRENCY } from '../core/index.js';
import type { Draft } from './fixture-drafts.js';
import type { AccountFixture, AccountKind, Counterparty, SandboxStatement } from './sandbox-records.js';
import { type SeededRandom, stableUuid } from './seeded-random.js';

// What a generated account is: its plan's shape (fixture-generator.ts makes the plans), and besides its
// transactions, its identifications and names, its monthly statements and its beneficiaries' payees.

export interface DayEntry {
  index: number;
  timeMs: number;
  draft: Draft;
}

/** A generated transaction reduced to what balances need. */
export interface LeanEntry {
  index: number;
  timeMs: number;
  amountMinor: number;
}

/** One account's rules: how many transactions a day has, and what they are. */
export interface AccountPlan {
  accountId: string;
  /** Transactions on a day; every HISTORY_DAYS consecutive days hold the account's total. */
  countOn(dayNumber: number): number;
  /** The day's transactions in account order (time, then index); a function of the day alone. */
  day(dayNumber: number): DayEntry[];
  /** The same day's times and amounts, in the same order, from the same draws, without the records. */
  leanDay(dayNumber: number): LeanEntry[];
  /** The day's sum into out[0] and the sum of its debits into out[1], allocating nothing per record. */
  dayTotals(dayNumber: number, out: Float64Array): void;
  /** Seeds the cushion added to the account's balance (see balance-summary.ts). */
  baseSeed: string;
}

/** An account's fixed facts, and the plan of its transactions (none for the credit card). */
export interface GeneratedAccount {
  fixture: AccountFixture;
  plan?: AccountPlan;
}

function monthStarts(dayStartMs: number, months: number): number[] {
  const now = new Date(dayStartMs);
  const starts: number[] = [];
  for (let i = months; i >= 1; i -= 1) starts.push(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1));
  return starts;
}

export function statementsFor(accountId: string, dayStartMs: number): SandboxStatement[] {
  return monthStarts(dayStartMs, 24).map((startMs) => {
    const start = new Date(startMs);
    const nextMonth = Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1);
    return {
      id: stableUuid(`${accountId}:statement:${start.toISOString().slice(0, 7)}`),
      startMs,
      endMs: nextMonth - 1000,
      creationMs: nextMonth,
    };
  });
}

/** A UK bank account as the upstream identifies it: its sort code, then its account number. */
export function ukBankAccount(sortCode: string, accountNumber: string) {
  return [
    { type: 'SORT_CODE', identification: sortCode },
    { type: 'ACCOUNT_NUMBER', identification: accountNumber },
  ];
}

/** How the bank accounts (sort code and account number) are named; the nickname ends in the number's last 4. */
const BANK_ACCOUNT_NAMES = {
  CURRENT: { type: 'Personal - Current', description: 'Current Account', nicknamePrefix: 'xxxx' },
  SAVINGS: { type: 'Personal - Savings', description: 'Instant Access Saver', nicknamePrefix: 'Saver ' },
};

export function accountFacts(
  seed: string,
  kind: AccountKind,
  random: SeededRandom,
  holderName: string,
): Omit<AccountFixture, 'statements' | 'beneficiaries'> {
  const id = stableUuid(`${seed}:account:${kind}`);
  const sortCode = `04${random.digits(4)}`;
  const accountNumber = random.digits(8);
  const base = { id, kind, currency: FIXTURE_CURRENCY, holderName };
  if (kind !== 'CREDIT_CARD') {
    const { type, description, nicknamePrefix } = BANK_ACCOUNT_NAMES[kind];
    return {
      ...base,
      type,
      description,
      nickname: `${nicknamePrefix}${accountNumber.slice(-4)}`,
      identifications: ukBankAccount(sortCode, accountNumber),
    };
  }
  const pan = `5${random.digits(15)}`;
  return {
    ...base,
    type: 'Personal - Credit Card',
    description: 'Platinum Credit Card',
    nickname: `Card ${pan.slice(-4)}`,
    identifications: [{ type: 'PAN', identification: pan }],
    creditLimitMinor: random.int(10, 80) * 10_000,
  };
}

export const payeeOf = (c: Counterparty) => ({
  name: c.name,
  accountIdentifications: ukBankAccount(c.sortCode, c.accountNumber),
});
