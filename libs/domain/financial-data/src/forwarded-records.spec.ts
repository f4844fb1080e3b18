import { describe, expect, it } from 'vitest';
import { forwardedRecords } from './forwarded-records.js';
import { moneyToStrings } from './money.js';

/** What the upstream client hands over for a body: the parsed envelope, its records and the text. */
const received = (text: string) => {
  const envelope = JSON.parse(text) as Record<string, unknown>;
  return { records: envelope.data as unknown[], raw: { text, envelope } };
};

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
  it('cuts the records out of a body laid out as JSON.stringify lays it out, amounts as decimal strings', () => {
    for (const envelope of [
      { meta: META, data: RECORDS, links: LINKS },
      { data: RECORDS, meta: META },
      { links: LINKS, data: RECORDS },
    ]) {
      const text = JSON.stringify(envelope);
      const { records, raw } = received(text);
      const out = forwardedRecords(records, raw);
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

  it('keeps the records between the first and the last as the upstream wrote them', () => {
    // A middle record with escapes JSON.stringify would not write: the cut keeps them (same meaning).
    const middle = JSON.stringify(record('t-2', 4.1)).replace('BOOKED', '\\u0042OOKED');
    const text = `{"meta":${JSON.stringify(META)},"data":[${JSON.stringify(RECORDS[0])},${middle},${JSON.stringify(RECORDS[5])}]}`;
    const { records, raw } = received(text);
    const out = forwardedRecords(records, raw);
    expect(out).toContain('\\u0042OOKED');
    expect(out).toContain('"amount":"4.10"');
    expect(JSON.parse(`[${out}]`)).toEqual(JSON.parse(`[${printed(text)}]`));
  });

  it('takes the parsed records, converted and printed, for any other layout, with the same result', () => {
    const bodies = [
      JSON.stringify({ meta: META, data: RECORDS, links: LINKS }, null, 2),
      ` ${JSON.stringify({ meta: META, data: RECORDS })}`,
      JSON.stringify({ meta: META, data: RECORDS }).replace('"t-1"', '"t\\u002d1"'),
      JSON.stringify({ meta: META, data: RECORDS }).replace('-35.52', '-35.520'),
      `{"data":[${JSON.stringify(RECORDS[0])}],"meta":{},"data":${JSON.stringify(RECORDS.slice(1))}}`,
    ];
    for (const text of bodies) {
      const { records, raw } = received(text);
      const out = forwardedRecords(records, raw);
      expect(out).toBe(printed(text));
    }
  });

  it('forwards an empty page, and works without the body', () => {
    const text = JSON.stringify({ meta: { count: 0 }, data: [] });
    expect(forwardedRecords([], received(text).raw)).toBe('');
    expect(forwardedRecords(structuredClone(RECORDS), undefined)).toBe(
      printed(JSON.stringify({ data: RECORDS })),
    );
  });
});
