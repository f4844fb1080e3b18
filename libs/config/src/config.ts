import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { DEV_SECRETS, EnvironmentVariables, LogLevel, NodeEnv } from './env.dto.js';

export interface EncryptionKey {
  id: string;
  key: Buffer;
}

function trustProxyOf(value: string | undefined): false | number | string[] {
  if (!value?.trim()) return false;
  if (/^\d+$/.test(value.trim())) return Number(value);
  return value.split(',').map((part) => part.trim());
}

/** The one typed configuration object; built once at boot by {@link loadConfig}. */
export interface AppConfig {
  env: NodeEnv;
  logLevel: LogLevel;
  api: {
    host: string;
    port: number;
    publicUrl: string;
    bodyLimitBytes: number;
    /** Fastify's `trustProxy`: false (none), a hop count, or the trusted addresses and CIDRs. */
    trustProxy: false | number | string[];
    adminToken: string;
    /** Requests per merchant (and per session user) per minute, shared by every api process. */
    rateLimitPerMinute: number;
    /** 0: every request verifies its credentials against Postgres. */
    authCacheSeconds: number;
    /** 0: every page view reads Postgres. */
    readCacheMb: number;
  };
  database: { url: string; poolMax: number };
  redis: {
    url: string;
    /** Set: a Redis Cluster, and `url` is not used. */
    cluster: RedisClusterConfig | null;
    queuePrefix: string;
    /** How often a worker makes sure its job schedulers exist (they are also checked on every reconnect). */
    scheduleCheckSeconds: number;
  };
  upstream: {
    baseUrl: string;
    applicationId: string;
    applicationSecret: string;
    apiVersion: '1' | '2.0-ALPHA';
    timeoutMs: number;
  };
  crypto: {
    /** The first key encrypts; every key decrypts. */
    encryptionKeys: EncryptionKey[];
    signingSecret: string;
    sessionTtlSeconds: number;
  };
  sync: {
    workerConcurrency: number;
    /** Account syncs one worker process runs at once (each holds up to two pages of 1,000 records). */
    syncConcurrency: number;
    /** How long after a sync an account falls due again (jittered by up to a tenth either way). */
    intervalMinutes: number;
    /** How far before the newest booked transaction an incremental sync starts. */
    overlapDays: number;
    /** Records a sync asks the upstream for per page (the upstream allows 1 to 1,000). */
    pageSize: number;
    /** Megabytes of stored-transaction pages each api process keeps (keyed by the account's version); 0: none. */
    storedPageCacheMb: number;
    /** How often the dispatcher looks for accounts that are due; 0: this worker does not schedule it. */
    dispatchEverySeconds: number;
    /**
     * A queued or running run nobody touched this long may have lost its job (Redis forgot it, or it failed
     * by stalling): the dispatcher makes sure of its job. Restarting a job that is fine changes nothing.
     */
    runIdleSeconds: number;
    /** How often the worker refreshes the institutions cache from the upstream; 0: not scheduled here. */
    institutionsRefreshMinutes: number;
  };
  consents: {
    /** consent.expiring and the re-authorisation go out this many days before a data consent expires. */
    refreshDaysBeforeExpiry: number;
    /** How often the expiry scan runs; 0: not scheduled by this worker. */
    expiryScanMinutes: number;
    /** How often reconciliation with the upstream runs; 0: not scheduled by this worker. */
    reconcileMinutes: number;
  };
  payments: {
    /**
     * How often the worker looks for payments whose status check is due (each is checked soon after it
     * starts, then less often: a quarter of its age, at most every 15 minutes); 0: not scheduled here.
     */
    statusPollSeconds: number;
  };
  metrics: {
    /** Where the worker serves GET /metrics; port 0: it serves none. */
    workerHost: string;
    workerPort: number;
    /** The worker's queue and database gauges are recomputed at most this often (a scrape in between reads the last). */
    refreshSeconds: number;
  };
  /**
   * OpenTelemetry tracing; null: off, and nothing of the SDK is loaded. On when an OTLP endpoint is set (or
   * OTEL_TRACES_EXPORTER=otlp), unless OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true. The exporter
   * reads the endpoint, headers, timeout and compression from the standard variables itself.
   */
  tracing: {
    protocol: 'http/protobuf' | 'http/json';
    /** OTEL_SERVICE_NAME; null: the app's own name. */
    serviceName: string | null;
  } | null;
  demo: {
    /** The demo merchant app's URL when it runs (GET / on the api links to it); null otherwise. */
    publicUrl: string | null;
    /** Where the demo merchant app listens (it serves itself at publicUrl, else http://localhost:port). */
    port: number;
  };
  retention: {
    eventDays: number;
    inboxDays: number;
    auditDays: number;
    syncRunsPerAccount: number;
    /** 0: this worker does not schedule the sweep. */
    sweepMinutes: number;
  };
  events: {
    signatureScheme: 'standard-webhooks';
    webhookMaxBodyBytes: number;
    webhookToleranceSeconds: number;
    /** How long a replaced upstream webhook secret still verifies. */
    upstreamSecretGraceHours: number;
    /** Register our receiver for the root application at api start, unless one is still registered. */
    upstreamAutoRegister: boolean;
    /** Event jobs (fan-out, deliveries) one worker process runs at once: mostly waiting on endpoints. */
    concurrency: number;
    deliveryTimeoutMs: number;
    /** The first retry's delay; each further one doubles it (capped at an hour), jittered. */
    deliveryBackoffSeconds: number;
    /** How long a delivery is retried before it is marked failed. */
    deliveryRetryHours: number;
    /** An endpoint failing without a single success for this long is disabled. */
    endpointDisableAfterHours: number;
    allowPrivateEndpoints: boolean;
    /** How often the worker re-enqueues inbox rows and deliveries lost from Redis; 0: not scheduled here. */
    sweepEverySeconds: number;
    sseHeartbeatSeconds: number;
    /** Events an open stream reads from Postgres per query (a replay reads page after page). */
    ssePageSize: number;
  };
  sandbox: {
    host: string;
    port: number;
    publicUrl: string;
    appId: string;
    appSecret: string;
    adminToken: string;
    /** Null: state lives in memory only. */
    dataDir: string | null;
  };
  demoMerchantApiKey: string | null;
}

