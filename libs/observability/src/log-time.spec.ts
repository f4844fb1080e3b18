import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertProperty } from '#libs/testing';
import { isoTimeAt } from './log-time.js';

describe("the log lines' time", () => {
  it("writes pino's isoTime for any instant, in any order of instants", async () => {
    // Whole milliseconds from 1970 to 2100 (Date.now() is whole), in runs that revisit a second.
    const instant = fc.integer({ min: 0, max: 4_102_444_800_000 });
    await assertProperty(
      fc.property(
        fc.array(
          fc.oneof(
            instant,
            instant.map((t) => t - (t % 1000)),
          ),
          { maxLength: 50 },
        ),
        (times) => {
          for (const t of [...times, ...times.map((x) => x + 999), ...[...times].reverse()]) {
            expect(isoTimeAt(t)).toBe(`,"time":"${new Date(t).toISOString()}"`);
          }
        },
      ),
      200,
    );
  });
});
