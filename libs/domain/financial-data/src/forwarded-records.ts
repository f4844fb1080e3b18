import { Buffer, isUtf8 } from 'node:buffer';
import { amountToApi } from '#libs/domain/accounts';
import { moneyToStrings } from './money.js';

const AMOUNT_KEY = Buffer.from('"amount":');
const [OPEN_BRACE, COMMA, MINUS, PLUS, ZERO, NINE, DOT, LOWER_E, UPPER_E] = [...'{,-+09.eE'].map((c) =>
  c.charCodeAt(0),
);
const isDigit = (byte: number) => byte >= ZERO && byte <= NINE;

/** What the upstream client keeps of a body when asked: the bytes as received and the parsed envelope. */
export interface ReceivedBody {
  bytes: Buffer;
  envelope: Record<string, unknown>;
}

/**
 * An upstream list page's records as the API serves them (every numeric `amount` a decimal string, as
 * `moneyToStrings` makes them), joined with commas, as UTF-8 ready to go inside `[` `]`: the pieces, in
 * order, so that the answer is copied together once.
 *
 * Printing 250 parsed records again, and encoding the text, cost about as much as the page's parse. So
 * when the body is laid out as `JSON.stringify` lays out its own envelope (checked on everything around
 * the records and on the first and the last record) and is valid UTF-8, the records are cut out of the
 * bytes as they came and only their amounts are rewritten. Any other layout (spaces, other escapes, keys
 * in another order) takes the sure way: the parsed records, converted and printed. Both give the same
 * records; records between the first and the last keep the upstream's own escapes, which mean the same.
 */
export function forwardedRecords(records: unknown[], raw: ReceivedBody | undefined): Buffer[] {
  const cut = raw ? cutRecords(records, raw.bytes, raw.envelope) : null;
  if (cut !== null) return amountsAsStrings(cut);
  return [
    Buffer.from(
      moneyToStrings(records)
        .map((record) => JSON.stringify(record))
        .join(','),
    ),
  ];
}

/** The bytes between the `[` and `]` of the envelope's `data`, or null when the layout is not the expected one. */
function cutRecords(records: unknown[], bytes: Buffer, envelope: Record<string, unknown>): Buffer | null {
  const keys = Object.keys(envelope);
  const at = keys.indexOf('data');
  if (at === -1 || envelope.data !== records) return null;
  const member = (key: string) => `${JSON.stringify(key)}:${JSON.stringify(envelope[key])}`;
  const head = Buffer.from(
    `{${keys
      .slice(0, at)
      .map((key) => `${member(key)},`)
      .join('')}"data":[`,
  );
  const tail = Buffer.from(
    `]${keys
      .slice(at + 1)
      .map((key) => `,${member(key)}`)
      .join('')}}`,
  );
  const end = bytes.length - tail.length;
  if (end < head.length || !startsWith(bytes, head, 0) || !startsWith(bytes, tail, end)) return null;
  const inner = bytes.subarray(head.length, end);
  if (records.length === 0) return inner.length === 0 ? inner : null;
  // What lies between head and tail must be the parsed records: the first and the last as printed. (A
  // body hiding a second `data` key between them would still read, last key winning, as it parsed here.)
  const first = Buffer.from(JSON.stringify(records[0]));
  const last = Buffer.from(JSON.stringify(records[records.length - 1]));
  if (!startsWith(inner, first, 0) || !startsWith(inner, last, inner.length - last.length)) return null;
  // Text decoding replaced any invalid sequence before the parse; bytes passed on must not carry one.
  return isUtf8(inner) ? inner : null;
}

function startsWith(bytes: Buffer, part: Buffer, at: number): boolean {
  return (
    at >= 0 &&
    at + part.length <= bytes.length &&
    bytes.compare(part, 0, part.length, at, at + part.length) === 0
  );
}

/**
 * Every `"amount":<number>` key of valid JSON rewritten as `"amount":"<decimal>"`. A `"` right after `{`
 * or `,` can only open a key (inside a string it is escaped), so a match is never inside a string value.
 */
function amountsAsStrings(json: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let copied = 0;
  for (let at = json.indexOf(AMOUNT_KEY); at !== -1; at = json.indexOf(AMOUNT_KEY, at + AMOUNT_KEY.length)) {
    const before = json[at - 1];
    if (before !== OPEN_BRACE && before !== COMMA) continue;
    const start = at + AMOUNT_KEY.length;
    const end = numberEnd(json, start);
    if (end === start) continue;
    parts.push(
      json.subarray(copied, start),
      Buffer.from(`"${amountToApi(Number(json.toString('latin1', start, end)))}"`, 'latin1'),
    );
    copied = end;
  }
  parts.push(json.subarray(copied));
  return parts;
}

/** Where the JSON number starting at `start` ends (`start` itself when there is none). */
function numberEnd(json: Buffer, start: number): number {
  let i = start;
  if (json[i] === MINUS) i += 1;
  if (!isDigit(json[i] ?? -1)) return start;
  while (isDigit(json[i] ?? -1)) i += 1;
  if (json[i] === DOT) {
    i += 1;
    while (isDigit(json[i] ?? -1)) i += 1;
  }
  if (json[i] === LOWER_E || json[i] === UPPER_E) {
    i += 1;
    if (json[i] === PLUS || json[i] === MINUS) i += 1;
    while (isDigit(json[i] ?? -1)) i += 1;
  }
  return i;
}
