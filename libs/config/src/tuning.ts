/**
 * The cadences, buffer sizes and protocol values the system runs with: constants, not settings. Each one
 * was an environment variable once; none is something an operator of one deployment decides better than
 * the code's authors, so each is fixed here with its reason. `AppConfig.tuning` carries them, so the tests
 * can shorten a cadence or turn a schedule off (`TEST_TUNING`, read only when NODE_ENV=test: config.ts).
 */
export interface Tuning {
  /** Largest request body the api accepts; bigger gets 413 PAYLOAD_TOO_LARGE. */
  apiBodyLimitBytes: number;
  /** How long a verified API key or session stays cached per api process (0: verify every request). */
  authCacheSeconds: number;
  /** MiB of page-view reads each api process keeps until Postgres notifies a change (0: none). */
  readCacheMb: number;
  /** MiB of stored-transaction pages each api process keeps, keyed by the account's version (0: none). */
  storedPageCacheMb: number;
  /** How often a worker makes sure its job schedulers exist in Redis (also on every reconnect). */
  scheduleCheckSeconds: number;
  /** How far before the newest booked transaction an incremental sync starts re-reading. */
  syncOverlapDays: number;
  /** Records a sync asks the upstream for per page (the upstream allows 1 to 1,000). */
  syncPageSize: number;
  /** How often the sync dispatcher looks for accounts that are due (0: not scheduled by this worker). */
  syncDispatchEverySeconds: number;
  /**
   * A queued or running sync run nobody touched this long may have lost its job (Redis forgot it, or it
   * failed by stalling): the next dispatch makes sure of its job. Restarting a job that is fine changes nothing.
   */
  syncRunIdleSeconds: number;
  /** How often the worker refreshes the institutions cache (0: not scheduled by this worker). */
  institutionsRefreshMinutes: number;
  /** How often the consent expiry scan runs (0: not scheduled by this worker). */
  consentExpiryScanMinutes: number;
  /** How often authorised consents are compared with the upstream's view (0: not scheduled by this worker). */
  consentReconcileMinutes: number;
  /**
   * How often the worker looks for payments whose status check is due (each is checked soon after it starts,
   * then less often: a quarter of its age, at most every 15 minutes); 0: not scheduled by this worker.
   */
  paymentStatusPollSeconds: number;
  /** The worker recomputes its queue and database gauges at most this often, however often it is scraped. */
  workerMetricsRefreshSeconds: number;
  /** Largest upstream webhook body the receiver reads; larger gets 413. */
  webhookMaxBodyBytes: number;
  /** How far a webhook's timestamp may be from our clock, either way. */
  webhookToleranceSeconds: number;
  /** How long a replaced upstream webhook secret still verifies. */
  upstreamWebhookSecretGraceHours: number;
  /** One delivery attempt to a merchant endpoint times out after this long. */
  eventDeliveryTimeoutMs: number;
  /** The first retry's delay; each further one doubles it (at most an hour apart), jittered. */
  eventDeliveryBackoffSeconds: number;
  /** An endpoint failing without one success for this long is disabled. */
  eventEndpointDisableAfterHours: number;
  /**
   * 0: event endpoints' names resolve as the system resolves them. Tests only: the DNS server on this
   * port of 127.0.0.1 answers instead, so a test decides what a name resolves to (and rebinds it).
   */
  eventEndpointDnsPort: number;
  /** The most failed deliveries one recovery call (POST /v1/event-endpoints/{id}/recover) schedules. */
  eventRecoveryBatch: number;
  /** How often the worker re-enqueues inbox rows and deliveries lost from Redis (0: not scheduled here). */
  eventsSweepEverySeconds: number;
  /** Days a processed upstream webhook stays in the inbox. */
  inboxRetentionDays: number;
  /** How often the retention sweep runs (0: not scheduled by this worker). */
  retentionSweepMinutes: number;
  /** A comment line on every open event stream this often, so proxies keep it open. */
  sseHeartbeatSeconds: number;
  /** Events an open stream reads from Postgres per query (a replay reads page after page). */
  ssePageSize: number;
}

