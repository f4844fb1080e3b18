import {
  dedupeKeyOf,
  servedFields,
  type StoredTransaction,
  storedTransaction,
} from '#libs/domain/financial-data';
import { uuidV7 } from '#libs/ids';
import type { Transaction } from '#libs/upstream-client';

/**
 * One upstream transaction as a row of the page written in one statement (see TransactionRepository).
 * Short keys: a page of 1,000 travels to Postgres as one JSON text.
 */
export interface TransactionRow {
  /** Our id, used only when the row is new. */
  i: string;
  /** Dedupe key: the upstream id, else the enrichment hash, else a hash of the record. */
  k: string;
  d: string;
  b: string | null;
  v: string | null;
  s: string;
  /** The upstream's JSON number as is: Postgres reads its shortest decimal text into `numeric` exactly. */
  a: number;
  c: string;
  de: string | null;
  re: string | null;
  /** The record as the upstream sent it, amounts as strings (see storedTransaction). */
  raw: StoredTransaction;
}

/**
 * A row for the page statement; `tx`'s amounts are turned into decimal strings on the way. Refused
 * (UnusableTransactionError) when the record could not be served: no date, amount or currency.
 */
export function toTransactionRow(tx: Transaction, accountCurrency: string | null): TransactionRow {
  const key = dedupeKeyOf(tx);
  const amount = (tx.amount ?? tx.transactionAmount?.amount) as number;
  const raw = storedTransaction(tx);
  const served = servedFields(raw, { key, currency: accountCurrency });
  return {
    i: uuidV7(),
    k: key,
    d: served.date,
    b: tx.bookingDateTime ?? null,
    v: tx.valueDateTime ?? null,
    s: typeof tx.status === 'string' ? tx.status.slice(0, 64) : 'UNKNOWN',
    a: amount,
    c: served.currency.slice(0, 3),
    de: tx.description ?? null,
    re: tx.reference ?? null,
    raw,
  };
}

/**
 * A page as rows, one per dedupe key (the last occurrence wins): two records with one key in a single
 * `INSERT … ON CONFLICT` would make Postgres refuse the whole statement.
 */
export function pageRows(records: readonly Transaction[], accountCurrency: string | null): TransactionRow[] {
  const byKey = new Map<string, TransactionRow>();
  for (const tx of records) {
    const row = toTransactionRow(tx, accountCurrency);
    byKey.set(row.k, row);
  }
  return [...byKey.values()];
}