export class ConfigValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigValidationError';
  }
}

function describe(errors: ValidationError[]): string[] {
  return errors.flatMap((e) =>
    Object.values(e.constraints ?? {}).map((message) =>
      // class-validator messages start with the property name; say what was given (never a secret).
      /SECRET|TOKEN|KEY|PASSWORD/.test(e.property) ||
      e.property === 'DATABASE_URL' ||
      e.property === 'REDIS_URL' ||
      e.property === 'REDIS_CLUSTER_NODES'
        ? `${e.property}: ${message}`
        : `${e.property}: ${message} (got ${JSON.stringify(e.value)})`,
    ),
  );
}

/** A Redis Cluster's seed nodes, and the credentials and TLS every node shares. */
export interface RedisClusterConfig {
  nodes: { host: string; port: number }[];
  password?: string;
  username?: string;
  tls: boolean;
}

function parseClusterNodes(raw: string): RedisClusterConfig {
  const urls = raw.split(',').map((entry) => new URL(entry.includes('://') ? entry : `redis://${entry}`));
  const withAuth = urls.find((u) => u.password);
  return {
    nodes: urls.map((u) => ({ host: u.hostname, port: Number(u.port) })),
    ...(withAuth ? { password: decodeURIComponent(withAuth.password) } : {}),
    ...(withAuth?.username ? { username: decodeURIComponent(withAuth.username) } : {}),
    tls: urls.some((u) => u.protocol === 'rediss:'),
  };
}

function parseKeys(raw: string): EncryptionKey[] {
  return raw.split(',').map((pair) => {
    const [id, b64] = pair.split(':') as [string, string];
    return { id, key: Buffer.from(b64, 'base64') };
  });
}

/**
 * Validates the environment and returns the typed configuration. Empty strings count as unset, so a
 * blank line in `.env` falls back to the default instead of failing obscurely.
 */
