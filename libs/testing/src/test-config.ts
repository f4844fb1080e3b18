import { type AppConfig, loadConfig, RETIRED_SETTINGS, SETTING_NAMES, type Tuning } from '#libs/config';
import { SCHEDULES_OFF } from '#libs/queue';

/**
 * Every schedule of the worker off (each scheduled job's tuning at 0, from the job catalogue). Test files
 * share one database and run in parallel: a scheduled dispatch, refresh, scan or sweep would act on every
 * file's rows. Tests that need one schedule it (or run it) themselves.
 */
export { SCHEDULES_OFF };

/**
 * A test's tuning (shorter cadences, schedules off) as the one environment variable that carries it, so
 * the same overrides reach an app in this process (testConfig) and one spawned from dist/ (NODE_ENV=test
 * there too: vitest sets it, and children inherit it).
 */
export function tuned(tuning: Partial<Tuning>): { TEST_TUNING: string } {
  return { TEST_TUNING: JSON.stringify(tuning) };
}

/**
 * The configuration tests run with: the environment `npm test` prepared (test database, queue prefix),
 * random ports, silent logs, every schedule off, plus whatever a test overrides (settings, and tuning
 * through `tuned()` in `overrides` or as `tuning`, over {@link SCHEDULES_OFF}).
 */
export function testConfig(overrides: Record<string, string> = {}, tuning: Partial<Tuning> = {}): AppConfig {
  refuseUnknownSettings(overrides);
  const env: Record<string, string | undefined> = {
    ...process.env,
    NODE_ENV: 'test',
    API_PORT: '0',
    SANDBOX_PORT: '0',
    LOG_LEVEL: 'silent',
    // Workers in one process (and files in parallel) would fight over one port: a test that scrapes a
    // worker gives it a free one.
    WORKER_METRICS_PORT: '0',
    ...overrides,
  };
  const asked = env.TEST_TUNING ? (JSON.parse(env.TEST_TUNING) as Partial<Tuning>) : {};
  return loadConfig({ ...env, ...tuned({ ...SCHEDULES_OFF, ...asked, ...tuning }) });
}

/**
 * An override that names no setting would be ignored, as the apps ignore any unknown variable: a test
 * would run with the default while saying otherwise (four did, naming two rate limits long merged into
 * RATE_LIMIT_PER_MINUTE). Besides settings, a test may set TEST_TUNING and the OTel SDK's own variables.
 */
function refuseUnknownSettings(overrides: Record<string, string>): void {
  const unknown = Object.keys(overrides).filter(
    (name) => !SETTING_NAMES.includes(name) && name !== 'TEST_TUNING' && !name.startsWith('OTEL_'),
  );
  if (unknown.length === 0) return;
  const now = (name: string) => (RETIRED_SETTINGS[name] ? ` (retired: ${RETIRED_SETTINGS[name]})` : '');
  throw new Error(
    `not a setting (libs/config/src/env.dto.ts): ${unknown.map((n) => `${n}${now(n)}`).join(', ')}`,
  );
}

/** A unique, valid BullMQ prefix so tests that share Redis never see each other's jobs. */
export function uniqueQueuePrefix(label: string): string {
  return `t-${label}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`.slice(0, 32);
}
