import { FIXTURE_CURRENCY, toMinor } from '../core/index.js';
import { KINDS } from './fixture-catalogue.js';
import type { SandboxTransaction, TransactionStatus } from './sandbox-records.js';
import type { TransactionLedger } from './transaction-ledger.js';

/**
 * A control-API change, recorded with every value it resolved (ids, dates, the generated record's
 * seq), so replaying it on data generated for another sandbox day gives the same result. Targets no
 * longer there are skipped.
 */
export type AdminChange =
  | { type: 'add'; accountId: string; tx: Omit<SandboxTransaction, 'balanceMinor'> }
  | {
      type: 'change';
      accountId: string;
      transactionId: string;
      seq?: number;
      id: string;
      status?: TransactionStatus;
      change: TransactionChange;
    }
  | { type: 'delete'; accountId: string; transactionId: string; seq?: number };

export interface NewTransactionInput {
  amount: number;
  description?: string;
  reference?: string;
  status?: TransactionStatus;
  date?: string;
  merchantName?: string;
  category?: string;
  id?: string;
}

export interface TransactionChange {
  amount?: number;
  description?: string;
  reference?: string;
  status?: TransactionStatus;
  date?: string;
  id?: string;
}

/** The transaction a control-API add records, every value resolved so a replay gives the same one. */
export function adminTransaction(
  input: NewTransactionInput,
  id: string,
  seq: number,
  nowMs: number,
): Omit<SandboxTransaction, 'balanceMinor'> {
  const amountMinor = toMinor(input.amount, FIXTURE_CURRENCY);
  const merchant = input.merchantName
    ? {
        name: input.merchantName,
        descriptor: input.merchantName.toUpperCase(),
        parentGroup: input.merchantName,
        mcc: '5999',
        category: input.category ?? 'shopping',
        minMinor: 0,
        maxMinor: 0,
      }
    : undefined;
  const kind = merchant
    ? amountMinor < 0
      ? KINDS.card
      : KINDS.refund
    : amountMinor < 0
      ? KINDS.transferOut
      : KINDS.transferIn;
  return {
    id,
    seq,
    timeMs: input.date ? Date.parse(input.date) : nowMs,
    status: input.status ?? 'BOOKED',
    amountMinor,
    description:
      input.description ?? (merchant ? merchant.descriptor : amountMinor < 0 ? 'PAYMENT' : 'CREDIT'),
    reference: input.reference ?? `SBX ${seq}`,
    kind,
    category: input.category ?? merchant?.category ?? (amountMinor < 0 ? 'transfers' : 'income'),
    merchant,
    counterparty: undefined,
  };
}

export function applyChange(ledger: TransactionLedger, change: AdminChange): void {
  switch (change.type) {
    case 'add':
      ledger.add({ ...change.tx, balanceMinor: undefined });
      return;
    case 'change': {
      const { amount, description, reference, date } = change.change;
      ledger.change(
        change.transactionId,
        {
          id: change.id,
          status: change.status,
          amountMinor: amount === undefined ? undefined : toMinor(amount, FIXTURE_CURRENCY),
          description,
          reference,
          timeMs: date === undefined ? undefined : Date.parse(date),
        },
        change.seq,
      );
      return;
    }
    case 'delete':
      ledger.remove(change.transactionId, change.seq);
  }
}
