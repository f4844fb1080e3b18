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
  type Counterparty,
  CURRENT_ACCOUNT_TRANSACTIONS,
  DAY_MS,
  dayNumberOf,
  EMPLOYERS,
  FIRST_NAMES,
  HISTORY_DAYS,
  KINDS,
  LAST_NAMES,
  type SandboxBeneficiary,
  type SandboxTransaction,
  SAVINGS_ACCOUNT_TRANSACTIONS,
  SEQ_PER_DAY,
  TRANSFER_REFERENCES,
} from './fixture-catalogue.js';
import { counterpartyFrom, currentAccountAmount, currentAccountDraft } from './fixture-drafts.js';
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
  const countOn = (dayNumber: number) => pattern[mod(dayNumber, HISTORY_DAYS)];
  const isPayday = (dayStartMs: number) => new Date(dayStartMs).getUTCDate() === 25;
  const replay: Replay = (dayNumber, visit) => {
    const dayRandom = new SeededRandom(`${seed}:CURRENT:day:${dayNumber}`);
    const dayStartMs = dayNumber * DAY_MS;
    for (let index = 0, count = countOn(dayNumber); index < count; index += 1) {
      if (index === 0 && isPayday(dayStartMs)) {
        visit(index, dayStartMs + 6 * 3600_000, salaryMinor + dayRandom.int(0, 30) * 100);
        continue;
      }
      const timeMs = secondOf(dayRandom, dayStartMs);
      visit(index, timeMs, currentAccountAmount(dayRandom));
    }
  };
  return {
    accountId,
    countOn,
    baseSeed: `${seed}:CURRENT:base`,
    day(dayNumber: number) {
      const dayRandom = new SeededRandom(`${seed}:CURRENT:day:${dayNumber}`);
      const dayStartMs = dayNumber * DAY_MS;
      const entries: DayEntry[] = [];
      for (let index = 0, count = countOn(dayNumber); index < count; index += 1) {
        if (index === 0 && isPayday(dayStartMs)) {
          entries.push({
            index,
            timeMs: dayStartMs + 6 * 3600_000,
            draft: {
              amountMinor: salaryMinor + dayRandom.int(0, 30) * 100,
              description: `BGC ${employer.name} SALARY`,
              reference: 'SALARY',
              kind: KINDS.salary,
              category: 'salary',
              counterparty: employer,
            },
          });
          continue;
        }
        const timeMs = secondOf(dayRandom, dayStartMs);
        entries.push({ index, timeMs, draft: currentAccountDraft(dayRandom, timeMs, contacts) });
      }
      return entries.sort(byTime);
    },
    leanDay: (dayNumber: number) => leanDayOf(replay, dayNumber),
    dayTotals: (dayNumber: number, out: Float64Array) => totalsOf(replay, dayNumber, out),
  } satisfies AccountPlan;
}

function savingsPlan(seed: string, accountId: string, own: Counterparty) {
  const pattern = dayPattern(new SeededRandom(`${seed}:SAVINGS:pattern`), SAVINGS_ACCOUNT_TRANSACTIONS, 0);
  const countOn = (dayNumber: number) => pattern[mod(dayNumber, HISTORY_DAYS)];
  // Interest is paid on the first day of a month that has transactions, as the first of them.
  const firstActiveDayOfMonth = (dayNumber: number) => {
    const date = new Date(dayNumber * DAY_MS);
    const monthStartDay = dayNumberOf(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1));
    for (let d = monthStartDay; d < dayNumber; d += 1) if (countOn(d) > 0) return false;
    return true;
  };
  const replay: Replay = (dayNumber, visit) => {
    const dayRandom = new SeededRandom(`${seed}:SAVINGS:day:${dayNumber}`);
    const dayStartMs = dayNumber * DAY_MS;
    for (let index = 0, count = countOn(dayNumber); index < count; index += 1) {
      if (index === 0 && firstActiveDayOfMonth(dayNumber)) {
        visit(index, dayStartMs, dayRandom.int(50, 1500));
        continue;
      }
      const timeMs = secondOf(dayRandom, dayStartMs);
      const deposit = dayRandom.next() < 0.62;
      visit(index, timeMs, deposit ? dayRandom.int(50, 600) * 100 : -dayRandom.int(20, 800) * 100);
    }
  };
  return {
    accountId,
    countOn,
    baseSeed: `${seed}:SAVINGS:base`,
    day(dayNumber: number) {
      const dayRandom = new SeededRandom(`${seed}:SAVINGS:day:${dayNumber}`);
      const dayStartMs = dayNumber * DAY_MS;
      const entries: DayEntry[] = [];
      for (let index = 0, count = countOn(dayNumber); index < count; index += 1) {
        if (index === 0 && firstActiveDayOfMonth(dayNumber)) {
          entries.push({
            index,
            timeMs: dayStartMs,
            draft: {
              amountMinor: dayRandom.int(50, 1500),
              description: 'INTEREST PAID',
              reference: 'GROSS INTEREST',
              kind: KINDS.interest,
              category: 'interest',
            },
          });
          continue;
        }
        const timeMs = secondOf(dayRandom, dayStartMs);
        const deposit = dayRandom.next() < 0.62;
        entries.push({
          index,
          timeMs,
          draft: deposit
            ? {
                amountMinor: dayRandom.int(50, 600) * 100,
                description: `TRANSFER FROM ${own.name.toUpperCase()}`,
                reference: 'Savings',
                kind: KINDS.transferIn,
                category: 'savings',
                counterparty: own,
              }
            : {
                amountMinor: -dayRandom.int(20, 800) * 100,
                description: `TRANSFER TO ${own.name.toUpperCase()}`,
                reference: 'Withdrawal',
                kind: KINDS.transferOut,
                category: 'savings',
                counterparty: own,
              },
        });
      }
      return entries.sort(byTime);
    },
    leanDay: (dayNumber: number) => leanDayOf(replay, dayNumber),
    dayTotals: (dayNumber: number, out: Float64Array) => totalsOf(replay, dayNumber, out),
  } satisfies AccountPlan;
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
