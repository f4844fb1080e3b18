import type { AccountFixture, TransactionStatus } from './sandbox-records.js';
import type { TransactionLedger } from './transaction-ledger.js';

/* A sandbox account with its ledger, and what the control API changes in one. */

/** What the control API may change on a transaction; the id changes when a pending one books. */
export interface RecordChange {
  id: string;
  status?: TransactionStatus;
  amountMinor?: number;
  description?: string;
  reference?: string;
  timeMs?: number;
}

export interface LedgerTotals {
  count: number;
  bookedMinor: number;
  pendingMinor: number;
  oldestMs?: number;
  newestMs?: number;
}

export interface SandboxAccount extends AccountFixture {
  ledger: TransactionLedger;
  /** The id the account was generated with, when the bank lists it under another (per-consent ids). */
  generatedId?: string;
}

/** The id an account's generated data and control-API changes are kept under, whatever it is listed as. */
export const generatedIdOf = (account: SandboxAccount): string => account.generatedId ?? account.id;
