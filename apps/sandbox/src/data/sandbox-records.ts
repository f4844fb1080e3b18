/*
 * Sandbox records: the transactions, beneficiaries, statements and account facts the sandbox serves, and
 * the day/sequence model that orders them. A day is a UTC day number (dayNumberOf); a transaction's seq
 * is `day * SEQ_PER_DAY + index` when generated and ADMIN_SEQ_BASE onwards when the control API added it.
 * Kept apart from fixture-catalogue.ts's word lists because the ledger, the wire format and the accounts
 * use only these shapes and numbers, never the vocabulary.
 */

export const DAY_MS = 86_400_000;
export const HISTORY_DAYS = 730;

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

export const dayNumberOf = (ms: number): number => Math.floor(ms / DAY_MS);

/**
 * Running balances count from the start of this day, before any window: a transaction's balance is the
 * account's base plus every amount up to it, so it never changes once generated.
 */
export const BALANCE_EPOCH_DAY = Date.UTC(2024, 0, 1) / DAY_MS;

export const SEQ_PER_DAY = 1024;
export const ADMIN_SEQ_BASE = 2 ** 45;
