import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  askThrottle,
  THROTTLE_WINDOW_MS,
  throttleAnswered,
  type ThrottleKeys,
  throttleKeys,
} from '#libs/domain/events';
import { createRedisClient, type RedisClient } from '#libs/redis';
import { assertProperty, propertyTimeout, testConfig, uniqueName } from '../kit/index.js';

const WINDOW_US = THROTTLE_WINDOW_MS * 1_000;
/** The simulated clock's start (µs): it stands in for the script's `TIME`, so a case takes no real time. */
const START_US = 1_780_000_000_000_000;
/** The attempt timeout the simulated worker has: its sends' deadlines follow from it. */
const ATTEMPT_TIMEOUT_MS = 2_000;
/** A send's deadline after its admission: the attempt's timeout and the throttle's grace after it. */
const FLIGHT_US = (ATTEMPT_TIMEOUT_MS + 10_000) * 1_000;
/** The least time between a job's two asks: its run, the delay and the next run, however early it wakes. */
const TURNAROUND_US = 1_000;

/** A job's wake-up: how late it comes (µs), or how early, when a worker whose clock is ahead wakes it. */
const latenessArb = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 5_000 }) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 400_000 }) },
  { weight: 2, arbitrary: fc.integer({ min: -200_000, max: 0 }) },
);
/** How long a send takes to its answer (µs, within the timeout); null: its worker dies, nothing is heard. */
const answerArb = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 50_000 }) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: ATTEMPT_TIMEOUT_MS * 1_000 }) },
  { weight: 1, arbitrary: fc.constant(null) },
);

const caseArb = fc.record({
  rate: fc.oneof(fc.integer({ min: 1, max: 6 }), fc.constantFrom(1, 2, 1_000)),
  // When each delivery first asks (µs after the start): bursts, trickles and everything between.
  arrivals: fc.array(
    fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 50_000 }), fc.integer({ min: 0, max: 4_000_000 })),
    { minLength: 1, maxLength: 40 },
  ),
  lateness: fc.array(latenessArb, { minLength: 1, maxLength: 30 }),
  answers: fc.array(answerArb, { minLength: 1, maxLength: 30 }),
});

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

/** An admitted send: when (µs), and when it stopped counting as in flight (its answer, or its deadline). */
interface Send {
  admittedAt: number;
  endedAt: number;
  answered: boolean;
}

interface Run {
  sends: Map<string, Send>;
  /** The turns handed to deliveries asking for the first time and told to wait. */
  firstTurns: number[];
  asks: number;
}

type Step =
  | { kind: 'ask'; at: number; id: string; first: boolean }
  | { kind: 'answer'; at: number; id: string; member: string };

/**
 * Runs every delivery's job against the scripts on real Redis, on a simulated clock: a job asks; told to
 * wait, it asks again that much later, give or take its lateness; admitted, it sends, and reports the
 * answer when it comes (a job whose worker dies reports nothing).
 */
async function simulate(redis: RedisClient, keys: ThrottleKeys, c: Case): Promise<Run> {
  const due: Step[] = c.arrivals.map((at, i) => ({
    kind: 'ask',
    at: START_US + at,
    id: `d${i}`,
    first: true,
  }));
  const run: Run = { sends: new Map(), firstTurns: [], asks: 0 };
  const ask = { rate: c.rate, attemptTimeoutMs: ATTEMPT_TIMEOUT_MS };
  while (due.length > 0) {
    due.sort((a, b) => a.at - b.at);
    const step = due.shift()!;
    if (step.kind === 'answer') {
      await throttleAnswered(redis, keys, step.member, step.at);
      Object.assign(run.sends.get(step.id)!, { endedAt: step.at, answered: true });
      continue;
    }
    const answer = await askThrottle(redis, keys, { ...ask, deliveryId: step.id }, step.at);
    run.asks += 1;
    if (answer.admitted) {
      expect(run.sends.has(step.id), `${step.id} admitted twice`).toBe(false);
      const took = c.answers[run.sends.size % c.answers.length];
      // In flight until answered or, never answered, until its deadline.
      run.sends.set(step.id, {
        admittedAt: step.at,
        endedAt: took === null ? step.at + FLIGHT_US : Infinity,
        answered: false,
      });
      if (took !== null) due.push({ kind: 'answer', at: step.at + took, id: step.id, member: answer.member });
      continue;
    }
    expect(answer.waitMs).toBeGreaterThan(0);
    const wakeAt = step.at + answer.waitMs * 1_000;
    if (step.first) run.firstTurns.push(wakeAt);
    const late = c.lateness[run.asks % c.lateness.length];
    due.push({
      kind: 'ask',
      at: Math.max(step.at + TURNAROUND_US, wakeAt + late),
      id: step.id,
      first: false,
    });
    // A job that never gets in would ask for ever; one woken early, over and over, would spin. A send
    // never answered holds its place until its deadline: those waiting on it ask about once a window.
    const dead = [...run.sends.values()].filter((send) => send.endedAt !== Infinity && !send.answered);
    const perDelivery = 12 + dead.length * Math.ceil(FLIGHT_US / WINDOW_US + 1);
    expect(run.asks, 'asks of all the jobs').toBeLessThan(c.arrivals.length * perDelivery);
  }
  return run;
}

