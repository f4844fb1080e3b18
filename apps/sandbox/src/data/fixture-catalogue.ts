/*
 * The sandbox's fixture vocabulary: bank transaction codes, merchants, billers, names and references,
 * and how many transactions each account holds. Kept whole: it is data, one list per kind, where the
 * generator and its drafts look words up; the record shapes they fill are in sandbox-records.ts.
 */

import type { IsoCode, MerchantFixture, TransactionKind } from './sandbox-records.js';

export const CURRENT_ACCOUNT_TRANSACTIONS = 6500;
export const SAVINGS_ACCOUNT_TRANSACTIONS = 467;

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
