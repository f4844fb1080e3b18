/**
 * A list page's records as received, for a caller that forwards them rather than reads them: where they
 * lie in the body, how many there are, and where the numbers under one key are (`numberSpans`: start and
 * end offsets in pairs, ascending), so the caller can rewrite just those.
 */
export class ScannedRecords {
  constructor(
    readonly body: string,
    /** The records' text is `body.slice(start, end)`: what lies between the `[` and `]` of `data`. */
    readonly start: number,
    readonly end: number,
    readonly count: number,
    readonly numberSpans: readonly number[],
  ) {}
}

/** The scan's result: the records, and the envelope without them (its `data` an empty array). */
export interface ScannedList {
  records: ScannedRecords;
  envelope: Record<string, unknown>;
}

const MAX_DEPTH = 64;
const [QUOTE, COMMA, COLON, MINUS, PLUS, DOT, ZERO, ONE, NINE] = [...'",:-+.019'].map((c) => c.charCodeAt(0));
const [OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY, LOWER_E, UPPER_E, LOWER_U] = [...'{}[]eEu'].map(
  (c) => c.charCodeAt(0),
);
const [T, F, N] = [...'tfn'].map((c) => c.charCodeAt(0));
/** The characters a JSON escape may name after its backslash (`u` is checked with its four hex digits). */
const SIMPLE_ESCAPE = new Set([...'"\\/bfnrt'].map((c) => c.charCodeAt(0)));
const isDigit = (c: number) => c >= ZERO && c <= NINE;
const isHex = (c: number) => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/**
 * Whether any byte is below 0x20: a control character, which JSON allows only as whitespace between
 * tokens and never raw inside a string. Read a word at a time: `(w - 0x20202020) & ~w & 0x80808080` is
 * non-zero exactly when one of w's four bytes is below 0x20 (the `~w` drops bytes of 0x80 and above,
 * which UTF-8 uses for everything past ASCII).
 */
export function hasControlBytes(bytes: Uint8Array): boolean {
  let at = 0;
  while (at < bytes.length && (bytes.byteOffset + at) % 4 !== 0) if (bytes[at++] < 0x20) return true;
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset + at, (bytes.length - at) >>> 2);
  for (let k = 0; k < words.length; k += 1) {
    const w = words[k];
    if (((w - 0x20202020) & ~w & 0x80808080) !== 0) return true;
  }
  for (at += words.length * 4; at < bytes.length; at += 1) if (bytes[at] < 0x20) return true;
  return false;
}

/**
 * Reads a list body (`{ …, "data": [ {record}, … ], … }`; `body` is `bytes` decoded as UTF-8) without
 * building its records: checks it is JSON, finds the records and counts them, and notes where every
 * number under `numberKey` inside them is.
 * Parsing a 250-record page cost the api more than anything else it did for `/transactions/live`, and
 * the objects it built were thrown away once printed again; this reads the same page two to four times
 * faster and builds nothing.
 *
 * It reads a strict subset of JSON only: the compact layout `JSON.stringify` writes (no whitespace
 * between tokens), keys without escapes, every record an object, `data` once, at most 64 levels, and
 * no control characters anywhere (checked on the bytes, see {@link hasControlBytes}). Anything else answers
 * null and the caller parses the body with `JSON.parse`, which accepts or refuses it; so a body this
 * accepts is always one `JSON.parse` accepts, with the same records (the spec checks both ways on
 * generated and broken bodies).
 */
