import {
  accountFacts,
  type AccountPlan,
  type DayEntry,
  type GeneratedAccount,
  type LeanEntry,
  payeeOf,
  statementsFor,
} from './fixture-accounts.js';
import {
  CURRENT_ACCOUNT_TRANSACTIONS,
  EMPLOYERS,
  FIRST_NAMES,
  KINDS,
  LAST_NAMES,
  SAVINGS_ACCOUNT_TRANSACTIONS,
  TRANSFER_REFERENCES,
} from './fixture-catalogue.js';
import { counterpartyFrom, currentAccountAmount, currentAccountDraft, type Draft } from './fixture-drafts.js';
import {
  type Counterparty,
  DAY_MS,
  dayNumberOf,
  HISTORY_DAYS,
  type SandboxBeneficiary,
  type SandboxTransaction,
  SEQ_PER_DAY,
} from './sandbox-records.js';
import { SeededRandom, stableUuid } from './seeded-random.js';

// The deterministic accounts behind an authorised data consent. A transaction depends only on the seed
// (application, user, institution), its UTC calendar day and its index within that day, and its id is
// derived from exactly those: a day's transactions are the same whichever day they are generated on, so
// a client that upserts by id never sees a booked transaction change, and any page is computed from the
// few days it covers, never from the whole history. Moving the sandbox clock forward drops the oldest
// days of the two-year window and adds new ones. Kept whole: the two account plans and the day replay
// they feed are one deterministic generator.

const mod = (n: number, m: number) => ((n % m) + m) % m;

/**
 * Transactions per day, by `dayNumber mod HISTORY_DAYS`: every window of HISTORY_DAYS consecutive days
 * holds each position once, so every window holds exactly `total` transactions. Spread at random (a
 * seeded multinomial), with at least `minimum` a day.
 */
function dayPattern(random: SeededRandom, total: number, minimum: number): Uint16Array {
  const counts = new Uint16Array(HISTORY_DAYS).fill(minimum);
  for (let n = minimum * HISTORY_DAYS; n < total; n += 1) {
    counts[Math.floor(random.next() * HISTORY_DAYS)] += 1;
  }
  return counts;
}

/** A random whole second of the day: banks report seconds, and `from`/`before` are then easy to hit. */
const secondOf = (random: SeededRandom, dayStartMs: number) => dayStartMs + random.int(0, 86_399) * 1000;

/** A day's generated amounts in index order (not time order), from the day's draws alone. */
type Replay = (
  dayNumber: number,
  visit: (index: number, timeMs: number, amountMinor: number) => void,
) => void;

function leanDayOf(replay: Replay, dayNumber: number): LeanEntry[] {
  const entries: LeanEntry[] = [];
  replay(dayNumber, (index, timeMs, amountMinor) => entries.push({ index, timeMs, amountMinor }));
  return entries.sort(byTime);
}

function totalsOf(replay: Replay, dayNumber: number, out: Float64Array): void {
  out[0] = 0;
  out[1] = 0;
  replay(dayNumber, (_index, _timeMs, amountMinor) => {
    out[0] += amountMinor;
    if (amountMinor < 0) out[1] += amountMinor;
  });
}

const byTime = (x: { timeMs: number; index: number }, y: { timeMs: number; index: number }) =>
  x.timeMs - y.timeMs || x.index - y.index;

/**
 * What an account's days hold. A day's draws come from `${daySeed}:day:${dayNumber}` alone; its first
 * transaction is the fixed one (salary, interest) on the days `fixedOn` says, and every other falls on a
 * random second, drawn before the rest of it. Each transaction has a lean form (its amount) and its
 * record (a draft), drawn alike.
 */
interface DayRules {
  daySeed: string;
  countOn: (dayNumber: number) => number;
  fixedOn: (dayNumber: number) => boolean;
  fixedAt: (dayStartMs: number) => number;
  fixedAmount: (random: SeededRandom) => number;
  fixedDraft: (amountMinor: number) => Draft;
  otherAmount: (random: SeededRandom) => number;
  otherDraft: (random: SeededRandom, timeMs: number) => Draft;
}

