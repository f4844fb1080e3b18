import { randomInt } from 'node:crypto';
import { relative } from 'node:path';
import { expect, onTestFailed } from 'vitest';
import { type SeededRandom, seededRandom } from './seeded-random.js';

/**
 * The run's seed for random test data: `TEST_SEED` when set (the global set-up draws and prints one for a
 * run that has none, `npm run test:repeat` gives each run its own), so a failure seen in CI replays
 * exactly with `TEST_SEED=<seed>`. fast-check properties have seeds of their own (`assertProperty`).
 *
 * Names that only need to be unique (databases, queue prefixes, merchants) are not test data: they stay
 * random, so two runs on one machine never collide.
 */
export function testSeed(): number {
  const raw = process.env.TEST_SEED;
  if (raw === undefined || raw === '') {
    process.env.TEST_SEED = String(randomInt(2 ** 31));
    return Number(process.env.TEST_SEED);
  }
  const seed = Number(raw);
  if (!Number.isInteger(seed)) throw new Error(`TEST_SEED must be an integer, not ${raw}`);
  return seed;
}

/** FNV-1a: the test's name as a number, so each test draws its own sequence from the run's seed. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * The one source of random data for a test (outside fast-check): seeded by the run's seed and the test's
 * name, so the same seed gives the same data to the same test whatever else runs. Called inside a test,
 * it prints how to replay that test when it fails.
 */
export function testRandom(): SeededRandom {
  const seed = testSeed();
  const { currentTestName, testPath } = expect.getState();
  const name = currentTestName ?? testPath ?? '';
  // One stream per test: a second call in the same test goes on where the first left off.
  const known = streams.get(name);
  if (known) return known;
  const random = seededRandom((seed ^ hash(name)) >>> 0);
  streams.set(name, random);
  if (currentTestName) {
    const file = testPath ? relative(process.cwd(), testPath) : '';
    const only = JSON.stringify(
      currentTestName
        .split(' > ')
        .pop()!
        .replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    );
    onTestFailed(() => {
      console.error(
        `This test's random data came from TEST_SEED=${seed}; replay it with:\n` +
          `  TEST_SEED=${seed} npm run test:repeat -- --runs 1 ${file} -t ${only}`,
      );
    });
  }
  return random;
}

const streams = new Map<string, SeededRandom>();
