import { amountToApi } from '#libs/domain/accounts';
import type { UpstreamRawBody } from '#libs/upstream-client';
import { moneyToStrings } from './money.js';

const AMOUNT_KEY = '"amount":';
const [OPEN_BRACE, COMMA, MINUS, PLUS, ZERO, NINE, DOT, LOWER_E, UPPER_E] = [...'{,-+09.eE'].map((c) =>
  c.charCodeAt(0),
);
const isDigit = (code: number) => code >= ZERO && code <= NINE;

/**
 * An upstream list page's records as the API serves them (every numeric `amount` a decimal string, as
 * `moneyToStrings` makes them), as JSON text joined with commas, ready to go inside `[` `]`.
 *
 * Printing 250 parsed records again cost more than rewriting their amounts. So when the body is laid out
 * as `JSON.stringify` lays out its own envelope (checked on everything around the records and on the
 * first and the last record), the records are cut out of the text as they came and only their amounts
 * are rewritten. Any other layout (spaces, other escapes, keys in another order) takes the sure way: the
 * parsed records, converted and printed. Both give the same records; records between the first and the
 * last keep the upstream's own escapes, which mean the same. Text, not bytes: the answer stays on V8's
 * heap, which a collection gives back, where 200 KB buffers per answer kept the api's RSS up after load.
 */
export function forwardedRecords(records: unknown[], raw: UpstreamRawBody | undefined): string {
  const cut = raw ? cutRecords(records, raw.text, raw.envelope) : null;
  if (cut !== null) return amountsAsStrings(cut);
  return moneyToStrings(records)
    .map((record) => JSON.stringify(record))
    .join(',');
}

/** The text between the `[` and `]` of the envelope's `data`, or null when the layout is not the expected one. */
function cutRecords(records: unknown[], text: string, envelope: Record<string, unknown>): string | null {
  const keys = Object.keys(envelope);
  const at = keys.indexOf('data');
  if (at === -1 || envelope.data !== records) return null;
  const member = (key: string) => `${JSON.stringify(key)}:${JSON.stringify(envelope[key])}`;
  const head = `{${keys
    .slice(0, at)
    .map((key) => `${member(key)},`)
    .join('')}"data":[`;
  const tail = `]${keys
    .slice(at + 1)
    .map((key) => `,${member(key)}`)
    .join('')}}`;
  if (text.length < head.length + tail.length || !text.startsWith(head) || !text.endsWith(tail)) return null;
  const inner = text.slice(head.length, text.length - tail.length);
  if (records.length === 0) return inner === '' ? inner : null;
  // What lies between head and tail must be the parsed records: the first and the last as printed. (A
  // body hiding a second `data` key between them would still read, last key winning, as it parsed here.)
  if (
    !inner.startsWith(JSON.stringify(records[0])) ||
    !inner.endsWith(JSON.stringify(records[records.length - 1]))
  )
    return null;
  return inner;
}

/**
 * Every `"amount":<number>` key of valid JSON rewritten as `"amount":"<decimal>"`. A `"` right after `{`
 * or `,` can only open a key (inside a string it is escaped), so a match is never inside a string value.
 */
function amountsAsStrings(json: string): string {
  const parts: string[] = [];
  let copied = 0;
  for (let at = json.indexOf(AMOUNT_KEY); at !== -1; at = json.indexOf(AMOUNT_KEY, at + AMOUNT_KEY.length)) {
    const before = json.charCodeAt(at - 1);
    if (before !== OPEN_BRACE && before !== COMMA) continue;
    const start = at + AMOUNT_KEY.length;
    const end = numberEnd(json, start);
    if (end === start) continue;
    parts.push(json.slice(copied, start), `"${amountToApi(Number(json.slice(start, end)))}"`);
    copied = end;
  }
  if (copied === 0) return json;
  parts.push(json.slice(copied));
  return parts.join('');
}

/** Where the JSON number starting at `start` ends (`start` itself when there is none). */
function numberEnd(json: string, start: number): number {
  let i = start;
  if (json.charCodeAt(i) === MINUS) i += 1;
  if (!isDigit(json.charCodeAt(i))) return start;
  while (isDigit(json.charCodeAt(i))) i += 1;
  if (json.charCodeAt(i) === DOT) {
    i += 1;
    while (isDigit(json.charCodeAt(i))) i += 1;
  }
  const e = json.charCodeAt(i);
  if (e === LOWER_E || e === UPPER_E) {
    i += 1;
    const sign = json.charCodeAt(i);
    if (sign === PLUS || sign === MINUS) i += 1;
    while (isDigit(json.charCodeAt(i))) i += 1;
  }
  return i;
}