/** Walks a day's transactions in index order, handing each its time and the day's random. */
function walkDay(
  rules: DayRules,
  dayNumber: number,
  visit: (index: number, timeMs: number, random: SeededRandom, fixed: boolean) => void,
): void {
  const random = new SeededRandom(`${rules.daySeed}:day:${dayNumber}`);
  const dayStartMs = dayNumber * DAY_MS;
  for (let index = 0, count = rules.countOn(dayNumber); index < count; index += 1) {
    if (index === 0 && rules.fixedOn(dayNumber)) visit(index, rules.fixedAt(dayStartMs), random, true);
    else visit(index, secondOf(random, dayStartMs), random, false);
  }
}

/** An account plan whose records (`day`) and replay (`leanDay`, `dayTotals`) are one walk of its days. */
function planOf(accountId: string, baseSeed: string, rules: DayRules): AccountPlan {
  const replay: Replay = (dayNumber, visit) =>
    walkDay(rules, dayNumber, (index, timeMs, random, fixed) =>
      visit(index, timeMs, fixed ? rules.fixedAmount(random) : rules.otherAmount(random)),
    );
  return {
    accountId,
    countOn: rules.countOn,
    baseSeed,
    day(dayNumber: number) {
      const entries: DayEntry[] = [];
      walkDay(rules, dayNumber, (index, timeMs, random, fixed) => {
        const draft = fixed ? rules.fixedDraft(rules.fixedAmount(random)) : rules.otherDraft(random, timeMs);
        entries.push({ index, timeMs, draft });
      });
      return entries.sort(byTime);
    },
    leanDay: (dayNumber: number) => leanDayOf(replay, dayNumber),
    dayTotals: (dayNumber: number, out: Float64Array) => totalsOf(replay, dayNumber, out),
  };
}

function currentPlan(seed: string, accountId: string, random: SeededRandom, contacts: Counterparty[]) {
  const employer: Counterparty = {
    name: random.pick(EMPLOYERS),
    sortCode: random.digits(6),
    accountNumber: random.digits(8),
  };
  // The other transactions spend about £3,390 a month on average; a salary a little above that lets the
  // balance, defined from the epoch and never re-based, drift gently upwards instead of into overdraft.
  const salaryMinor = random.int(3700, 4300) * 100;
  // At least one a day, so the salary always has its slot on the 25th.
  const pattern = dayPattern(new SeededRandom(`${seed}:CURRENT:pattern`), CURRENT_ACCOUNT_TRANSACTIONS, 1);
  return planOf(accountId, `${seed}:CURRENT:base`, {
    daySeed: `${seed}:CURRENT`,
    countOn: (dayNumber) => pattern[mod(dayNumber, HISTORY_DAYS)],
    fixedOn: (dayNumber) => new Date(dayNumber * DAY_MS).getUTCDate() === 25,
    fixedAt: (dayStartMs) => dayStartMs + 6 * 3600_000,
    fixedAmount: (dayRandom) => salaryMinor + dayRandom.int(0, 30) * 100,
    fixedDraft: (amountMinor) => ({
      amountMinor,
      description: `BGC ${employer.name} SALARY`,
      reference: 'SALARY',
      kind: KINDS.salary,
      category: 'salary',
      counterparty: employer,
    }),
    otherAmount: currentAccountAmount,
    otherDraft: (dayRandom, timeMs) => currentAccountDraft(dayRandom, timeMs, contacts),
  });
}

