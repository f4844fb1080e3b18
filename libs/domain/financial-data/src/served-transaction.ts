import { createHash } from 'node:crypto';
import type { Transaction } from '#libs/upstream-client';
import { moneyToStrings } from './money.js';

/**
 * A transaction as the API serves it, stored or live: the upstream record with every field it carries,
 * every `amount` a decimal string, and the fields a merchant always reads always present. The stored
 * list and the live list both build their records here, so they cannot drift apart.
 */
export type ServedTransaction = Omit<Transaction, 'id' | 'date' | 'amount' | 'currency'> & {
  /** The upstream's id; for a record the upstream gives none, the stable key we dedupe it by. */
  id: string;
  date: string;
  amount: string;
  currency: string;
};

/** A record that cannot be served: it names what is missing (a sync fails rather than guess). */
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

/**
 * `tx` as served. `amount` and `currency` come from the top level or, as real-time records carry them,
 * from `transactionAmount`; the account's currency stands in for a record that names none. Converted in
 * place: the records were parsed for this request or this sync alone.
 */
export function servedTransaction(
  tx: Transaction,
  accountCurrency: string | null,
  key = dedupeKeyOf(tx),
): ServedTransaction {
  const unusable = (what: string) =>
    new UnusableTransactionError(`transaction ${tx.id ?? '(no id)'} has no usable ${what}`);
  const date = dateOf(tx);
  if (!date || Number.isNaN(Date.parse(date))) throw unusable('date');
  const amount = tx.amount ?? tx.transactionAmount?.amount;
  if (typeof amount !== 'number' || !Number.isFinite(amount)) throw unusable('amount');
  const currency = tx.currency ?? tx.transactionAmount?.currency ?? accountCurrency;
  if (typeof currency !== 'string' || currency === '') throw unusable('currency');
  const id = typeof tx.id === 'string' && tx.id !== '' ? tx.id : key;
  return moneyToStrings({ ...tx, id, date, amount, currency }) as unknown as ServedTransaction;
}
