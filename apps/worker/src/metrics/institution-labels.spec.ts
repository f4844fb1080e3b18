import { describe, expect, it } from 'vitest';
import { busiestInstitutions, INSTITUTION_LABELS } from './institution-labels.js';

describe('the bounded institution label set', () => {
  it('names the busiest institutions, ties by id, and leaves the rest apart', () => {
    // Two more than are named: bank-00 and bank-01 call least; bank-02 and bank-03 tie.
    const rows = Array.from({ length: INSTITUTION_LABELS + 2 }, (_, i) => ({
      institutionId: `bank-${String(i).padStart(2, '0')}`,
      calls: i < 2 ? i : i === 2 ? 3 : i,
    }));
    const { named, rest } = busiestInstitutions(rows, (row) => row.calls);
    expect(named).toHaveLength(INSTITUTION_LABELS);
    expect(named[0].institutionId).toBe(`bank-${INSTITUTION_LABELS + 1}`);
    expect(named.slice(-2).map((row) => row.institutionId)).toEqual(['bank-02', 'bank-03']);
    expect(rest.map((row) => row.institutionId)).toEqual(['bank-01', 'bank-00']);
  });

  it('leaves nothing apart when there are few', () => {
    const rows = [
      { institutionId: 'b', calls: 1 },
      { institutionId: 'a', calls: 1 },
    ];
    expect(busiestInstitutions(rows, (row) => row.calls)).toEqual({ named: [rows[1], rows[0]], rest: [] });
  });
});
