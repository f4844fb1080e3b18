import { relative } from 'node:path';
import fc from 'fast-check';
import { expect } from 'vitest';

/**
 * How the suite's property tests run: `defaultRuns` in `npm test` (chosen so the whole suite stays well
 * under its 15 minutes), `PROPERTY_RUNS` for a longer search (`npm run test:properties -- --runs 500`), and
 * `PROPERTY_SEED` with `PROPERTY_PATH` (`--seed`, `--path`) to replay the one failure a run reported.
 */
function propertyParameters<T>(defaultRuns: number, extra: fc.Parameters<T>): fc.Parameters<T> {
  const env = process.env;
  const runs = env.PROPERTY_RUNS ? Number(env.PROPERTY_RUNS) : defaultRuns;
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`PROPERTY_RUNS must be a positive integer`);
  if (env.PROPERTY_SEED && !Number.isInteger(Number(env.PROPERTY_SEED))) {
    throw new Error(`PROPERTY_SEED must be an integer (the seed a failure printed)`);
  }
  return {
    ...extra,
    numRuns: runs,
    ...(env.PROPERTY_SEED ? { seed: Number(env.PROPERTY_SEED) } : {}),
    ...(env.PROPERTY_PATH ? { path: env.PROPERTY_PATH } : {}),
  };
}

/**
 * Checks a property and, when it fails, throws fast-check's report (the shrunk counterexample, its seed and
 * path) followed by the command that replays exactly that case.
 */
export async function assertProperty<T>(
  property: fc.IAsyncPropertyWithHooks<T> | fc.IPropertyWithHooks<T>,
  defaultRuns: number,
  extra: fc.Parameters<T> = {},
): Promise<void> {
  const details = await fc.check(property, propertyParameters(defaultRuns, extra));
  if (!details.failed) return;
  const report = fc.defaultReportMessage(details) ?? 'property failed';
  // The seed and path belong to this test's generators: the command runs this test alone.
  const { testPath, currentTestName } = expect.getState();
  const name = (currentTestName ?? '').split(' > ').pop() ?? '';
  const file = testPath ? relative(process.cwd(), testPath) : '<this test file>';
  const only = JSON.stringify(name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  throw new Error(
    `${report}\n\nReplay this case: npm run test:properties -- --seed ${details.seed} ` +
      `--path ${details.counterexamplePath ?? ''} ${file} -t ${only}`,
    { cause: details.errorInstance },
  );
}

/** A property test's time limit: `defaultMs` in `npm test`; none to speak of for a longer search. */
export function propertyTimeout(defaultMs: number): number {
  return process.env.PROPERTY_RUNS || process.env.PROPERTY_SEED ? 24 * 3_600_000 : defaultMs;
}
