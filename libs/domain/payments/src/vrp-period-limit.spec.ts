import { describe, expect, it } from 'vitest';
import { periodLimit } from './vrp-period-limit.js';

const november = { start: new Date('2026-11-01T00:00:00Z'), end: new Date('2026-12-01T00:00:00Z') };
const at = (iso: string) => Date.parse(iso);

describe('periodLimit: the limit of the current VRP period', () => {
  it('is the whole amount for a CONSENT-aligned limit, and for a CALENDAR period after the first', () => {
    const limit = { totalMaxAmount: { amount: 300 } };
    expect(periodLimit({ ...limit, alignment: 'CONSENT' }, november, at('2026-11-20T10:00:00Z'), 'GBP')).toBe(
      '300.00',
    );
    expect(
      periodLimit({ ...limit, alignment: 'CALENDAR' }, november, at('2026-10-20T10:00:00Z'), 'GBP'),
    ).toBe('300.00');
  });

  it('pro-rates the first CALENDAR period to the days left, the anchor’s day included', () => {
    // Anchored on 21 November: 10 of November's 30 days are left, the 21st included.
    const limit = { alignment: 'CALENDAR', totalMaxAmount: { amount: '300.00' } };
    expect(periodLimit(limit, november, at('2026-11-21T23:59:00Z'), 'GBP')).toBe('100.00');
    expect(periodLimit(limit, november, at('2026-11-01T00:00:00Z'), 'GBP')).toBe('300.00');
  });

  it('rounds down to the currency’s minor unit, never up', () => {
    const limit = { alignment: 'CALENDAR', totalMaxAmount: { amount: '100.00' } };
    // 100 × 10 / 30 = 33.333…: 33.33 in GBP, 33 in JPY, 33.333 in KWD.
    expect(periodLimit(limit, november, at('2026-11-21T08:00:00Z'), 'GBP')).toBe('33.33');
    expect(periodLimit(limit, november, at('2026-11-21T08:00:00Z'), 'JPY')).toBe('33');
    expect(periodLimit(limit, november, at('2026-11-21T08:00:00Z'), 'KWD')).toBe('33.333');
  });
});
