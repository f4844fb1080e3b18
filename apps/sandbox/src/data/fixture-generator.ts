import { SeededRandom, stableUuid } from './seeded-random.js';

/**
 * The deterministic accounts behind an authorised data consent. Everything here is derived from a seed
 * string (application, user, institution) and the UTC day the data was first generated, so the same
 * user at the same institution sees the same accounts, ids and transactions on every run.
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
  /** Stable per account: the generation index, or a sequence number for transactions the control API added. */
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
  /** Serialised wire forms (UTF-8) by variant, filled lazily and dropped when the account changes. */
  json: (Buffer | undefined)[];
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
  /** Serialised `data` arrays of recent pages, by page key; cleared whenever the account changes. */
  pages: Map<string, Buffer>;
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

export interface GeneratedAccountSet {
  accounts: SandboxAccount[];
}

function counterpartyFrom(random: SeededRandom): Counterparty {
  return {
    name: `${random.pick(FIRST_NAMES)} ${random.pick(LAST_NAMES)}`,
    sortCode: random.digits(6),
    accountNumber: random.digits(8),
  };
}

/** Sorted random instants in [startMs, endMs): generation sorts once, and ties are broken by seq. */
function spreadTimes(random: SeededRandom, count: number, startMs: number, endMs: number): number[] {
  const span = endMs - startMs;
  const times = new Array<number>(count);
  // Whole seconds: banks report seconds, and it keeps `from`/`before` boundaries easy to hit exactly.
  for (let i = 0; i < count; i += 1) times[i] = startMs + Math.floor((random.next() * span) / 1000) * 1000;
  return times.sort((x, y) => x - y);
}

function ddmm(timeMs: number): string {
  const d = new Date(timeMs);
  return `${String(d.getUTCDate()).padStart(2, '0')}${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

type Draft = Omit<SandboxTransaction, 'id' | 'seq' | 'timeMs' | 'status' | 'json'>;

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

function finish(
  accountId: string,
  drafts: { timeMs: number; draft: Draft }[],
  random: SeededRandom,
): { transactions: SandboxTransaction[]; openingMinor: number } {
  drafts.sort((x, y) => x.timeMs - y.timeMs);
  // Built field by field, not by spreading the draft: every record gets the same shape (fast property
  // access when serialising), and the test build's spread helper is slow at this volume.
  const transactions = drafts.map(({ timeMs, draft }, seq): SandboxTransaction => ({
    id: stableUuid(`${accountId}:${seq}`),
    seq,
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
    json: [],
  }));
  // Open with enough in the account that the running balance never dips below a small cushion.
  let running = 0;
  let lowest = 0;
  for (const t of transactions) {
    running += t.amountMinor;
    if (running < lowest) lowest = running;
  }
  return { transactions, openingMinor: -lowest + random.int(20_000, 150_000) };
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
    nextAdminSeq: 1_000_000,
    pages: new Map<string, Buffer>(),
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

/**
 * Generates the three accounts of a user at an institution. `dayStartMs` is the start of the UTC day the
 * data is dated from; transactions fall in the two years before it.
 */
export function generateAccounts(seed: string, dayStartMs: number): SandboxAccount[] {
  const people = new SeededRandom(`${seed}:people`);
  const holderName = `${people.pick(FIRST_NAMES)} ${people.pick(LAST_NAMES)}`;
  const contacts = Array.from({ length: 12 }, () => counterpartyFrom(people));
  const startMs = dayStartMs - HISTORY_DAYS * DAY_MS;

  // Current account: a salary on the 25th of each month, the rest spread at random.
  const currentRandom = new SeededRandom(`${seed}:CURRENT`);
  const current = emptyAccount(seed, 'CURRENT', currentRandom, holderName);
  const employer = currentRandom.pick(EMPLOYERS);
  const salaryMinor = currentRandom.int(2600, 4200) * 100;
  const drafts: { timeMs: number; draft: Draft }[] = [];
  for (const monthStart of monthStarts(dayStartMs, 24)) {
    const timeMs = monthStart + 24 * DAY_MS + 6 * 3600_000;
    if (timeMs < startMs || timeMs >= dayStartMs) continue;
    drafts.push({
      timeMs,
      draft: {
        amountMinor: salaryMinor + currentRandom.int(0, 30) * 100,
        description: `BGC ${employer} SALARY`,
        reference: 'SALARY',
        kind: KINDS.salary,
        category: 'salary',
        counterparty: {
          name: employer,
          sortCode: currentRandom.digits(6),
          accountNumber: currentRandom.digits(8),
        },
      },
    });
  }
  for (const timeMs of spreadTimes(
    currentRandom,
    CURRENT_ACCOUNT_TRANSACTIONS - drafts.length,
    startMs,
    dayStartMs,
  )) {
    drafts.push({ timeMs, draft: currentAccountDraft(currentRandom, timeMs, contacts) });
  }
  const currentTx = finish(current.id, drafts, currentRandom);

  // Savings: monthly interest, deposits from the current account, occasional withdrawals.
  const savingsRandom = new SeededRandom(`${seed}:SAVINGS`);
  const savings = emptyAccount(seed, 'SAVINGS', savingsRandom, holderName);
  const own: Counterparty = {
    name: holderName,
    sortCode: current.identifications[0].identification,
    accountNumber: current.identifications[1].identification,
  };
  const savingsDrafts: { timeMs: number; draft: Draft }[] = [];
  for (const monthStart of monthStarts(dayStartMs, 24)) {
    if (monthStart < startMs) continue;
    savingsDrafts.push({
      timeMs: monthStart,
      draft: {
        amountMinor: savingsRandom.int(50, 1500),
        description: 'INTEREST PAID',
        reference: 'GROSS INTEREST',
        kind: KINDS.interest,
        category: 'interest',
      },
    });
  }
  for (const timeMs of spreadTimes(
    savingsRandom,
    SAVINGS_ACCOUNT_TRANSACTIONS - savingsDrafts.length,
    startMs,
    dayStartMs,
  )) {
    const deposit = savingsRandom.next() < 0.62;
    savingsDrafts.push({
      timeMs,
      draft: deposit
        ? {
            amountMinor: savingsRandom.int(50, 600) * 100,
            description: `TRANSFER FROM ${own.name.toUpperCase()}`,
            reference: 'Savings',
            kind: KINDS.transferIn,
            category: 'savings',
            counterparty: own,
          }
        : {
            amountMinor: -savingsRandom.int(20, 800) * 100,
            description: `TRANSFER TO ${own.name.toUpperCase()}`,
            reference: 'Withdrawal',
            kind: KINDS.transferOut,
            category: 'savings',
            counterparty: own,
          },
    });
  }
  const savingsTx = finish(savings.id, savingsDrafts, savingsRandom);

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
      ...currentTx,
      beneficiaries,
      statements: statementsFor(current.id, dayStartMs),
    },
    {
      ...savings,
      ...savingsTx,
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
      statements: statementsFor(savings.id, dayStartMs),
    },
    {
      ...card,
      transactions: [],
      openingMinor: 0,
      beneficiaries: [],
      statements: statementsFor(card.id, dayStartMs),
    },
  ];
}
