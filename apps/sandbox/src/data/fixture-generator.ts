import { SeededRandom, stableUuid } from './seeded-random.js';

/**
 * The deterministic accounts behind an authorised data consent. A transaction depends only on the seed
 * (application, user, institution), its UTC calendar day and its index within that day, and its id is
 * derived from exactly those: a day's transactions are the same whichever day they are generated on, so
 * a client that upserts by id never sees a booked transaction change. Moving the sandbox clock forward
 * drops the oldest days of the two-year window and adds new ones.
 */

export const DAY_MS = 86_400_000;
export const HISTORY_DAYS = 730;
export const CURRENT_ACCOUNT_TRANSACTIONS = 6500;
export const SAVINGS_ACCOUNT_TRANSACTIONS = 467;

export type TransactionStatus = 'BOOKED' | 'PENDING';
export type AccountKind = 'CURRENT' | 'SAVINGS' | 'CREDIT_CARD';

export interface IsoCode {
  code: string;
  name: string;
}

/** A kind of transaction: how banks code it, and how it is categorised. */
export interface TransactionKind {
  key: string;
  domain: IsoCode;
  family: IsoCode;
  subFamily: IsoCode;
  proprietary: string;
}

export interface MerchantFixture {
  name: string;
  descriptor: string;
  parentGroup: string;
  mcc: string;
  category: string;
  minMinor: number;
  maxMinor: number;
}

export interface Counterparty {
  name: string;
  sortCode: string;
  accountNumber: string;
}

export interface SandboxTransaction {
  id: string;
  /**
   * Stable per account and the tie-break of equal times: `day * SEQ_PER_DAY + index` for generated
   * transactions, ADMIN_SEQ_BASE onwards for those the control API added.
   */
  seq: number;
  timeMs: number;
  status: TransactionStatus;
  amountMinor: number;
  description: string;
  reference: string;
  kind: TransactionKind;
  category: string;
  merchant?: MerchantFixture;
  counterparty?: Counterparty;
  /** Booked balance after this transaction (booked transactions only); kept by the store. */
  balanceMinor?: number;
}

export interface SandboxBeneficiary {
  id: string;
  trusted: boolean;
  reference: string;
  payee: { name: string; accountIdentifications: { type: string; identification: string }[] };
}

export interface SandboxStatement {
  id: string;
  startMs: number;
  endMs: number;
  creationMs: number;
}

export interface SandboxAccount {
  id: string;
  kind: AccountKind;
  currency: string;
  type: string;
  description: string;
  nickname: string;
  holderName: string;
  identifications: { type: string; identification: string }[];
  openingMinor: number;
  creditLimitMinor?: number;
  /** Ascending by time, then seq; `times` is the parallel array of timestamps for binary search. */
  transactions: SandboxTransaction[];
  times: Float64Array;
  bookedMinor: number;
  pendingMinor: number;
  beneficiaries: SandboxBeneficiary[];
  statements: SandboxStatement[];
  nextAdminSeq: number;
  /**
   * Names this exact state of the account in the serialised-record cache; a new value whenever the
   * account changes, so stale entries are never read again and simply age out.
   */
  cacheId: number;
}

const code = (c: string, name: string): IsoCode => ({ code: c, name });
const PMNT = code('PMNT', 'Payments');
const CCRD = code('CCRD', 'Customer Card Transactions');
const ICDT = code('ICDT', 'Issued Credit Transfers');
const RCDT = code('RCDT', 'Received Credit Transfers');
const IDDT = code('IDDT', 'Issued Direct Debits');
const DMCT = code('DMCT', 'Domestic Credit Transfer');

