import { describe, expect, it } from 'vitest';
import { type SeededRandom, seededRandom } from '#libs/testing';
import { hasControlBytes, scanListBody, type ScannedList } from './list-body.scanner.js';

const scan = (body: string): ScannedList | null => scanListBody(Buffer.from(body, 'utf8'), body, 'amount');

/** What JSON.parse makes of a body: its records and the envelope without them, or null when it refuses. */
function parsed(body: string): { records: unknown[]; envelope: Record<string, unknown> } | null {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  const envelope = value as Record<string, unknown>;
  return { records: envelope.data as unknown[], envelope: { ...envelope, data: [] } };
}

/** Every number a scan located, as the text it is, with the key's parent record index unknown. */
const numbersAt = (list: ScannedList) => {
  const { body, numberSpans } = list.records;
  const out: string[] = [];
  for (let k = 0; k < numberSpans.length; k += 2) out.push(body.slice(numberSpans[k], numberSpans[k + 1]));
  return out;
};

/** Every number under an `amount` key in parsed records, in document order (as moneyToStrings finds them). */
function amountsIn(value: unknown, out: number[] = []): number[] {
  if (Array.isArray(value)) for (const v of value) amountsIn(v, out);
  else if (value !== null && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === 'amount' && typeof v === 'number') out.push(v);
      else amountsIn(v, out);
    }
  }
  return out;
}

const KEYS = ['id', 'amount', 'currency', 'description', 'data', 'nested', 'amounts', 'é'];
/** Keys JSON.stringify writes with an escape, which the scanner leaves to JSON.parse. */
const ESCAPED_KEYS = ['a"b', 'x\\y'];
const STRINGS = [
  '',
  'plain',
  'says "amount":5',
  '{"amount":6}',
  'back\\slash\\',
  'é £ 😀',
  '\u2028',
  'tab\tnew\nline',
];
const NUMBERS = [0, -0, 1, -35.52, 12.5, 1e-7, 1e21, 123456789.123, -0.1, 5e-324];

function value(r: SeededRandom, depth: number): unknown {
  const kind = depth > 4 ? r.int(4) : r.int(6);
  if (kind === 0) return r.pick(NUMBERS);
  if (kind === 1) return r.pick(STRINGS);
  if (kind === 2) return r.pick([true, false, null]);
  if (kind === 3) return r.next() < 0.5 ? r.pick(NUMBERS) : r.pick(STRINGS);
  if (kind === 4) return Array.from({ length: r.int(3) }, () => value(r, depth + 1));
  return object(r, depth + 1);
}

function object(r: SeededRandom, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = r.int(5); i > 0; i -= 1) out[r.pick(r.next() < 0.02 ? ESCAPED_KEYS : KEYS)] = value(r, depth);
  if (r.next() < 0.5) out.amount = r.pick(NUMBERS);
  return out;
}

/** A list body as an upstream would write it, sometimes with what the scanner leaves to JSON.parse. */
function body(r: SeededRandom): string {
  const envelope: Record<string, unknown> = {};
  const before = r.int(3);
  for (let i = 0; i < before; i += 1) envelope[r.pick(['meta', 'links', 'x'])] = object(r, 1);
  envelope.data = Array.from({ length: r.int(6) }, () => object(r, 2));
  if (r.next() < 0.5) envelope.links = { next: r.pick(STRINGS) };
  let text = JSON.stringify(envelope, null, r.next() < 0.1 ? 1 : undefined);
  // Escapes JSON.stringify would not write, but the upstream may.
  if (r.next() < 0.2) text = text.replace('"é"', '"\\u00e9"').replace('plain', 'pl\\u0061in');
  return text;
}

/** One small edit anywhere: what a truncated, corrupted or hand-written body looks like. */
function mutate(r: SeededRandom, text: string): string {
  const at = r.int(text.length + 1);
  const piece = r.pick([
    '',
    ' ',
    ',',
    ':',
    '"',
    '\\',
    '{',
    '}',
    '[',
    ']',
    '0',
    '-',
    '.',
    'e',
    '\u0001',
    '\n',
    'true',
    'nul',
    '"data":[]',
  ]);
  const cut = r.int(3);
  return `${text.slice(0, at)}${piece}${text.slice(at + cut)}`;
}

