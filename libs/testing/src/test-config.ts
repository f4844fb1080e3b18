import { type AppConfig, loadConfig } from '#libs/config';

/**
 * The configuration tests run with: the environment `npm test` prepared (test database, queue prefix),
 * random ports, silent logs, plus whatever a test overrides.
 */
export function testConfig(overrides: Record<string, string> = {}): AppConfig {
  return loadConfig({
    ...process.env,
    API_PORT: '0',
    SANDBOX_PORT: '0',
    LOG_LEVEL: 'silent',
    // Test files share one database and run in parallel: a scheduled dispatch or institutions refresh
    // would act on every file's rows. Tests that need them schedule them (or run them) themselves.
    SYNC_DISPATCH_EVERY_SECONDS: '0',
    INSTITUTIONS_REFRESH_MINUTES: '0',
    EVENTS_SWEEP_SECONDS: '0',
    CONSENT_EXPIRY_SCAN_MINUTES: '0',
    CONSENT_RECONCILE_MINUTES: '0',
    PAYMENT_STATUS_POLL_SECONDS: '0',
    RETENTION_SWEEP_MINUTES: '0',
    // Workers in one process (and files in parallel) would fight over one port: a test that scrapes a
    // worker gives it a free one.
    WORKER_METRICS_PORT: '0',
    ...overrides,
  });
}

/** A unique, valid BullMQ prefix so tests that share Redis never see each other's jobs. */
export function uniqueQueuePrefix(label: string): string {
  return `t-${label}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`.slice(0, 32);
}
