import { createHash } from 'node:crypto';
import type { Transaction } from '#libs/upstream-client';
import { moneyToStrings } from './money.js';

/*
 * Two forms of a transaction, kept apart so that what we derive is never stored:
 * - stored (`transactions.raw`): the record as the upstream sent it, each `amount` a decimal string (money
 *   is never a float). A sync compares it with what the upstream sends next, so a change of ours to the
 *   served form never reads as the bank changing a record.
 * - served: the stored form with what the BFF derives, set when it is read (stored, live and change feed
 *   all build it here). A field derived here reaches every record at once, stored ones included: no
 *   backfill.
 */

/** A transaction as a sync stores it (`transactions.raw`): the upstream's record, amounts as strings. */
export type StoredTransaction = MoneyAsStrings<Transaction>;

/** `T` with every numeric `amount` a decimal string, at any depth: what moneyToStrings makes of it. */
type MoneyAsStrings<T> = T extends string | number | boolean | null | undefined
  ? T
  : T extends readonly (infer U)[]
    ? MoneyAsStrings<U>[]
    : { [K in keyof T]: K extends 'amount' ? Exclude<T[K], number> | string : MoneyAsStrings<T[K]> };

/** `T` without `Keys`, its other fields kept (Omit of a record with an index signature keeps only that). */
type Without<T, Keys extends string> = { [K in keyof T as K extends Keys ? never : K]: T[K] };

/** A transaction as the API serves it, stored or live: the stored form with the fields always present. */
export type ServedTransaction = Without<StoredTransaction, 'id' | 'date' | 'amount' | 'currency'> & {
  /** The upstream's id; for a record the upstream gives none, the stable key we dedupe it by. */
  id: string;
  date: string;
  amount: string;
  currency: string;
};

/** What stands in for a field a record lacks: its dedupe key for `id`, the account's currency. */
export interface ServedFallbacks {
  key: string;
  currency: string | null;
}

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
export function dateOf(
  tx: Pick<Transaction, 'date' | 'bookingDateTime' | 'valueDateTime'>,
): string | undefined {
  return tx.date ?? tx.bookingDateTime ?? tx.valueDateTime;
}

/**
 * The fields servedFields sets. A record that has each as a non-empty string is served as it is: keep a
 * field derived here in this list (test/served-transactions.e2e-spec.ts holds servedFields to it).
 */
export const SERVED_FIELDS = ['id', 'date', 'amount', 'currency'] as const;

/** The `id` a record is served with: the upstream's, else its dedupe key. */
export const servedId = (record: Pick<Transaction, 'id'>, key: string): string =>
  typeof record.id === 'string' && record.id !== '' ? record.id : key;

/**
 * The fields every served record has, from `record` (stored form) or its fallbacks: `amount` and `currency`
 * from the top level or, as real-time records carry them, from `transactionAmount`; the account's
 * currency for a record that names none. Throws UnusableTransactionError for a record without them.
 */
export function servedFields(
  record: StoredTransaction,
  fallbacks: ServedFallbacks,
): Pick<ServedTransaction, (typeof SERVED_FIELDS)[number]> {
  const unusable = (what: string) =>
    new UnusableTransactionError(`transaction ${record.id ?? '(no id)'} has no usable ${what}`);
  const date = dateOf(record);
  if (!date || Number.isNaN(Date.parse(date))) throw unusable('date');
  // A string: storedTransaction made it one from a finite number.
  const amount: unknown = record.amount ?? record.transactionAmount?.amount;
  if (typeof amount !== 'string') throw unusable('amount');
  const currency = record.currency ?? record.transactionAmount?.currency ?? fallbacks.currency;
  if (typeof currency !== 'string' || currency === '') throw unusable('currency');
  return { id: servedId(record, fallbacks.key), date, amount, currency };
}

/**
 * An upstream record as a sync stores it: every numeric `amount` a decimal string, in place (the records
 * were parsed for this sync or request alone). Refuses a record whose amount is not a number: the string
 * it would store could not be told from one we made.
 */
export function storedTransaction(tx: Transaction): StoredTransaction {
  const amount = tx.amount ?? tx.transactionAmount?.amount;
  if (typeof amount !== 'number' || !Number.isFinite(amount))
    throw new UnusableTransactionError(`transaction ${tx.id ?? '(no id)'} has no usable amount`);
  return moneyToStrings(tx) as StoredTransaction;
}

/**
 * `record` (stored form) as served, set in place: the record was parsed for this request alone. A field
 * the BFF derives for every transaction goes in servedFields and SERVED_FIELDS.
 */
export function servedTransaction(record: StoredTransaction, fallbacks: ServedFallbacks): ServedTransaction {
  const served: ServedTransaction = Object.assign(record, servedFields(record, fallbacks));
  return served;
}

/** A record of a stored page that lacks a served field: where it is in the page, and its fallbacks. */
export interface UnmappedRecord extends ServedFallbacks {
  /** Its index in the page. */
  at: number;
}

/**
 * A stored page's records (`transactions.raw` texts, joined with commas) as served, as JSON text. A record
 * that carries each of SERVED_FIELDS itself, as a non-empty string (Postgres says so as it reads the page,
 * see carriesServedFields), would not be changed by servedFields: a page of only such records is served
 * as its text, unparsed, and costs what it did when the served form was stored. A page with `unmapped`
 * records is parsed, those records mapped, and printed again.
 */
export function servedPageJson(records: string, unmapped: readonly UnmappedRecord[]): string {
  if (unmapped.length === 0) return records;
  const page = JSON.parse(`[${records}]`) as StoredTransaction[];
  for (const { at, ...fallbacks } of unmapped) servedTransaction(page[at], fallbacks);
  return page.map((record) => JSON.stringify(record)).join(',');
}