export const KINDS = {
  card: {
    key: 'card',
    domain: PMNT,
    family: CCRD,
    subFamily: code('POSD', 'Point-of-Sale Debit'),
    proprietary: 'POS',
  },
  refund: {
    key: 'refund',
    domain: PMNT,
    family: CCRD,
    subFamily: code('RIMB', 'Reimbursement'),
    proprietary: 'REF',
  },
  atm: {
    key: 'atm',
    domain: PMNT,
    family: CCRD,
    subFamily: code('CWDL', 'Cash Withdrawal'),
    proprietary: 'ATM',
  },
  directDebit: {
    key: 'directDebit',
    domain: PMNT,
    family: IDDT,
    subFamily: code('PMDD', 'Direct Debit'),
    proprietary: 'DD',
  },
  transferOut: { key: 'transferOut', domain: PMNT, family: ICDT, subFamily: DMCT, proprietary: 'FPO' },
  transferIn: { key: 'transferIn', domain: PMNT, family: RCDT, subFamily: DMCT, proprietary: 'FPI' },
  salary: {
    key: 'salary',
    domain: PMNT,
    family: RCDT,
    subFamily: code('SALA', 'Payroll/Salary Payment'),
    proprietary: 'BGC',
  },
  interest: {
    key: 'interest',
    domain: code('ACMT', 'Account Management'),
    family: code('MCOP', 'Miscellaneous Credit Operations'),
    subFamily: code('INTR', 'Interests'),
    proprietary: 'INT',
  },
} satisfies Record<string, TransactionKind>;

const m = (
  name: string,
  descriptor: string,
  parentGroup: string,
  mcc: string,
  category: string,
  minMinor: number,
  maxMinor: number,
): MerchantFixture => ({ name, descriptor, parentGroup, mcc, category, minMinor, maxMinor });

const GROCERIES = [
  m('Tesco', 'TESCO STORES', 'Tesco', '5411', 'groceries', 250, 9500),
  m("Sainsbury's", 'SAINSBURYS S/MKTS', "J Sainsbury's", '5411', 'groceries', 300, 8800),
  m('Waitrose', 'WAITROSE', 'John Lewis Partnership', '5411', 'groceries', 400, 7200),
  m('Lidl', 'LIDL GB', 'Schwarz Group', '5411', 'groceries', 200, 6400),
  m('Co-op Food', 'CO-OP GROUP FOOD', 'Co-operative Group', '5411', 'groceries', 150, 3500),
];
const EATING_OUT = [
  m('Pret A Manger', 'PRET A MANGER', 'JAB Holding', '5814', 'eating_out', 250, 1200),
  m('Costa Coffee', 'COSTA COFFEE', 'Coca-Cola', '5814', 'eating_out', 220, 900),
  m('Greggs', 'GREGGS PLC', 'Greggs', '5814', 'eating_out', 150, 800),
  m("Nando's", 'NANDOS', "Nando's", '5812', 'eating_out', 1200, 4800),
  m('Deliveroo', 'DELIVEROO.CO.UK', 'DoorDash', '5812', 'eating_out', 1100, 4200),
];
const TRANSPORT = [
  m('Transport for London', 'TFL TRAVEL CH', 'Transport for London', '4111', 'transport', 150, 1800),
  m('Trainline', 'TRAINLINE.COM', 'Trainline', '4112', 'transport', 800, 9500),
  m('Uber', 'UBER *TRIP', 'Uber', '4121', 'transport', 600, 4000),
  m('Shell', 'SHELL', 'Shell', '5541', 'transport', 2000, 8500),
];
const SHOPPING = [
  m('Amazon', 'AMAZON.CO.UK', 'Amazon', '5942', 'shopping', 399, 12000),
  m('Boots', 'BOOTS', 'Walgreens Boots Alliance', '5912', 'health', 250, 4500),
  m('Argos', 'ARGOS LTD', "J Sainsbury's", '5311', 'shopping', 500, 15000),
  m('John Lewis', 'JOHN LEWIS', 'John Lewis Partnership', '5311', 'shopping', 1500, 18000),
  m('Apple', 'APPLE.COM/BILL', 'Apple', '5818', 'entertainment', 79, 2999),
];
const SUBSCRIPTIONS = [
  m('Netflix', 'NETFLIX.COM', 'Netflix', '4899', 'entertainment', 1099, 1799),
  m('Spotify', 'SPOTIFY', 'Spotify', '4899', 'entertainment', 1199, 1199),
];
const BILLERS = [
  { name: 'British Gas', category: 'bills', minMinor: 4500, maxMinor: 16000 },
  { name: 'Thames Water', category: 'bills', minMinor: 2500, maxMinor: 5500 },
  { name: 'EE Limited', category: 'bills', minMinor: 1800, maxMinor: 4500 },
  { name: 'Camden Council Tax', category: 'bills', minMinor: 12000, maxMinor: 19000 },
  { name: 'Aviva Insurance', category: 'insurance', minMinor: 2000, maxMinor: 6000 },
];
const FIRST_NAMES = [
  'Olivia',
  'Amelia',
  'Isla',
  'Ava',
  'Noah',
  'Oliver',
  'George',
  'Leo',
  'Arthur',
  'Freya',
  'Priya',
  'Mohammed',
  'Chen',
  'Sofia',
  'Jack',
  'Grace',
];
const LAST_NAMES = [
  'Smith',
  'Jones',
  'Taylor',
  'Brown',
  'Williams',
  'Wilson',
  'Patel',
  'Khan',
  'Davies',
  'Evans',
  'Thomas',
  'Roberts',
  'Walker',
  'Wright',
  'Green',
  'Hall',
];
const EMPLOYERS = ['ACME WIDGETS LTD', 'NORTHWIND TRADING', 'BLUE RIVER SYSTEMS', 'CONTOSO UK LTD'];
const TRANSFER_REFERENCES = [
  'Rent share',
  'Dinner',
  'Thanks',
  'Holiday',
  'Birthday',
  'Bills',
  'Tickets',
  'Groceries',
];

