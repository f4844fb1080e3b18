import { createHash } from 'node:crypto';
import { moneyToStrings } from '#libs/domain/financial-data';
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
  /** The upstream record as merchants read it: every `amount` a decimal string. */
  raw: Transaction;
}

/** A record the sync cannot store: it names what is missing, and the run fails rather than guess. */
export class UnusableTransactionError extends Error {}

/**
 * The key that makes a transaction the same one across syncs: its upstream id, else the upstream's own
 * enrichment hash, else a hash of the whole record. Prefixed so the three kinds can never collide.
 */
export function dedupeKeyOf(tx: Transaction): string {
  if (typeof tx.id === 'string' && tx.id.length > 0 && tx.id.length <= 240) return `id:${tx.id}`;
  const hash = tx.enrichment?.transactionHash?.hash;
  if (typeof hash === 'string' && hash.length > 0 && hash.length <= 240) return `hash:${hash}`;
  return `sha:${createHash('sha256').update(JSON.stringify(tx)).digest('base64url')}`;
}

/** The date a transaction sorts and filters by: `date`, else when it was booked, else its value date. */
export function dateOf(tx: Transaction): string | undefined {
  return tx.date ?? tx.bookingDateTime ?? tx.valueDateTime;
}

/** A row for the page statement; `tx`'s amounts are turned into decimal strings on the way. */
export function toTransactionRow(tx: Transaction, accountCurrency: string | null): TransactionRow {
  const date = dateOf(tx);
  if (!date || Number.isNaN(Date.parse(date))) {
    throw new UnusableTransactionError(`transaction ${tx.id ?? '(no id)'} has no usable date`);
  }
  const amount = tx.amount ?? tx.transactionAmount?.amount;
  if (typeof amount !== 'number' || !Number.isFinite(amount)) {
    throw new UnusableTransactionError(`transaction ${tx.id ?? '(no id)'} has no usable amount`);
  }
  return {
    i: uuidV7(),
    k: dedupeKeyOf(tx),
    d: date,
    b: tx.bookingDateTime ?? null,
    v: tx.valueDateTime ?? null,
    s: typeof tx.status === 'string' ? tx.status.slice(0, 64) : 'UNKNOWN',
    a: amount,
    c: (tx.currency ?? tx.transactionAmount?.currency ?? accountCurrency ?? '').slice(0, 3),
    de: tx.description ?? null,
    re: tx.reference ?? null,
    // Stored as the API serves it, so a read splices stored text instead of parsing and printing every
    // record. Converted in place: the page was parsed for this sync alone.
    raw: moneyToStrings(tx),
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