export function scanListBody(bytes: Uint8Array, body: string, numberKey: string): ScannedList | null {
  if (hasControlBytes(bytes)) return null;
  const n = body.length;
  const containers = new Uint8Array(MAX_DEPTH); // 1: array, 0: object
  const numberSpans: number[] = [];
  let depth = 0;
  let at = 0;
  let nextBackslash = body.indexOf('\\');
  let start = -1;
  let end = -1;
  let count = 0;
  let expectKey = false;
  let underNumberKey = false;
  let dataNext = false;
  let c = body.charCodeAt(0);
  if (c !== OPEN_OBJECT) return null;
  for (;;) {
    // A value starts at `at`, its first character in `c`.
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth === MAX_DEPTH || (dataNext && c !== OPEN_ARRAY)) return null;
      underNumberKey = false;
      containers[depth++] = c === OPEN_ARRAY ? 1 : 0;
      c = body.charCodeAt(++at);
      if (dataNext) {
        dataNext = false;
        start = at;
        if (c !== CLOSE_ARRAY) {
          if (c !== OPEN_OBJECT) return null;
          count += 1;
          continue;
        }
      }
      if (c === (containers[depth - 1] ? CLOSE_ARRAY : CLOSE_OBJECT)) {
        depth -= 1;
        if (depth === 1 && start === at && end === -1) end = at;
        at += 1;
      } else if (containers[depth - 1]) continue;
      else expectKey = true;
    } else if (dataNext) {
      return null;
    } else if (c === QUOTE) {
      const close = stringEnd(body, at + 1, nextBackslash);
      if (close < 0) return null;
      at = close + 1;
      if (nextBackslash !== -1 && nextBackslash < at) nextBackslash = body.indexOf('\\', at);
    } else if (c === MINUS || isDigit(c)) {
      const from = at;
      at = numberEnd(body, at);
      if (at === -1) return null;
      if (underNumberKey) numberSpans.push(from, at);
    } else if (c === T && body.startsWith('true', at)) at += 4;
    else if (c === F && body.startsWith('false', at)) at += 5;
    else if (c === N && body.startsWith('null', at)) at += 4;
    else return null;
    underNumberKey = false;

    // After a value: a comma, the end of containers, or a key.
    for (;;) {
      if (expectKey) {
        expectKey = false;
        if (body.charCodeAt(at) !== QUOTE) return null;
        const from = at + 1;
        const close = body.indexOf('"', from);
        if (close === -1) return null;
        if (nextBackslash !== -1 && nextBackslash < close) {
          if (nextBackslash < from) nextBackslash = body.indexOf('\\', from);
          if (nextBackslash !== -1 && nextBackslash < close) return null;
        }
        const length = close - from;
        const inRecords = start !== -1 && end === -1;
        if (depth === 1 && length === 4 && body.startsWith('data', from)) {
          if (start !== -1) return null;
          dataNext = true;
        } else if (inRecords && length === numberKey.length && body.startsWith(numberKey, from)) {
          underNumberKey = true;
        }
        at = close + 1;
        if (body.charCodeAt(at) !== COLON) return null;
        c = body.charCodeAt(++at);
        break;
      }
      if (depth === 0) {
        if (at !== n || start === -1) return null;
        let envelope: unknown;
        try {
          envelope = JSON.parse(`${body.slice(0, start)}${body.slice(end)}`);
        } catch {
          return null;
        }
        return {
          records: new ScannedRecords(body, start, end, count, numberSpans),
          envelope: envelope as Record<string, unknown>,
        };
      }
      c = body.charCodeAt(at);
      const inArray = containers[depth - 1] === 1;
      if (c === COMMA) {
        c = body.charCodeAt(++at);
        if (!inArray) {
          expectKey = true;
          continue;
        }
        if (depth === 2 && start !== -1 && end === -1) {
          if (c !== OPEN_OBJECT) return null;
          count += 1;
        }
        break;
      }
      if (c !== (inArray ? CLOSE_ARRAY : CLOSE_OBJECT)) return null;
      depth -= 1;
      if (depth === 1 && inArray && start !== -1 && end === -1) end = at;
      at += 1;
    }
  }
}

/** Where the string whose text starts at `from` closes (its `"`), or -1 when it is not plain JSON. */
function stringEnd(body: string, from: number, nextBackslash: number): number {
  let at = from;
  let backslash = nextBackslash;
  for (;;) {
    const quote = body.indexOf('"', at);
    if (quote === -1) return -1;
    if (backslash !== -1 && backslash < at) backslash = body.indexOf('\\', at);
    if (backslash === -1 || backslash > quote) return quote;
    const escaped = body.charCodeAt(backslash + 1);
    if (escaped === LOWER_U) {
      for (let k = 2; k < 6; k += 1) if (!isHex(body.charCodeAt(backslash + k))) return -1;
      at = backslash + 6;
    } else if (SIMPLE_ESCAPE.has(escaped)) {
      at = backslash + 2;
    } else return -1;
    backslash = body.indexOf('\\', at);
  }
}

/** Where the JSON number starting at `from` ends, or -1 when what is there is not one. */
function numberEnd(body: string, from: number): number {
  let at = from;
  let c = body.charCodeAt(at);
  if (c === MINUS) c = body.charCodeAt(++at);
  if (c === ZERO) c = body.charCodeAt(++at);
  else if (c >= ONE && c <= NINE) while (isDigit(c)) c = body.charCodeAt(++at);
  else return -1;
  if (c === DOT) {
    c = body.charCodeAt(++at);
    if (!isDigit(c)) return -1;
    while (isDigit(c)) c = body.charCodeAt(++at);
  }
  if (c === LOWER_E || c === UPPER_E) {
    c = body.charCodeAt(++at);
    if (c === PLUS || c === MINUS) c = body.charCodeAt(++at);
    if (!isDigit(c)) return -1;
    while (isDigit(c)) c = body.charCodeAt(++at);
  }
  return at;
}