/**
 * The per-endpoint delivery rate limit's Lua scripts (issue 61), on real Redis with a simulated clock:
 * for any rate, pattern of first asks, lateness (or earliness) of the jobs' wake-ups and time to each
 * send's answer (or none, its worker dead), each send is admitted only while fewer than `rate` others are
 * in flight or were answered within the window before it. That is the limit the endpoint sees: a request
 * arrives between its admission and its answer, so `rate` + 1 arrivals within a window would need one of
 * them admitted while `rate` others counted. Every delivery is admitted once, and those told to wait on
 * their first ask each get a turn of their own, a spacing (window / rate) apart.
 */
describe('endpoint throttle: the Lua scripts admit a send or answer a wait', () => {
  const redis = createRedisClient(testConfig().redis, { maxRetriesPerRequest: 2 });
  afterAll(async () => {
    await redis.quit();
  });

  it(
    'admits a send only while fewer than the rate count, each delivery once, and spaces the waiting',
    async () => {
      await assertProperty(
        fc.asyncProperty(caseArb, async (c) => {
          const keys = throttleKeys(`${uniqueName('throttle-property')}:`, uniqueName('endpoint'));
          const run = await simulate(redis, keys, c).finally(() => redis.del(...keys));
          expect(run.sends.size).toBe(c.arrivals.length);
          const sends = [...run.sends.values()];
          for (const [j, send] of sends.entries()) {
            const counting = sends.filter(
              (other, i) =>
                i !== j && other.admittedAt <= send.admittedAt && other.endedAt > send.admittedAt - WINDOW_US,
            );
            expect(counting.length, `others counting when send ${j} was admitted`).toBeLessThan(c.rate);
          }
          const spacing = Math.ceil(WINDOW_US / c.rate);
          const turns = [...run.firstTurns].sort((a, b) => a - b);
          for (let k = 1; k < turns.length; k++) {
            // Turns are handed out in µs and answered as whole ms (rounded up): apart by the spacing, less
            // that rounding.
            expect(turns[k] - turns[k - 1]).toBeGreaterThan(spacing - 1_000);
          }
        }),
        100,
      );
    },
    propertyTimeout(60_000),
  );

  it('lets `rate` go at once, and the next waits until a window after the first answer', async () => {
    const keys = throttleKeys(`${uniqueName('throttle-burst')}:`, uniqueName('endpoint'));
    const ask = (id: string, at: number) =>
      askThrottle(redis, keys, { rate: 2, deliveryId: id, attemptTimeoutMs: ATTEMPT_TIMEOUT_MS }, at);
    try {
      const [first, second] = [await ask('a', START_US), await ask('b', START_US + 1)];
      expect([first.admitted, second.admitted]).toEqual([true, true]);
      // Both in flight: taken as answered now, the window has room a window from now at the soonest.
      expect(await ask('c', START_US + 2)).toEqual({ admitted: false, waitMs: THROTTLE_WINDOW_MS });
      if (!first.admitted) return;
      await throttleAnswered(redis, keys, first.member, START_US + 300_000);
      // Its turn come, but the first send counts until a window after its answer.
      expect(await ask('c', START_US + WINDOW_US + 2)).toEqual({ admitted: false, waitMs: 300 });
      expect(await ask('c', START_US + WINDOW_US + 300_000)).toMatchObject({ admitted: true });
    } finally {
      await redis.del(...keys);
    }
  });
});
