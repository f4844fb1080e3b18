// What every panel shares: the customer's session (and the SDK client made with it), and a few DOM helpers.
import { BffError } from '@open-banking-bff/merchant-sdk';
import { formatMinor, toMinor } from './charts.js';

export const $ = (id) => document.getElementById(id);

export const state = {
  apiUrl: '',
  customer: JSON.parse(sessionStorage.getItem('customer') ?? 'null'),
  token: sessionStorage.getItem('token'),
  /** The SDK's client, made with the customer's session token (session.js). */
  bff: null,
  accounts: [],
};

/** Where the bank sends the customer back to: this page, with what they went there for. */
export const back = (query) => `${location.origin}/${query}`;

export function show(id, text, error = false) {
  $(id).textContent = text;
  $(id).classList.toggle('error', error);
}

/**
 * A BffError as a person reads it, with the tracingId to quote to support; anything else (a bug of the
 * page) as its message.
 */
export function errorText(error) {
  if (!(error instanceof BffError)) return String(error?.message ?? error);
  return `${error.message} (${error.code}${error.tracingId ? `, tracingId ${error.tracingId}` : ''})`;
}

/** The first page of one of the customer's lists, or nothing once its error is shown in `statusId`. */
export async function firstPage(list, statusId) {
  try {
    return (await list().page()).items;
  } catch (error) {
    show(statusId, errorText(error), true);
    return undefined;
  }
}

/** A table row of text cells; a cell is its text, or [text, class]. */
export function row(cells) {
  const tr = document.createElement('tr');
  for (const cell of cells) {
    const [text, cls] = Array.isArray(cell) ? cell : [cell, ''];
    const td = document.createElement('td');
    td.textContent = text;
    if (cls) td.className = cls;
    tr.append(td);
  }
  return tr;
}

/** `{ amount: "12.34", currency: "GBP" }` → "£12.34", exact (through integer minor units). */
export const money = (amount, currency) => formatMinor(toMinor(amount), currency);

/** Many events in a burst (a replay, a sync's pages) refresh each part of the page once. */
const timers = new Map();
export function soon(name, refresh) {
  clearTimeout(timers.get(name));
  timers.set(
    name,
    setTimeout(() => void refresh(), 250),
  );
}

/** "1 day", "2 days". */
export const dayCount = (n) => `${n} ${Math.abs(n) === 1 ? 'day' : 'days'}`;

export const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
