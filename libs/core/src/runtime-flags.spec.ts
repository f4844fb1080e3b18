import { describe, expect, it } from 'vitest';
import { shouldTrim } from './runtime-flags.js';

const MiB = 1024 * 1024;

describe('shouldTrim', () => {
  it('collects an idle process whose heap grew by 32 MiB since the last trim', () => {
    expect(shouldTrim({ baselineBytes: 100 * MiB }, 0.01, 140 * MiB)).toBe(true);
  });
  it('leaves a busy process to collect as it goes, however big its heap', () => {
    expect(shouldTrim({ baselineBytes: 100 * MiB }, 0.3, 400 * MiB)).toBe(false);
  });
  it('does not collect again for less growth than that', () => {
    expect(shouldTrim({ baselineBytes: 100 * MiB }, 0, 120 * MiB)).toBe(false);
  });
});
