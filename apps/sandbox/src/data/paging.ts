import { createHmac, timingSafeEqual } from 'node:crypto';
import { SandboxError } from '../core/index.js';

/**
 * Query rules of statements and transactions (upstream spec §4.2.1): inclusive `from`/`before`, `limit` 1..1000
 * (default 1000), `sort` `date` or `-date` (default descending), `offset` ≥ 0; and the opaque cursors of
 * the real-time transactions.
 */

export const MAX_LIMIT = 1000;
/** The sandbox institutions' page size for cursor paging (the service sets none; an institution may). */
export const CURSOR_PAGE_SIZE = 250;

// yyyy-MM-dd'T'HH:mm:ss.SSSZ, and the ISO forms around it: optional seconds and fraction, Z or an offset
// (+0000, +00:00; a space where an unencoded `+` was decoded). A plain date is matched to be refused by
// name: the upstream documents the date-time form only, and a client sending dates must learn it here.
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+\- ]\d{2}:?\d{2})?)?$/;

/**
 * Milliseconds since the epoch, or undefined for an absent or empty value (the upstream's own links carry
 * bare `from&before`). A plain date (no time) is refused, as the upstream's documented form has one.
 */
export function parseDateParam(parameter: string, value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const match = DATE_TIME.exec(value.trim());
  const invalid = () =>
    SandboxError.invalidProperty(
      parameter,
      `${parameter} must be a date-time in the format yyyy-MM-dd'T'HH:mm:ss.SSSZ, e.g. 2024-01-31T00:00:00.000Z`,
    );
  if (!match || match[4] === undefined) throw invalid();
  const [, y, mo, d, h, mi, s, frac, zone] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h ?? 0);
  const minute = Number(mi ?? 0);
  const second = Number(s ?? 0);
  const millis = frac ? Number(frac.slice(0, 3).padEnd(3, '0')) : 0;
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) throw invalid();
  // Date.UTC reads years 0–99 as 1900–1999; setUTCFullYear does not.
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(hour, minute, second, millis);
  let ms = at.getTime();
  if (at.getUTCDate() !== day) throw invalid();
  if (zone && zone !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const offsetMinutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4));
    if (offsetMinutes > 18 * 60) throw invalid();
    ms -= sign * offsetMinutes * 60_000;
  }
  return ms;
}

/** The inclusive window a request may see: its own from/before, inside the consent's transaction range. */
export interface Window {
  fromMs: number;
  beforeMs: number;
}

export function windowOf(
  fromMs: number | undefined,
  beforeMs: number | undefined,
  consent: { transactionFrom?: string; transactionTo?: string },
): Window {
  let lo = fromMs ?? -Infinity;
  let hi = beforeMs ?? Infinity;
  if (consent.transactionFrom) lo = Math.max(lo, Date.parse(consent.transactionFrom));
  if (consent.transactionTo) hi = Math.min(hi, Date.parse(consent.transactionTo));
  return { fromMs: lo, beforeMs: hi };
}

/** The `yyyy-MM-dd'T'HH:mm:ss.SSSZ` echo of a parsed bound. */
export const echoDate = (ms: number | undefined) =>
  ms === undefined ? undefined : new Date(ms).toISOString();

/** A query string in the upstream's style: parameters without a value appear bare (`from&before`). */
export function queryString(params: [string, string | number | undefined][]): string {
  return params
    .map(([key, value]) =>
      value === undefined || value === '' ? key : `${key}=${encodeURIComponent(String(value))}`,
    )
    .join('&');
}

/** What a cursor carries: the account, the window fixed by the initial request, and the page. */
export interface CursorState {
  a: string;
  f: number | null;
  b: number | null;
  p: number;
}

/**
 * Cursors are opaque to clients and signed, so a changed or made-up cursor is a 400, never a page of
 * someone else's data.
 */
export class CursorCodec {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('sandbox-transactions-cursor-v1').digest();
  }

  encode(state: CursorState): string {
    const body = Buffer.from(JSON.stringify(state)).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  decode(cursor: string, accountId: string): CursorState {
    const invalid = SandboxError.invalidProperty('cursor', 'The cursor is not valid for this account');
    const [body, signature, extra] = cursor.split('.');
    if (!body || !signature || extra !== undefined) throw invalid;
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid;
    let state: CursorState;
    try {
      state = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CursorState;
    } catch {
      throw invalid;
    }
    if (state.a !== accountId || !Number.isInteger(state.p) || state.p < 0) throw invalid;
    return state;
  }

  private sign(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url').slice(0, 22);
  }
}
