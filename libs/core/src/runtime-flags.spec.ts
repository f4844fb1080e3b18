import { describe, expect, it } from 'vitest';
import { shouldTrim } from './runtime-flags.js';

const MiB = 1024 * 1024;
const state = { baseline: { heapBytes: 100 * MiB, rssBytes: 200 * MiB } };

describe('shouldTrim', () => {
  // An idle api is near 0.4% busy; 1% and more is a load, however light.
  it('collects an idle process whose heap grew by 32 MiB since the last trim', () => {
    expect(shouldTrim(state, 0.004, { heapBytes: 140 * MiB, rssBytes: 210 * MiB })).toBe(true);
  });
  it('collects an idle process whose RSS grew by 32 MiB, though its heap grew less', () => {
    expect(shouldTrim(state, 0.004, { heapBytes: 110 * MiB, rssBytes: 260 * MiB })).toBe(true);
  });
  it('leaves a busy process to collect as it goes, however big it is', () => {
    expect(shouldTrim(state, 0.3, { heapBytes: 400 * MiB, rssBytes: 800 * MiB })).toBe(false);
  });
  it('leaves a lightly loaded process alone: its collection would land in the load', () => {
    expect(shouldTrim(state, 0.02, { heapBytes: 400 * MiB, rssBytes: 800 * MiB })).toBe(false);
  });
  it('does not collect again for less growth than that', () => {
    expect(shouldTrim(state, 0, { heapBytes: 120 * MiB, rssBytes: 220 * MiB })).toBe(false);
  });
});