export const TUNING: Readonly<Tuning> = {
  // The api's requests are small JSON documents (a payment, a consent, a user): a MiB leaves ample room
  // and still refuses a runaway client before its body costs memory.
  apiBodyLimitBytes: 1024 * 1024,
  // Revocations evict at once through Redis; the TTL only bounds what a revocation lost while Redis was
  // away leaves behind. Half a minute of that spares a busy key a database round trip per request.
  authCacheSeconds: 30,
  // Postgres notifies every change, so the cache is never stale; 16 MiB holds the busy merchants' pages.
  readCacheMb: 16,
  // Keyed by the account's transactions version (never stale); 32 MiB holds the hot accounts' first pages.
  storedPageCacheMb: 32,
  // A Redis that lost its data loses the schedulers too: within 15 s they are back, for a few Redis reads.
  scheduleCheckSeconds: 15,
  // Banks back-date and amend bookings by days: a week re-read catches them at the cost of one more page.
  syncOverlapDays: 7,
  // The upstream's own maximum: fewest requests per sync (SYNC_CONCURRENCY bounds the memory).
  syncPageSize: 1000,
  // Accounts fall due over minutes (SYNC_INTERVAL_MINUTES, jittered): a minute late is never noticed.
  syncDispatchEverySeconds: 60,
  // A running sync touches its run every page, so this is longer than any healthy step, and a Redis that
  // forgot its jobs delays a queued run by about this much.
  syncRunIdleSeconds: 90,
  // Institutions change a few times a day at most.
  institutionsRefreshMinutes: 360,
  // Consents expire on dates, and the notice goes out days ahead (CONSENT_REFRESH_DAYS_BEFORE_EXPIRY).
  consentExpiryScanMinutes: 1440,
  // The fallback behind the upstream's consent webhooks: a few times a day finds what a lost webhook missed.
  consentReconcileMinutes: 360,
  // The fallback behind the payment webhooks; a user waits on a payment's status, so it is looked for often.
  paymentStatusPollSeconds: 5,
  // Prometheus scrapes every 15 to 60 s; the gauges' queries cost the same whoever asks.
  workerMetricsRefreshSeconds: 30,
  // The upstream's largest event is a few KiB; a quarter MiB bounds what an unauthenticated caller sends.
  webhookMaxBodyBytes: 256 * 1024,
  // What the Standard Webhooks reference package fixes (libs/crypto): we accept exactly what it accepts.
  webhookToleranceSeconds: 300,
  // A day lets every upstream retry signed with the old secret land after a rotation.
  upstreamWebhookSecretGraceHours: 24,
  // A merchant endpoint should only acknowledge; 5 s is generous for that and bounds a worker's wait.
  eventDeliveryTimeoutMs: 5_000,
  // Half a minute rides out a restart of the merchant's service; the doubling spreads the rest of the day.
  eventDeliveryBackoffSeconds: 30,
  // Three days of failures outlast a weekend outage before the endpoint is disabled.
  eventEndpointDisableAfterHours: 72,
  // One statement and one bulk of jobs a call, whatever the backlog: a caller with more calls again.
  // The system's resolver: what the connection would use.
  eventEndpointDnsPort: 0,
  eventRecoveryBatch: 10_000,
  // The safety net for what a crash or a Redis outage dropped between a commit and its job (and the check
  // that disables failing endpoints): half a minute late is fine for either.
  eventsSweepEverySeconds: 30,
  // Long enough for operators to look into a webhook and to recognise a late duplicate of it.
  inboxRetentionDays: 30,
  // Removes what aged out in the last hour, in small batches: no long transaction, no backlog.
  retentionSweepMinutes: 60,
  // Common proxies and load balancers close a connection idle for 60 s: a quarter of that keeps it open.
  sseHeartbeatSeconds: 15,
  // A replay from an old Last-Event-ID reads page after page: 500 events is one cheap query each.
  ssePageSize: 500,
};

/** The tuning values a test may set to 0: a cache or a schedule off, or no sync overlap. */
const MAY_BE_ZERO = new Set<keyof Tuning>([
  'authCacheSeconds',
  'readCacheMb',
  'storedPageCacheMb',
  'syncDispatchEverySeconds',
  'institutionsRefreshMinutes',
  'consentExpiryScanMinutes',
  'consentReconcileMinutes',
  'paymentStatusPollSeconds',
  'eventsSweepEverySeconds',
  'retentionSweepMinutes',
  'syncOverlapDays',
  'eventEndpointDnsPort',
]);

/**
 * The problems of a test's tuning, as `TEST_TUNING` gives it (JSON): an object of known names, each a
 * whole number (0 only where it turns something off). Returns the values, or the problems.
 */
export function parseTestTuning(raw: string): { tuning: Partial<Tuning>; problems: string[] } {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { tuning: {}, problems: ['TEST_TUNING: not JSON'] };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { tuning: {}, problems: ['TEST_TUNING: must be a JSON object of tuning values'] };
  const tuning: Partial<Tuning> = {};
  const problems: string[] = [];
  for (const [name, given] of Object.entries(value)) {
    if (!(name in TUNING)) {
      problems.push(`TEST_TUNING: ${name} is no tuning value (libs/config/src/tuning.ts)`);
      continue;
    }
    const key = name as keyof Tuning;
    const min = MAY_BE_ZERO.has(key) ? 0 : 1;
    if (typeof given !== 'number' || !Number.isSafeInteger(given) || given < min) {
      problems.push(
        `TEST_TUNING: ${name} must be a whole number of at least ${min} (got ${JSON.stringify(given)})`,
      );
      continue;
    }
    tuning[key] = given;
  }
  return { tuning, problems };
}

/**
 * The default number of account syncs a worker runs at once: a sync spends most of its time waiting (for
 * the bank's page, for Postgres's commit), so one core keeps about two busy. On two cores 2 at once used
 * under half of them (issue 82); more than 8 buys little and each holds two pages in memory.
 */
export function syncConcurrencyFor(cores: number): number {
  return Math.min(SYNCS_MAX_BY_DEFAULT, Math.max(SYNCS_PER_CORE, SYNCS_PER_CORE * cores));
}
export const SYNCS_PER_CORE = 2;
export const SYNCS_MAX_BY_DEFAULT = 8;