export function loadConfig(source: Record<string, string | undefined> = process.env): AppConfig {
  const known = Object.keys(new EnvironmentVariables());
  const plain: Record<string, string> = {};
  for (const name of known) {
    const value = source[name];
    if (value !== undefined && value !== '') plain[name] = value;
  }
  const env = plainToInstance(EnvironmentVariables, plain, { exposeDefaultValues: true });
  // One message per setting: "not an integer" says it; "less than min" on top would only confuse.
  const problems = describe(
    validateSync(env, { whitelist: true, forbidUnknownValues: true, stopAtFirstError: true }),
  );

  // The regexes above check the scheme; the URL parser checks the rest (a stray bracket, a bad port).
  for (const name of ['DATABASE_URL', 'REDIS_URL'] as const) {
    if (problems.some((p) => p.startsWith(name))) continue;
    try {
      const url = new URL(env[name]);
      if (name === 'REDIS_URL' && !/^\/?\d*$/.test(url.pathname))
        problems.push('REDIS_URL: the database must be a number, as in redis://host:6379/0');
    } catch {
      problems.push(`${name}: not a valid URL`);
    }
  }

  const keys = problems.some((p) => p.startsWith('ENCRYPTION_KEYS')) ? [] : parseKeys(env.ENCRYPTION_KEYS);
  if (keys.some((k) => k.key.length !== 32)) problems.push('ENCRYPTION_KEYS: every key must be 32 bytes');
  if (new Set(keys.map((k) => k.id)).size !== keys.length)
    problems.push('ENCRYPTION_KEYS: key ids must be unique');

  const production = env.NODE_ENV === NodeEnv.Production;
  if (production) {
    for (const [name, devValue] of Object.entries(DEV_SECRETS)) {
      // The demo key's default is not in force in production (see demoMerchantApiKey): only an explicit one counts.
      const value =
        name === 'DEMO_MERCHANT_API_KEY'
          ? source.DEMO_MERCHANT_API_KEY
          : (env as unknown as Record<string, string | undefined>)[name];
      if (value === devValue || (name === 'ENCRYPTION_KEYS' && value?.includes(devValue))) {
        problems.push(`${name}: the development default must not be used when NODE_ENV=production`);
      }
    }
    if (!env.UPSTREAM_BASE_URL) problems.push('UPSTREAM_BASE_URL: required when NODE_ENV=production');
  }
  if (problems.length > 0) throw new ConfigValidationError(problems);

  return {
    env: env.NODE_ENV,
    logLevel: env.LOG_LEVEL,
    api: {
      host: env.API_HOST,
      port: env.API_PORT,
      publicUrl: (env.API_PUBLIC_URL ?? `http://localhost:${env.API_PORT}`).replace(/\/+$/, ''),
      bodyLimitBytes: env.API_BODY_LIMIT_BYTES,
      trustProxy: trustProxyOf(env.API_TRUST_PROXY),
      adminToken: env.ADMIN_TOKEN,
      rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
      authCacheSeconds: env.AUTH_CACHE_SECONDS,
      readCacheMb: env.READ_CACHE_MB,
    },
    database: { url: env.DATABASE_URL, poolMax: env.DATABASE_POOL_MAX },
    redis: {
      url: env.REDIS_URL,
      cluster: env.REDIS_CLUSTER_NODES ? parseClusterNodes(env.REDIS_CLUSTER_NODES) : null,
      queuePrefix: env.QUEUE_PREFIX,
      scheduleCheckSeconds: env.QUEUE_SCHEDULE_CHECK_SECONDS,
    },
    upstream: {
      baseUrl: (env.UPSTREAM_BASE_URL ?? `http://127.0.0.1:${env.SANDBOX_PORT}`).replace(/\/+$/, ''),
      applicationId: env.UPSTREAM_APPLICATION_ID,
      applicationSecret: env.UPSTREAM_APPLICATION_SECRET,
      apiVersion: env.UPSTREAM_API_VERSION as '1' | '2.0-ALPHA',
      timeoutMs: env.UPSTREAM_TIMEOUT_MS,
    },
    crypto: {
      encryptionKeys: keys,
      signingSecret: env.SIGNING_SECRET,
      sessionTtlSeconds: env.SESSION_TTL_SECONDS,
    },
    sync: {
      workerConcurrency: env.WORKER_CONCURRENCY,
      syncConcurrency: env.SYNC_CONCURRENCY,
      intervalMinutes: env.SYNC_INTERVAL_MINUTES,
      overlapDays: env.SYNC_OVERLAP_DAYS,
      pageSize: env.SYNC_PAGE_SIZE,
      storedPageCacheMb: env.STORED_PAGE_CACHE_MB,
      dispatchEverySeconds: env.SYNC_DISPATCH_EVERY_SECONDS,
      runIdleSeconds: env.SYNC_RUN_IDLE_SECONDS,
      institutionsRefreshMinutes: env.INSTITUTIONS_REFRESH_MINUTES,
    },
    consents: {
      refreshDaysBeforeExpiry: env.CONSENT_REFRESH_DAYS_BEFORE_EXPIRY,
      expiryScanMinutes: env.CONSENT_EXPIRY_SCAN_MINUTES,
      reconcileMinutes: env.CONSENT_RECONCILE_MINUTES,
    },
    payments: { statusPollSeconds: env.PAYMENT_STATUS_POLL_SECONDS },
    metrics: {
      workerHost: env.WORKER_METRICS_HOST,
      workerPort: env.WORKER_METRICS_PORT,
      refreshSeconds: env.WORKER_METRICS_REFRESH_SECONDS,
    },
    tracing: tracingOf(env),
    demo: {
      publicUrl: env.DEMO_PUBLIC_URL ? env.DEMO_PUBLIC_URL.replace(/\/+$/, '') : null,
      port: env.DEMO_PORT,
    },
    retention: {
      eventDays: env.EVENT_RETENTION_DAYS,
      inboxDays: env.INBOX_RETENTION_DAYS,
      auditDays: env.AUDIT_RETENTION_DAYS,
      syncRunsPerAccount: env.SYNC_RUNS_KEPT_PER_ACCOUNT,
      sweepMinutes: env.RETENTION_SWEEP_MINUTES,
    },
    events: {
      signatureScheme: env.WEBHOOK_SIGNATURE_SCHEME as 'standard-webhooks',
      webhookMaxBodyBytes: env.WEBHOOK_MAX_BODY_BYTES,
      webhookToleranceSeconds: env.WEBHOOK_TOLERANCE_SECONDS,
      upstreamSecretGraceHours: env.UPSTREAM_WEBHOOK_SECRET_GRACE_HOURS,
      upstreamAutoRegister: env.UPSTREAM_WEBHOOK_AUTO_REGISTER === 'true',
      concurrency: env.EVENTS_CONCURRENCY,
      deliveryTimeoutMs: env.EVENT_DELIVERY_TIMEOUT_MS,
      deliveryBackoffSeconds: env.EVENT_DELIVERY_BACKOFF_SECONDS,
      deliveryRetryHours: env.EVENT_DELIVERY_RETRY_HOURS,
      endpointDisableAfterHours: env.EVENT_ENDPOINT_DISABLE_AFTER_HOURS,
      allowPrivateEndpoints: env.EVENT_ENDPOINTS_ALLOW_PRIVATE
        ? env.EVENT_ENDPOINTS_ALLOW_PRIVATE === 'true'
        : !production,
      sweepEverySeconds: env.EVENTS_SWEEP_SECONDS,
      sseHeartbeatSeconds: env.SSE_HEARTBEAT_SECONDS,
      ssePageSize: env.SSE_PAGE_SIZE,
    },
    sandbox: {
      host: env.SANDBOX_HOST,
      port: env.SANDBOX_PORT,
      publicUrl: (env.SANDBOX_PUBLIC_URL ?? `http://localhost:${env.SANDBOX_PORT}`).replace(/\/+$/, ''),
      appId: env.SANDBOX_APP_ID,
      appSecret: env.SANDBOX_APP_SECRET,
      adminToken: env.SANDBOX_ADMIN_TOKEN,
      dataDir: env.SANDBOX_DATA_DIR || null,
    },
    // A well-known key must never open a production deployment: unset there means no demo merchant
    // (and the published default is refused above).
    demoMerchantApiKey:
      production && !source.DEMO_MERCHANT_API_KEY ? null : env.DEMO_MERCHANT_API_KEY || null,
  };
}

/** Tracing's switch, from OpenTelemetry's own variables (their meaning is the specification's). */
function tracingOf(env: EnvironmentVariables): AppConfig['tracing'] {
  const exporter =
    env.OTEL_TRACES_EXPORTER ??
    (env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? 'otlp' : 'none');
  if (exporter === 'none' || env.OTEL_SDK_DISABLED === 'true') return null;
  return {
    protocol: (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL) as
      'http/protobuf' | 'http/json',
    serviceName: env.OTEL_SERVICE_NAME ?? null,
  };
}

/** The names of every setting, for `.env.example` checks and docs. */
export const SETTING_NAMES: readonly string[] = Object.keys(new EnvironmentVariables());
