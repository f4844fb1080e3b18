/*
 * The sandbox's fixture vocabulary: record shapes, bank transaction codes, merchants and names.
 * Kept whole: it is data, one list per kind, where the generator and its drafts look words up.
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

/** An account's fixed facts; its transactions are read through its ledger (transaction-ledger.ts). */
export interface AccountFixture {
  id: string;
  kind: AccountKind;
  currency: string;
  type: string;
  description: string;
  nickname: string;
  holderName: string;
  identifications: { type: string; identification: string }[];
  creditLimitMinor?: number;
  beneficiaries: SandboxBeneficiary[];
  /** Made when asked for: two years of monthly statements are most of an account's facts by size. */
  statements(): SandboxStatement[];
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

export const GROCERIES = [
  m('Tesco', 'TESCO STORES', 'Tesco', '5411', 'groceries', 250, 9500),
  m("Sainsbury's", 'SAINSBURYS S/MKTS', "J Sainsbury's", '5411', 'groceries', 300, 8800),
  m('Waitrose', 'WAITROSE', 'John Lewis Partnership', '5411', 'groceries', 400, 7200),
  m('Lidl', 'LIDL GB', 'Schwarz Group', '5411', 'groceries', 200, 6400),
  m('Co-op Food', 'CO-OP GROUP FOOD', 'Co-operative Group', '5411', 'groceries', 150, 3500),
];
export const EATING_OUT = [
  m('Pret A Manger', 'PRET A MANGER', 'JAB Holding', '5814', 'eating_out', 250, 1200),
  m('Costa Coffee', 'COSTA COFFEE', 'Coca-Cola', '5814', 'eating_out', 220, 900),
  m('Greggs', 'GREGGS PLC', 'Greggs', '5814', 'eating_out', 150, 800),
  m("Nando's", 'NANDOS', "Nando's", '5812', 'eating_out', 1200, 4800),
  m('Deliveroo', 'DELIVEROO.CO.UK', 'DoorDash', '5812', 'eating_out', 1100, 4200),
];
export const TRANSPORT = [
  m('Transport for London', 'TFL TRAVEL CH', 'Transport for London', '4111', 'transport', 150, 1800),
  m('Trainline', 'TRAINLINE.COM', 'Trainline', '4112', 'transport', 800, 9500),
  m('Uber', 'UBER *TRIP', 'Uber', '4121', 'transport', 600, 4000),
  m('Shell', 'SHELL', 'Shell', '5541', 'transport', 2000, 8500),
];
export const SHOPPING = [
  m('Amazon', 'AMAZON.CO.UK', 'Amazon', '5942', 'shopping', 399, 12000),
  m('Boots', 'BOOTS', 'Walgreens Boots Alliance', '5912', 'health', 250, 4500),
  m('Argos', 'ARGOS LTD', "J Sainsbury's", '5311', 'shopping', 500, 15000),
  m('John Lewis', 'JOHN LEWIS', 'John Lewis Partnership', '5311', 'shopping', 1500, 18000),
  m('Apple', 'APPLE.COM/BILL', 'Apple', '5818', 'entertainment', 79, 2999),
];
export const SUBSCRIPTIONS = [
  m('Netflix', 'NETFLIX.COM', 'Netflix', '4899', 'entertainment', 1099, 1799),
  m('Spotify', 'SPOTIFY', 'Spotify', '4899', 'entertainment', 1199, 1199),
];
export const BILLERS = [
  { name: 'British Gas', category: 'bills', minMinor: 4500, maxMinor: 16000 },
  { name: 'Thames Water', category: 'bills', minMinor: 2500, maxMinor: 5500 },
  { name: 'EE Limited', category: 'bills', minMinor: 1800, maxMinor: 4500 },
  { name: 'Camden Council Tax', category: 'bills', minMinor: 12000, maxMinor: 19000 },
  { name: 'Aviva Insurance', category: 'insurance', minMinor: 2000, maxMinor: 6000 },
];
export const FIRST_NAMES = [
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
export const LAST_NAMES = [
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
export const EMPLOYERS = ['ACME WIDGETS LTD', 'NORTHWIND TRADING', 'BLUE RIVER SYSTEMS', 'CONTOSO UK LTD'];
export const TRANSFER_REFERENCES = [
  'Rent share',
  'Dinner',
  'Thanks',
  'Holiday',
  'Birthday',
  'Bills',
  'Tickets',
  'Groceries',
];

export const dayNumberOf = (ms: number): number => Math.floor(ms / DAY_MS);

/**
 * Running balances count from the start of this day, before any window: a transaction's balance is the
 * account's base plus every amount up to it, so it never changes once generated.
 */
export const BALANCE_EPOCH_DAY = Date.UTC(2024, 0, 1) / DAY_MS;

export const SEQ_PER_DAY = 1024;
export const ADMIN_SEQ_BASE = 2 ** 45;