function savingsPlan(seed: string, accountId: string, own: Counterparty) {
  const pattern = dayPattern(new SeededRandom(`${seed}:SAVINGS:pattern`), SAVINGS_ACCOUNT_TRANSACTIONS, 0);
  const countOn = (dayNumber: number) => pattern[mod(dayNumber, HISTORY_DAYS)];
  /** A transfer from the holder's current account (positive) or back to it. */
  const transfer = (dayRandom: SeededRandom) =>
    dayRandom.next() < 0.62 ? dayRandom.int(50, 600) * 100 : -dayRandom.int(20, 800) * 100;
  return planOf(accountId, `${seed}:SAVINGS:base`, {
    daySeed: `${seed}:SAVINGS`,
    countOn,
    // Interest is paid on the first day of a month that has transactions, as the first of them.
    fixedOn: (dayNumber) => {
      const date = new Date(dayNumber * DAY_MS);
      const monthStartDay = dayNumberOf(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1));
      for (let d = monthStartDay; d < dayNumber; d += 1) if (countOn(d) > 0) return false;
      return true;
    },
    fixedAt: (dayStartMs) => dayStartMs,
    fixedAmount: (dayRandom) => dayRandom.int(50, 1500),
    fixedDraft: (amountMinor) => ({
      amountMinor,
      description: 'INTEREST PAID',
      reference: 'GROSS INTEREST',
      kind: KINDS.interest,
      category: 'interest',
    }),
    otherAmount: transfer,
    otherDraft: (dayRandom) => {
      const amountMinor = transfer(dayRandom);
      return amountMinor > 0
        ? {
            amountMinor,
            description: `TRANSFER FROM ${own.name.toUpperCase()}`,
            reference: 'Savings',
            kind: KINDS.transferIn,
            category: 'savings',
            counterparty: own,
          }
        : {
            amountMinor,
            description: `TRANSFER TO ${own.name.toUpperCase()}`,
            reference: 'Withdrawal',
            kind: KINDS.transferOut,
            category: 'savings',
            counterparty: own,
          };
    },
  });
}

/** A generated day's records, with the ids and sequence numbers they always have. */
export function dayTransactions(plan: AccountPlan, dayNumber: number): SandboxTransaction[] {
  return plan.day(dayNumber).map(({ index, timeMs, draft }) => ({
    // Built field by field, not by spreading the draft: every record gets the same shape.
    id: generatedTransactionId(plan.accountId, dayNumber, index),
    seq: dayNumber * SEQ_PER_DAY + index,
    timeMs,
    status: 'BOOKED' as const,
    amountMinor: draft.amountMinor,
    description: draft.description,
    reference: draft.reference,
    kind: draft.kind,
    category: draft.category,
    merchant: draft.merchant,
    counterparty: draft.counterparty,
    balanceMinor: undefined,
  }));
}

export const generatedTransactionId = (accountId: string, dayNumber: number, index: number) =>
  stableUuid(`${accountId}:${dayNumber}:${index}`);

/**
 * The three accounts of a user at an institution as of the sandbox day starting at `endDayStartMs`:
 * their facts and the plans their transactions come from. Cheap: no transaction is generated here.
 */
export function generateAccounts(seed: string, endDayStartMs: number): GeneratedAccount[] {
  const people = new SeededRandom(`${seed}:people`);
  const holderName = `${people.pick(FIRST_NAMES)} ${people.pick(LAST_NAMES)}`;
  const contacts = Array.from({ length: 12 }, () => counterpartyFrom(people));

  const currentRandom = new SeededRandom(`${seed}:CURRENT`);
  const current = accountFacts(seed, 'CURRENT', currentRandom, holderName);
  const own: Counterparty = {
    name: holderName,
    sortCode: current.identifications[0].identification,
    accountNumber: current.identifications[1].identification,
  };
  const savings = accountFacts(seed, 'SAVINGS', new SeededRandom(`${seed}:SAVINGS`), holderName);
  const card = accountFacts(seed, 'CREDIT_CARD', new SeededRandom(`${seed}:CREDIT_CARD`), holderName);

  const beneficiaries = contacts.slice(0, 3).map((c, i): SandboxBeneficiary => ({
    id: stableUuid(`${current.id}:beneficiary:${i}`),
    trusted: i !== 2,
    reference: TRANSFER_REFERENCES[i],
    payee: payeeOf(c),
  }));

  return [
    {
      fixture: { ...current, beneficiaries, statements: () => statementsFor(current.id, endDayStartMs) },
      plan: currentPlan(seed, current.id, currentRandom, contacts),
    },
    {
      fixture: {
        ...savings,
        beneficiaries: [
          {
            id: stableUuid(`${savings.id}:beneficiary:own`),
            trusted: true,
            reference: 'Own current account',
            payee: payeeOf(own),
          },
        ],
        statements: () => statementsFor(savings.id, endDayStartMs),
      },
      plan: savingsPlan(seed, savings.id, own),
    },
    { fixture: { ...card, beneficiaries: [], statements: () => statementsFor(card.id, endDayStartMs) } },
  ];
}
