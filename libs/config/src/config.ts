import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { DEV_SECRETS, EnvironmentVariables, LogLevel, NodeEnv } from './env.dto.js';
import { retiredSettingsIn } from './retired-settings.js';
import { parseTestTuning, TUNING, type Tuning } from './tuning.js';

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
    /** Fastify's `trustProxy`: false (none), a hop count, or the trusted addresses and CIDRs. */
    trustProxy: false | number | string[];
    adminToken: string;
    /** Requests per merchant (and per session user) per minute, shared by every api process. */
    rateLimitPerMinute: number;
  };
  database: { url: string; poolMax: number };
  redis: {
    url: string;
    /** Set: a Redis Cluster, and `url` is not used. */
    cluster: RedisClusterConfig | null;
    queuePrefix: string;
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
  };
  consents: {
    /** consent.expiring and the re-authorisation go out this many days before a data consent expires. */
    refreshDaysBeforeExpiry: number;
  };
  metrics: {
    /** Where the worker serves GET /metrics; port 0: it serves none. */
    workerHost: string;
    workerPort: number;
  };
  /**
   * OpenTelemetry tracing; null: off, and nothing of the SDK is loaded. On when OTEL_EXPORTER_OTLP_ENDPOINT
   * is set. The exporter reads the headers, timeout and compression from OpenTelemetry's own variables.
   */
  tracing: {
    /** The OTLP encoding, as OpenTelemetry's own protocol variables name it (otlpProtocolOf). */
    protocol: OtlpProtocol;
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
    auditDays: number;
    syncRunsPerAccount: number;
  };
  events: {
    /** Register our receiver for the root application at api start, unless one is still registered. */
    upstreamAutoRegister: boolean;
    /** Event jobs (fan-out, deliveries) one worker process runs at once: mostly waiting on endpoints. */
    concurrency: number;
    /** How long a delivery is retried before it is marked failed. */
    deliveryRetryHours: number;
    allowPrivateEndpoints: boolean;
  };
  /** The sandbox's root application is the upstream one: `upstream.applicationId` and `applicationSecret`. */
  sandbox: {
    host: string;
    port: number;
    publicUrl: string;
    adminToken: string;
    /** Null: state lives in memory only. */
    dataDir: string | null;
  };
  demoMerchantApiKey: string | null;
  /** The fixed cadences, sizes and protocol values (tuning.ts); only tests change them (TEST_TUNING). */
  tuning: Tuning;
  /** Removed settings the environment still sets (ignored; the api and the worker warn at boot). */
  retiredSettings: string[];
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
  // A test's shorter cadences (libs/testing's tuned()); never a deployment's: its values are the code's.
  let testTuning: Partial<Tuning> = {};
  if (source.TEST_TUNING) {
    if (env.NODE_ENV !== NodeEnv.Test) {
      problems.push('TEST_TUNING: read only when NODE_ENV=test (the tuning of a deployment is fixed)');
    } else {
      const parsed = parseTestTuning(source.TEST_TUNING);
      problems.push(...parsed.problems);
      testTuning = parsed.tuning;
    }
  }
  const { protocol, problem } = otlpProtocolOf(source);
  if (problem && env.OTEL_EXPORTER_OTLP_ENDPOINT) problems.push(problem);
  if (problems.length > 0) throw new ConfigValidationError(problems);

  return {
    env: env.NODE_ENV,
    logLevel: env.LOG_LEVEL,
    api: {
      host: env.API_HOST,
      port: env.API_PORT,
      publicUrl: (env.API_PUBLIC_URL ?? `http://localhost:${env.API_PORT}`).replace(/\/+$/, ''),
      trustProxy: trustProxyOf(env.API_TRUST_PROXY),
      adminToken: env.ADMIN_TOKEN,
      rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
    },
    database: { url: env.DATABASE_URL, poolMax: env.DATABASE_POOL_MAX },
    redis: {
      url: env.REDIS_URL,
      cluster: env.REDIS_CLUSTER_NODES ? parseClusterNodes(env.REDIS_CLUSTER_NODES) : null,
      queuePrefix: env.QUEUE_PREFIX,
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
    },
    consents: { refreshDaysBeforeExpiry: env.CONSENT_REFRESH_DAYS_BEFORE_EXPIRY },
    metrics: { workerHost: env.WORKER_METRICS_HOST, workerPort: env.WORKER_METRICS_PORT },
    tracing: tracingOf(env, protocol),
    demo: {
      publicUrl: env.DEMO_PUBLIC_URL ? env.DEMO_PUBLIC_URL.replace(/\/+$/, '') : null,
      port: env.DEMO_PORT,
    },
    retention: {
      eventDays: env.EVENT_RETENTION_DAYS,
      auditDays: env.AUDIT_RETENTION_DAYS,
      syncRunsPerAccount: env.SYNC_RUNS_KEPT_PER_ACCOUNT,
    },
    events: {
      upstreamAutoRegister: env.UPSTREAM_WEBHOOK_AUTO_REGISTER === 'true',
      concurrency: env.EVENTS_CONCURRENCY,
      deliveryRetryHours: env.EVENT_DELIVERY_RETRY_HOURS,
      allowPrivateEndpoints: env.EVENT_ENDPOINTS_ALLOW_PRIVATE
        ? env.EVENT_ENDPOINTS_ALLOW_PRIVATE === 'true'
        : !production,
    },
    sandbox: {
      host: env.SANDBOX_HOST,
      port: env.SANDBOX_PORT,
      publicUrl: (env.SANDBOX_PUBLIC_URL ?? `http://localhost:${env.SANDBOX_PORT}`).replace(/\/+$/, ''),
      adminToken: env.SANDBOX_ADMIN_TOKEN,
      dataDir: env.SANDBOX_DATA_DIR || null,
    },
    // A well-known key must never open a production deployment: unset there means no demo merchant
    // (and the published default is refused above).
    demoMerchantApiKey:
      production && !source.DEMO_MERCHANT_API_KEY ? null : env.DEMO_MERCHANT_API_KEY || null,
    retiredSettings: retiredSettingsIn(source),
    tuning: { ...TUNING, ...testTuning },
  };
}

export type OtlpProtocol = 'http/protobuf' | 'http/json';

/**
 * The OTLP encoding, from OpenTelemetry's standard variables (the traces one over the general one; default
 * http/protobuf), as its specification defines them: not settings of ours, but read here because the
 * exporter package depends on it, and gRPC, which is not shipped, must stop the boot rather than export
 * nothing.
 */
function otlpProtocolOf(source: Record<string, string | undefined>): {
  protocol: OtlpProtocol;
  problem?: string;
} {
  const name = source.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const value = source[name] || 'http/protobuf';
  if (value === 'http/protobuf' || value === 'http/json') return { protocol: value };
  const problem = `${name}: http/protobuf or http/json, the only encodings shipped (got ${JSON.stringify(value)})`;
  return { protocol: 'http/protobuf', problem };
}

/** Tracing is on when an OTLP endpoint is set; the exporter reads OpenTelemetry's other variables itself. */
function tracingOf(env: EnvironmentVariables, protocol: OtlpProtocol): AppConfig['tracing'] {
  return env.OTEL_EXPORTER_OTLP_ENDPOINT ? { protocol, serviceName: env.OTEL_SERVICE_NAME ?? null } : null;
}

/** The names of every setting, for `.env.example` checks and docs. */
export const SETTING_NAMES: readonly string[] = Object.keys(new EnvironmentVariables());
