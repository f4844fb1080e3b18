import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { QUIET_BEFORE_TRIM_MS, quietAfter, shouldTrim } from './runtime-flags.js';

const MiB = 1024 * 1024;
const state = { baseline: { heapBytes: 100 * MiB, rssBytes: 200 * MiB } };
const INTERVAL_MS = 5_000;

describe('shouldTrim', () => {
  it('collects a process idle long enough whose heap grew by 32 MiB since the last trim', () => {
    expect(shouldTrim(state, QUIET_BEFORE_TRIM_MS, { heapBytes: 140 * MiB, rssBytes: 210 * MiB })).toBe(true);
  });
  it('collects a process idle long enough whose RSS grew by 32 MiB, though its heap grew less', () => {
    expect(shouldTrim(state, QUIET_BEFORE_TRIM_MS, { heapBytes: 110 * MiB, rssBytes: 260 * MiB })).toBe(true);
  });
  it('leaves a process idle for less than that alone, however big: its next burst would pay', () => {
    const quiet = QUIET_BEFORE_TRIM_MS - INTERVAL_MS;
    expect(shouldTrim(state, quiet, { heapBytes: 400 * MiB, rssBytes: 800 * MiB })).toBe(false);
  });
  it('does not collect again for less growth than that', () => {
    expect(shouldTrim(state, QUIET_BEFORE_TRIM_MS, { heapBytes: 120 * MiB, rssBytes: 220 * MiB })).toBe(
      false,
    );
  });
});

describe('quietAfter', () => {
  // An idle api is near 0.4% busy; 1% and more is a load, however light.
  it('adds an idle interval to the quiet so far', () => {
    expect(quietAfter(10_000, 0.004, INTERVAL_MS)).toBe(15_000);
  });
  it('starts again after a busy interval', () => {
    expect(quietAfter(10_000, 0.3, INTERVAL_MS)).toBe(0);
  });
  it('starts again after a light load: a collection would land in it', () => {
    expect(quietAfter(10_000, 0.02, INTERVAL_MS)).toBe(0);
  });
  it('starts again after an interval that did work, however little busy it was', () => {
    // A stored page read at 250 req/s in bursts of 2.3 s every 9 s: some 5 s intervals were under 1% busy.
    expect(quietAfter(10_000, 0.008, INTERVAL_MS, true)).toBe(0);
    expect(quietAfter(10_000, 0.008, INTERVAL_MS, false)).toBe(15_000);
  });
  it('reaches the trim only after as many idle intervals in a row as it takes', () => {
    let quiet = 0;
    const intervals: number[] = [];
    for (let n = 1; n <= 4; n += 1) {
      quiet = quietAfter(quiet, 0.004, INTERVAL_MS);
      intervals.push(quiet >= QUIET_BEFORE_TRIM_MS ? n : 0);
    }
    expect(intervals).toEqual([0, 0, 3, 4]);
  });
});

describe("the operator's docs", () => {
  it('state the quiet a trim waits for as the code has it', () => {
    const operations = readFileSync(new URL('../../../docs/operations.md', import.meta.url), 'utf8');
    expect(operations.replace(/\s+/g, ' ')).toContain(
      `an app idle for ${QUIET_BEFORE_TRIM_MS / 1000} s gives`,
    );
  });
});
