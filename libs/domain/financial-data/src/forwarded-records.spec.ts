import { describe, expect, it } from 'vitest';
import { scanListBody, ScannedRecords } from '#libs/upstream-client';
import { forwardedRecords as pieces, recordCount } from './forwarded-records.js';
import { moneyToStrings } from './money.js';

const forwardedRecords = (records: unknown[] | ScannedRecords) => pieces(records).join('');

/** What the upstream client hands over for a body: the records scanned, or parsed when it cannot scan. */
const received = (text: string) =>
  scanListBody(Buffer.from(text), text, 'amount')?.records ??
  ((JSON.parse(text) as { data: unknown[] }).data as unknown[] | ScannedRecords);

/** The records as the parsed, converted and printed way gives them. */
const printed = (text: string) =>
  moneyToStrings<unknown[]>((JSON.parse(text) as { data: unknown[] }).data)
    .map((record) => JSON.stringify(record))
    .join(',');

const record = (id: string, amount: number, extra: Record<string, unknown> = {}) => ({
  id,
  status: 'BOOKED',
  transactionAmount: { amount, currency: 'GBP' },
  ...extra,
});

const RECORDS = [
  record('t-1', -35.52),
  record('t-2', 100, { description: 'says "amount":5 and {"amount":6} inside a string' }),
  record('t-3', 12.5, { balance: { amount: -0.1, currency: 'GBP' }, amount: 7 }),
  record('t-4', 1e-7, { amount: 'already a string', amounts: [1, 2], nested: [{ amount: 3.25 }] }),
  record('t-5', 1e21, { note: 'ends in a backslash \\' }),
  record('t-6', 0),
];
const META = { tracingId: 'abc', count: RECORDS.length };
const LINKS = { next: 'http://upstream/accounts/a/real-time/transactions?cursor=x"y' };

describe('forwarded records of an upstream page', () => {
  it('forwards the records of a compact body as they came, amounts as decimal strings', () => {
    for (const envelope of [
      { meta: META, data: RECORDS, links: LINKS },
      { data: RECORDS, meta: META },
      { links: LINKS, data: RECORDS },
    ]) {
      const text = JSON.stringify(envelope);
      const records = received(text);
      expect(records).toBeInstanceOf(ScannedRecords);
      expect(recordCount(records)).toBe(RECORDS.length);
      const out = forwardedRecords(records);
      expect(out).toBe(printed(text));
      const parsed = JSON.parse(`[${out}]`) as Array<Record<string, unknown>>;
      expect(parsed.map((r) => (r.transactionAmount as { amount: unknown }).amount)).toEqual([
        '-35.52',
        '100.00',
        '12.50',
        '0.0000001',
        '1000000000000000000000.00',
        '0.00',
      ]);
      expect(parsed[2]).toMatchObject({ amount: '7.00', balance: { amount: '-0.10' } });
      expect(parsed[3]).toMatchObject({
        amount: 'already a string',
        amounts: [1, 2],
        nested: [{ amount: '3.25' }],
      });
      expect(parsed[1].description).toBe('says "amount":5 and {"amount":6} inside a string');
    }
  });

  it('keeps the records as the upstream wrote them', () => {
    // A record with escapes JSON.stringify would not write: forwarded as it came (same meaning).
    const middle = JSON.stringify(record('t-2', 4.1)).replace('BOOKED', '\\u0042OOKED');
    const text = `{"meta":${JSON.stringify(META)},"data":[${JSON.stringify(RECORDS[0])},${middle},${JSON.stringify(RECORDS[5])}]}`;
    const records = received(text);
    expect(records).toBeInstanceOf(ScannedRecords);
    const out = forwardedRecords(records);
    expect(out).toContain('\\u0042OOKED');
    expect(out).toContain('"amount":"4.10"');
    expect(JSON.parse(`[${out}]`)).toEqual(JSON.parse(`[${printed(text)}]`));
  });

  it('takes the parsed records, converted and printed, for any other layout, with the same result', () => {
    const bodies = [
      JSON.stringify({ meta: META, data: RECORDS, links: LINKS }, null, 2),
      ` ${JSON.stringify({ meta: META, data: RECORDS })}`,
      JSON.stringify({ meta: META, data: RECORDS }).replace('"id"', '"\\u0069d"'),
      `{"data":[${JSON.stringify(RECORDS[0])}],"meta":{},"data":${JSON.stringify(RECORDS.slice(1))}}`,
    ];
    for (const text of bodies) {
      const records = received(text);
      expect(Array.isArray(records)).toBe(true);
      expect(forwardedRecords(records)).toBe(printed(text));
    }
    // Written otherwise than JSON.stringify would, but scanned: the same records once read.
    for (const other of [
      JSON.stringify({ meta: META, data: RECORDS }).replace('-35.52', '-35.520'),
      JSON.stringify({ meta: META, data: RECORDS }).replace('"t-1"', '"t\\u002d1"'),
    ]) {
      expect(received(other)).toBeInstanceOf(ScannedRecords);
      expect(JSON.parse(`[${forwardedRecords(received(other))}]`)).toEqual(JSON.parse(`[${printed(other)}]`));
    }
  });

  it('forwards an empty page either way', () => {
    const text = JSON.stringify({ meta: { count: 0 }, data: [] });
    expect(forwardedRecords(received(text))).toBe('');
    expect(recordCount(received(text))).toBe(0);
    expect(forwardedRecords([])).toBe('');
  });

  it('refuses an amount JSON reads as infinite as the upstream breaking its contract (PROTOCOL)', () => {
    for (const text of ['{"data":[{"amount":1e400}]}', '{"data": [{"amount": -1e400}]}']) {
      expect(() => forwardedRecords(received(text))).toThrow(
        expect.objectContaining({ kind: 'PROTOCOL', retryable: false }),
      );
    }
    // Its neighbours still convert.
    expect(forwardedRecords(received('{"data":[{"amount":1e300}]}'))).toContain('"amount":"1000000');
  });
});