describe('scanListBody', () => {
  it('reads a compact body: the records as they lie, their count, every amount inside them', () => {
    const records = [
      { id: 't-1', transactionAmount: { amount: -35.52, currency: 'GBP' }, amount: 7 },
      { id: 't-2', note: 'says "amount":5', amount: 'a string', nested: [{ amount: 1e-7 }], amounts: [1] },
      {},
    ];
    const text = JSON.stringify({ meta: { amount: 3, count: 3 }, data: records, links: { next: 'n' } });
    const list = scan(text)!;
    expect(list).not.toBeNull();
    const { body, start, end, count } = list.records;
    expect(body.slice(start, end)).toBe(records.map((r) => JSON.stringify(r)).join(','));
    expect(count).toBe(3);
    expect(numbersAt(list)).toEqual(['-35.52', '7', '1e-7']);
    expect(list.envelope).toEqual({ meta: { amount: 3, count: 3 }, data: [], links: { next: 'n' } });
  });

  it('reads an empty page, and data anywhere in the envelope', () => {
    for (const text of ['{"data":[]}', '{"meta":{},"data":[],"links":{}}', '{"data":[{}],"meta":[1,[2]]}']) {
      const list = scan(text)!;
      expect(list.envelope).toEqual({ ...JSON.parse(text), data: [] });
      expect(list.records.count).toBe(JSON.parse(text).data.length);
    }
  });

  it('leaves to JSON.parse whatever is not the compact layout it knows', () => {
    for (const text of [
      ' {"data":[]}',
      '{"data": []}',
      '{"data":[]}\n',
      '{"data":[{"a":1}, {"b":2}]}',
      '{"data":[{"\\u0061mount":1}]}', // an escaped key
      '{"data":[1,2]}', // records that are not objects
      '{"data":{}}',
      '{"data":[],"data":[]}', // data twice: JSON.parse keeps the last
      '{"meta":{}}', // no data
      '{"data":[{"a":"tab\tinside"}]}', // a raw control character
      `{"data":[${'['.repeat(70)}${']'.repeat(70)}]}`,
      `{"data":[{"a":${'['.repeat(70)}${']'.repeat(70)}}]}`,
      '[]',
      '',
    ]) {
      expect(scan(text), text).toBeNull();
    }
  });

  it('never accepts a body JSON.parse refuses, and agrees with it on every body it reads', () => {
    const read = { original: 0, mutated: 0 };
    for (let seed = 1; seed <= 3000; seed += 1) {
      const r = seededRandom(seed);
      const original = body(r);
      for (const text of [original, mutate(r, original), mutate(r, mutate(r, original))]) {
        const list = scan(text);
        if (!list) continue;
        read[text === original ? 'original' : 'mutated'] += 1;
        const truth = parsed(text);
        expect(truth, `seed ${seed}: scanned a body JSON.parse refuses: ${text}`).not.toBeNull();
        const { body: whole, start, end, count } = list.records;
        expect(JSON.parse(`[${whole.slice(start, end)}]`), `seed ${seed}`).toEqual(truth!.records);
        expect(count).toBe(truth!.records.length);
        expect(list.envelope).toEqual(truth!.envelope);
        expect(numbersAt(list).map(Number), `seed ${seed}: ${text}`).toEqual(amountsIn(truth!.records));
      }
    }
    // Most generated bodies, and some edited ones, are read, so the agreement above is about something.
    expect(read.original).toBeGreaterThan(1500);
    expect(read.mutated).toBeGreaterThan(100);
  });
});

describe('hasControlBytes', () => {
  it('finds a byte below 0x20 at any offset and alignment, and nothing in text without one', () => {
    const text = Buffer.from('{"data":[{"name":"é £ 😀 ~ "}]}'.repeat(3), 'utf8');
    for (let offset = 0; offset < 4; offset += 1) {
      const shifted = Buffer.alloc(text.length + offset);
      text.copy(shifted, offset);
      const view = shifted.subarray(offset);
      expect(hasControlBytes(view)).toBe(false);
      for (const at of [0, 1, 5, view.length - 1]) {
        for (const byte of [0x00, 0x0a, 0x1f]) {
          const broken = Buffer.from(view);
          broken[at] = byte;
          expect(hasControlBytes(broken.subarray(0)), `offset ${offset}, at ${at}`).toBe(true);
          const copy = Buffer.alloc(broken.length + offset);
          broken.copy(copy, offset);
          expect(hasControlBytes(copy.subarray(offset)), `offset ${offset}, at ${at}`).toBe(true);
        }
      }
      expect(hasControlBytes(Buffer.from(' \x7f\x80\xff '.repeat(4), 'latin1'))).toBe(false);
    }
  });
});
