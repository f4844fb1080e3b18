/**
 * Settings that were removed, each with what took its place: `.env` files written for an earlier version
 * may still set them, so the api and the worker name any they find at boot (they are otherwise ignored,
 * like any unknown variable), and docs/configuration.md's table of them is generated from this list.
 */
export const RETIRED_SETTINGS: Readonly<Record<string, string>> = {
  API_BODY_LIMIT_BYTES: 'tuning `apiBodyLimitBytes`',
  AUTH_CACHE_SECONDS: 'tuning `authCacheSeconds`',
  READ_CACHE_MB: 'tuning `readCacheMb`',
  QUEUE_SCHEDULE_CHECK_SECONDS: 'tuning `scheduleCheckSeconds`',
  SYNC_OVERLAP_DAYS: 'tuning `syncOverlapDays`',
  SYNC_PAGE_SIZE: 'tuning `syncPageSize`',
  STORED_PAGE_CACHE_MB: 'tuning `storedPageCacheMb`',
  SYNC_DISPATCH_EVERY_SECONDS: 'tuning `syncDispatchEverySeconds`',
  SYNC_RUN_IDLE_SECONDS: 'tuning `syncRunIdleSeconds`',
  INSTITUTIONS_REFRESH_MINUTES: 'tuning `institutionsRefreshMinutes`',
  CONSENT_EXPIRY_SCAN_MINUTES: 'tuning `consentExpiryScanMinutes`',
  CONSENT_RECONCILE_MINUTES: 'tuning `consentReconcileMinutes`',
  PAYMENT_STATUS_POLL_SECONDS: 'tuning `paymentStatusPollSeconds`',
  WORKER_METRICS_REFRESH_SECONDS: 'tuning `workerMetricsRefreshSeconds`',
  WEBHOOK_MAX_BODY_BYTES: 'tuning `webhookMaxBodyBytes`',
  WEBHOOK_TOLERANCE_SECONDS: 'tuning `webhookToleranceSeconds`',
  UPSTREAM_WEBHOOK_SECRET_GRACE_HOURS: 'tuning `upstreamWebhookSecretGraceHours`',
  EVENT_DELIVERY_TIMEOUT_MS: 'tuning `eventDeliveryTimeoutMs`',
  EVENT_DELIVERY_BACKOFF_SECONDS: 'tuning `eventDeliveryBackoffSeconds`',
  EVENT_ENDPOINT_DISABLE_AFTER_HOURS: 'tuning `eventEndpointDisableAfterHours`',
  EVENTS_SWEEP_SECONDS: 'tuning `eventsSweepEverySeconds`',
  INBOX_RETENTION_DAYS: 'tuning `inboxRetentionDays`',
  RETENTION_SWEEP_MINUTES: 'tuning `retentionSweepMinutes`',
  SSE_HEARTBEAT_SECONDS: 'tuning `sseHeartbeatSeconds`',
  SSE_PAGE_SIZE: 'tuning `ssePageSize`',
  WEBHOOK_SIGNATURE_SCHEME: 'gone: Standard Webhooks, the only scheme',
  SANDBOX_APP_ID: '`UPSTREAM_APPLICATION_ID`: the sandbox serves the root application the client uses',
  SANDBOX_APP_SECRET: '`UPSTREAM_APPLICATION_SECRET`, likewise',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT:
    'no longer turns tracing on: `OTEL_EXPORTER_OTLP_ENDPOINT` does (the exporter still honours this one)',
  OTEL_TRACES_EXPORTER: 'gone: on exactly when the endpoint is set',
  OTEL_SDK_DISABLED: 'gone: on exactly when the endpoint is set',
  RATE_LIMIT_MERCHANT_PER_MINUTE: '`RATE_LIMIT_PER_MINUTE`: one limit, per merchant and per session user',
  RATE_LIMIT_USER_PER_MINUTE: '`RATE_LIMIT_PER_MINUTE`, likewise',
};

/** The retired settings `source` sets (non-empty), for the boot's warning. */
export function retiredSettingsIn(source: Record<string, string | undefined>): string[] {
  return Object.keys(RETIRED_SETTINGS).filter((name) => Boolean(source[name]));
}

/** The retired settings as a Markdown table for docs/configuration.md: name, and what took its place. */
export function renderRetiredTable(): string {
  const rows = Object.entries(RETIRED_SETTINGS).map(([name, now]) => `| \`${name}\` | ${now} |`);
  return ['| Removed | Now |', '| --- | --- |', ...rows].join('\n');
}