function counterpartyFrom(random: SeededRandom): Counterparty {
  return {
    name: `${random.pick(FIRST_NAMES)} ${random.pick(LAST_NAMES)}`,
    sortCode: random.digits(6),
    accountNumber: random.digits(8),
  };
}

function ddmm(timeMs: number): string {
  const d = new Date(timeMs);
  return `${String(d.getUTCDate()).padStart(2, '0')}${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

type Draft = Omit<SandboxTransaction, 'id' | 'seq' | 'timeMs' | 'status'>;

function cardPayment(random: SeededRandom, merchant: MerchantFixture, timeMs: number): Draft {
  return {
    amountMinor: -random.int(merchant.minMinor, merchant.maxMinor),
    description: `${merchant.descriptor} ${ddmm(timeMs)}`,
    reference: `POS ${random.digits(4)}`,
    kind: KINDS.card,
    category: merchant.category,
    merchant,
  };
}

function currentAccountDraft(random: SeededRandom, timeMs: number, person: Counterparty[]): Draft {
  // Weights tuned so two years of spending roughly matches salary and incoming transfers.
  const roll = random.weighted(WEIGHTS, WEIGHT_TOTAL);
  switch (roll) {
    case 0:
      return cardPayment(random, random.pick(GROCERIES), timeMs);
    case 1:
      return cardPayment(random, random.pick(EATING_OUT), timeMs);
    case 2:
      return cardPayment(random, random.pick(TRANSPORT), timeMs);
    case 3:
      return cardPayment(random, random.pick(SHOPPING), timeMs);
    case 4:
      return cardPayment(random, random.pick(SUBSCRIPTIONS), timeMs);
    case 5: {
      const biller = random.pick(BILLERS);
      return {
        amountMinor: -random.int(biller.minMinor, biller.maxMinor),
        description: `DIRECT DEBIT ${biller.name.toUpperCase()}`,
        reference: `DD${random.digits(9)}`,
        kind: KINDS.directDebit,
        category: biller.category,
        counterparty: { name: biller.name, sortCode: random.digits(6), accountNumber: random.digits(8) },
      };
    }
    case 6: {
      const payee = random.pick(person);
      return {
        amountMinor: -random.int(1000, 25000),
        description: `FASTER PAYMENT TO ${payee.name.toUpperCase()}`,
        reference: random.pick(TRANSFER_REFERENCES),
        kind: KINDS.transferOut,
        category: 'transfers',
        counterparty: payee,
      };
    }
    case 7:
      return {
        amountMinor: -random.int(1, 15) * 1000,
        description: `CASH WITHDRAWAL ${random.pick(['BARCLAYS', 'HSBC', 'NATWEST', 'LLOYDS'])} ATM`,
        reference: `ATM ${random.digits(6)}`,
        kind: KINDS.atm,
        category: 'cash',
      };
    case 8: {
      const payer = random.pick(person);
      return {
        amountMinor: random.int(500, 30000),
        description: `FASTER PAYMENT FROM ${payer.name.toUpperCase()}`,
        reference: random.pick(TRANSFER_REFERENCES),
        kind: KINDS.transferIn,
        category: 'transfers',
        counterparty: payer,
      };
    }
    default: {
      const merchant = random.pick([...GROCERIES, ...SHOPPING]);
      return {
        amountMinor: random.int(merchant.minMinor, merchant.maxMinor),
        description: `REFUND ${merchant.descriptor}`,
        reference: `REF ${random.digits(6)}`,
        kind: KINDS.refund,
        category: 'refund',
        merchant,
      };
    }
  }
}

const WEIGHTS = [22, 24, 14, 11, 2, 4, 5, 2, 13, 3];
const WEIGHT_TOTAL = WEIGHTS.reduce((a, b) => a + b, 0);

function monthStarts(dayStartMs: number, months: number): number[] {
  const now = new Date(dayStartMs);
  const starts: number[] = [];
  for (let i = months; i >= 1; i -= 1) starts.push(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1));
  return starts;
}

function statementsFor(accountId: string, dayStartMs: number): SandboxStatement[] {
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

function emptyAccount(
  seed: string,
  kind: AccountKind,
  random: SeededRandom,
  holderName: string,
): Omit<SandboxAccount, 'transactions' | 'openingMinor' | 'statements' | 'beneficiaries'> {
  const id = stableUuid(`${seed}:account:${kind}`);
  const sortCode = `04${random.digits(4)}`;
  const accountNumber = random.digits(8);
  const base = {
    id,
    kind,
    currency: 'GBP',
    holderName,
    times: new Float64Array(0),
    bookedMinor: 0,
    pendingMinor: 0,
    nextAdminSeq: ADMIN_SEQ_BASE,
    cacheId: 0,
  };
  switch (kind) {
    case 'CURRENT':
      return {
        ...base,
        type: 'Personal - Current',
        description: 'Current Account',
        nickname: `xxxx${accountNumber.slice(-4)}`,
        identifications: [
          { type: 'SORT_CODE', identification: sortCode },
          { type: 'ACCOUNT_NUMBER', identification: accountNumber },
        ],
      };
    case 'SAVINGS':
      return {
        ...base,
        type: 'Personal - Savings',
        description: 'Instant Access Saver',
        nickname: `Saver ${accountNumber.slice(-4)}`,
        identifications: [
          { type: 'SORT_CODE', identification: sortCode },
          { type: 'ACCOUNT_NUMBER', identification: accountNumber },
        ],
      };
    default: {
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
  }
}

/** Whole UTC days since 1970-01-01. */
export const dayNumberOf = (ms: number): number => Math.floor(ms / DAY_MS);

/**
 * Running balances count from the start of this day, before any window: a transaction's balance is the
 * account's base plus every amount up to it, so it never changes once generated.
 */
export const BALANCE_EPOCH_DAY = Date.UTC(2024, 0, 1) / DAY_MS;

export const SEQ_PER_DAY = 1024;
export const ADMIN_SEQ_BASE = 2 ** 45;

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

interface DayEntry {
  index: number;
  timeMs: number;
  draft: Draft;
}

/** One account's rules: how many transactions a day has, and what they are. */
interface AccountPlan {
  account: ReturnType<typeof emptyAccount>;
  pattern: Uint16Array;
  /** The day's transactions in account order (time, then index); a function of the day alone. */
  day(dayNumber: number, count: number): DayEntry[];
  baseRandom: SeededRandom;
}

const countOn = (pattern: Uint16Array, day: number) => pattern[mod(day, HISTORY_DAYS)];

/** A random whole second of the day: banks report seconds, and `from`/`before` are then easy to hit. */
const secondOf = (random: SeededRandom, dayStartMs: number) => dayStartMs + random.int(0, 86_399) * 1000;

const byTime = (x: DayEntry, y: DayEntry) => x.timeMs - y.timeMs || x.index - y.index;

function currentPlan(seed: string, holderName: string, contacts: Counterparty[]): AccountPlan {
  const random = new SeededRandom(`${seed}:CURRENT`);
  const account = emptyAccount(seed, 'CURRENT', random, holderName);
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
  return {
    account,
    pattern,
    baseRandom: new SeededRandom(`${seed}:CURRENT:base`),
    day(dayNumber, count) {
      const dayRandom = new SeededRandom(`${seed}:CURRENT:day:${dayNumber}`);
      const dayStartMs = dayNumber * DAY_MS;
      const entries: DayEntry[] = [];
      for (let index = 0; index < count; index += 1) {
        if (index === 0 && new Date(dayStartMs).getUTCDate() === 25) {
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
  };
}

function savingsPlan(seed: string, holderName: string, own: Counterparty): AccountPlan {
  const random = new SeededRandom(`${seed}:SAVINGS`);
  const account = emptyAccount(seed, 'SAVINGS', random, holderName);
  const pattern = dayPattern(new SeededRandom(`${seed}:SAVINGS:pattern`), SAVINGS_ACCOUNT_TRANSACTIONS, 0);
  // Interest is paid on the first day of a month that has transactions, as the first of them.
  const firstActiveDayOfMonth = (dayNumber: number) => {
    const date = new Date(dayNumber * DAY_MS);
    const monthStartDay = dayNumberOf(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1));
    for (let d = monthStartDay; d < dayNumber; d += 1) if (countOn(pattern, d) > 0) return false;
    return true;
  };
  return {
    account,
    pattern,
    baseRandom: new SeededRandom(`${seed}:SAVINGS:base`),
    day(dayNumber, count) {
      const dayRandom = new SeededRandom(`${seed}:SAVINGS:day:${dayNumber}`);
      const dayStartMs = dayNumber * DAY_MS;
      const entries: DayEntry[] = [];
      for (let index = 0; index < count; index += 1) {
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
  };
}

/**
 * The window's transactions and the booked balance before the first of them. Days from the balance
 * epoch (or the window, if earlier) are generated for their sums; the base is fixed by the first
 * HISTORY_DAYS after the epoch, high enough that the balance stays above a cushion there.
 */
function windowOf(
  plan: AccountPlan,
  windowStartDay: number,
  endDay: number,
): { transactions: SandboxTransaction[]; openingMinor: number } {
  const firstDay = Math.min(BALANCE_EPOCH_DAY, windowStartDay);
  const lastDay = Math.max(endDay, BALANCE_EPOCH_DAY + HISTORY_DAYS);
  const transactions: SandboxTransaction[] = [];
  let running = 0;
  let atEpoch = 0;
  let atWindowStart = 0;
  let lowestAfterEpoch = 0;
  for (let day = firstDay; day < lastDay; day += 1) {
    if (day === BALANCE_EPOCH_DAY) atEpoch = running;
    if (day === windowStartDay) atWindowStart = running;
    const entries = plan.day(day, countOn(plan.pattern, day));
    const inWindow = day >= windowStartDay && day < endDay;
    const inBaseSpan = day >= BALANCE_EPOCH_DAY && day < BALANCE_EPOCH_DAY + HISTORY_DAYS;
    for (const { index, timeMs, draft } of entries) {
      running += draft.amountMinor;
      if (inBaseSpan && running - atEpoch < lowestAfterEpoch) lowestAfterEpoch = running - atEpoch;
      if (!inWindow) continue;
      // Built field by field, not by spreading the draft: every record gets the same shape (fast
      // property access when serialising), and the test build's spread helper is slow at this volume.
      transactions.push({
        id: stableUuid(`${plan.account.id}:${day}:${index}`),
        seq: day * SEQ_PER_DAY + index,
        timeMs,
        status: 'BOOKED',
        amountMinor: draft.amountMinor,
        description: draft.description,
        reference: draft.reference,
        kind: draft.kind,
        category: draft.category,
        merchant: draft.merchant,
        counterparty: draft.counterparty,
        balanceMinor: undefined,
      });
    }
  }
  const baseMinor = -lowestAfterEpoch + plan.baseRandom.int(20_000, 150_000);
  return { transactions, openingMinor: baseMinor + atWindowStart - atEpoch };
}

/**
 * Generates the three accounts of a user at an institution, with the transactions of the HISTORY_DAYS
 * whole UTC days before `endDayStartMs` (the start of the sandbox's current day).
 */
export function generateAccounts(seed: string, endDayStartMs: number): SandboxAccount[] {
  const people = new SeededRandom(`${seed}:people`);
  const holderName = `${people.pick(FIRST_NAMES)} ${people.pick(LAST_NAMES)}`;
  const contacts = Array.from({ length: 12 }, () => counterpartyFrom(people));
  const endDay = dayNumberOf(endDayStartMs);
  const windowStartDay = endDay - HISTORY_DAYS;

  const currentAccount = currentPlan(seed, holderName, contacts);
  const current = currentAccount.account;
  const own: Counterparty = {
    name: holderName,
    sortCode: current.identifications[0].identification,
    accountNumber: current.identifications[1].identification,
  };
  const savingsAccount = savingsPlan(seed, holderName, own);
  const savings = savingsAccount.account;

  const cardRandom = new SeededRandom(`${seed}:CREDIT_CARD`);
  const card = emptyAccount(seed, 'CREDIT_CARD', cardRandom, holderName);

  const beneficiaries = contacts.slice(0, 3).map((c, i): SandboxBeneficiary => ({
    id: stableUuid(`${current.id}:beneficiary:${i}`),
    trusted: i !== 2,
    reference: TRANSFER_REFERENCES[i],
    payee: {
      name: c.name,
      accountIdentifications: [
        { type: 'SORT_CODE', identification: c.sortCode },
        { type: 'ACCOUNT_NUMBER', identification: c.accountNumber },
      ],
    },
  }));

  return [
    {
      ...current,
      ...windowOf(currentAccount, windowStartDay, endDay),
      beneficiaries,
      statements: statementsFor(current.id, endDayStartMs),
    },
    {
      ...savings,
      ...windowOf(savingsAccount, windowStartDay, endDay),
      beneficiaries: [
        {
          id: stableUuid(`${savings.id}:beneficiary:own`),
          trusted: true,
          reference: 'Own current account',
          payee: {
            name: own.name,
            accountIdentifications: [
              { type: 'SORT_CODE', identification: own.sortCode },
              { type: 'ACCOUNT_NUMBER', identification: own.accountNumber },
            ],
          },
        },
      ],
      statements: statementsFor(savings.id, endDayStartMs),
    },
    {
      ...card,
      transactions: [],
      openingMinor: 0,
      beneficiaries: [],
      statements: statementsFor(card.id, endDayStartMs),
    },
  ];
}
