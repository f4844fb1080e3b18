import 'reflect-metadata';
import { availableParallelism } from 'node:os';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import type {
  AppConfig,
  EncryptionKey,
  OtlpProtocol,
  RedisClusterConfig,
  RedisSentinelConfig,
} from './app-config.js';
import { DEV_SECRETS, EnvironmentVariables, NodeEnv } from './env.dto.js';
import { retiredSettingsIn } from './retired-settings.js';
import { parseTestTuning, syncConcurrencyFor, TUNING, type Tuning } from './tuning.js';

// Kept whole: the environment is read, checked and mapped in one pass over the settings of env.dto.ts.

function trustProxyOf(value: string | undefined): false | number | string[] {
  if (!value?.trim()) return false;
  if (/^\d+$/.test(value.trim())) return Number(value);
  return value.split(',').map((part) => part.trim());
}

/** The names of every setting, for `.env.example` checks and docs. */
export const SETTING_NAMES: readonly string[] = Object.keys(new EnvironmentVariables());

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
      // A connection URL may carry its password.
      /^DATABASE_.*URL$/.test(e.property) ||
      e.property === 'REDIS_URL' ||
      e.property === 'REDIS_CLUSTER_NODES'
        ? `${e.property}: ${message}`
        : `${e.property}: ${message} (got ${JSON.stringify(e.value)})`,
    ),
  );
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

function parseSentinels(env: EnvironmentVariables): RedisSentinelConfig | null {
  if (!env.REDIS_SENTINELS || !env.REDIS_SENTINEL_NAME) return null;
  return {
    sentinels: env.REDIS_SENTINELS.split(',').map((entry) => {
      const [host, port] = entry.split(':') as [string, string];
      return { host, port: Number(port) };
    }),
    name: env.REDIS_SENTINEL_NAME,
    ...(env.REDIS_SENTINEL_PASSWORD ? { password: env.REDIS_SENTINEL_PASSWORD } : {}),
  };
}

/** The three ways to find Redis, one at a time, and Sentinel's two settings together. */
function redisTopologyProblems(env: EnvironmentVariables): string[] {
  const problems: string[] = [];
  if (env.REDIS_SENTINELS && env.REDIS_CLUSTER_NODES)
    problems.push(
      'REDIS_SENTINELS: not with REDIS_CLUSTER_NODES (a cluster promotes its replicas itself): set one of them',
    );
  if (env.REDIS_SENTINELS && !env.REDIS_SENTINEL_NAME)
    problems.push(
      'REDIS_SENTINEL_NAME: required with REDIS_SENTINELS (the name in `sentinel monitor <name> …`)',
    );
  // TLS to a master found through sentinels takes options of its own (sentinels and master apart): not built.
  if (env.REDIS_SENTINELS && env.REDIS_URL.startsWith('rediss:'))
    problems.push('REDIS_URL: rediss:// (TLS) is not supported with REDIS_SENTINELS');
  if (!env.REDIS_SENTINELS && (env.REDIS_SENTINEL_NAME || env.REDIS_SENTINEL_PASSWORD))
    problems.push('REDIS_SENTINELS: required when REDIS_SENTINEL_NAME or REDIS_SENTINEL_PASSWORD is set');
  return problems;
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
  const plain: Record<string, string> = {};
  for (const name of SETTING_NAMES) {
    const value = source[name];
    if (value !== undefined && value !== '') plain[name] = value;
  }
  const env = plainToInstance(EnvironmentVariables, plain, { exposeDefaultValues: true });
  // One message per setting: "not an integer" says it; "less than min" on top would only confuse.
  const problems = describe(
    validateSync(env, { whitelist: true, forbidUnknownValues: true, stopAtFirstError: true }),
  );
  problems.push(...urlProblems(env, problems));
  problems.push(...redisTopologyProblems(env));
  // Through a transaction pooler a LISTEN would hear nothing once its transaction ends, silently.
  if (env.DATABASE_POOLER === 'transaction' && !env.DATABASE_DIRECT_URL)
    problems.push(
      'DATABASE_DIRECT_URL: required when DATABASE_POOLER=transaction (LISTEN and migrations need a session)',
    );
  const keys = problems.some((p) => p.startsWith('ENCRYPTION_KEYS')) ? [] : parseKeys(env.ENCRYPTION_KEYS);
  if (keys.some((k) => k.key.length !== 32)) problems.push('ENCRYPTION_KEYS: every key must be 32 bytes');
  if (new Set(keys.map((k) => k.id)).size !== keys.length)
    problems.push('ENCRYPTION_KEYS: key ids must be unique');
  const production = env.NODE_ENV === NodeEnv.Production;
  if (production) problems.push(...productionProblems(env, source));
  const testTuning = testTuningOf(env, source, problems);
  const { protocol, problem } = otlpProtocolOf(source);
  if (problem && env.OTEL_EXPORTER_OTLP_ENDPOINT) problems.push(problem);
  if (problems.length > 0) throw new ConfigValidationError(problems);
  return configOf(env, source, { keys, production, testTuning, protocol });
}

/** The regexes of env.dto.ts check the scheme; the URL parser checks the rest (a stray bracket, a bad port). */
function urlProblems(env: EnvironmentVariables, found: string[]): string[] {
  const problems: string[] = [];
  for (const name of ['DATABASE_URL', 'DATABASE_DIRECT_URL', 'DATABASE_REPLICA_URL', 'REDIS_URL'] as const) {
    if (found.some((p) => p.startsWith(name)) || env[name] === undefined) continue;
    try {
      const url = new URL(env[name]);
      if (name === 'REDIS_URL' && !/^\/?\d*$/.test(url.pathname))
        problems.push('REDIS_URL: the database must be a number, as in redis://host:6379/0');
    } catch {
      problems.push(`${name}: not a valid URL`);
    }
  }
  return problems;
}

/** In production, no development default of a secret, and a real upstream. */
function productionProblems(env: EnvironmentVariables, source: Record<string, string | undefined>): string[] {
  const problems: string[] = [];
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
  return problems;
}

/** A test's shorter cadences (libs/testing's tuned()); never a deployment's: its values are the code's. */
function testTuningOf(
  env: EnvironmentVariables,
  source: Record<string, string | undefined>,
  problems: string[],
): Partial<Tuning> {
  if (!source.TEST_TUNING) return {};
  if (env.NODE_ENV !== NodeEnv.Test) {
    problems.push('TEST_TUNING: read only when NODE_ENV=test (the tuning of a deployment is fixed)');
    return {};
  }
  const parsed = parseTestTuning(source.TEST_TUNING);
  problems.push(...parsed.problems);
  return parsed.tuning;
}

/** The validated environment as the typed object: one line per setting. */
function configOf(
  env: EnvironmentVariables,
  source: Record<string, string | undefined>,
  {
    keys,
    production,
    testTuning,
    protocol,
  }: { keys: EncryptionKey[]; production: boolean; testTuning: Partial<Tuning>; protocol: OtlpProtocol },
): AppConfig {
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
    database: {
      url: env.DATABASE_URL,
      poolMax: env.DATABASE_POOL_MAX,
      pooler: env.DATABASE_POOLER,
      directUrl: env.DATABASE_DIRECT_URL ?? env.DATABASE_URL,
      replicaUrl: env.DATABASE_REPLICA_URL ?? null,
    },
    redis: {
      url: env.REDIS_URL,
      cluster: env.REDIS_CLUSTER_NODES ? parseClusterNodes(env.REDIS_CLUSTER_NODES) : null,
      sentinel: parseSentinels(env),
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
      syncConcurrency: env.SYNC_CONCURRENCY ?? syncConcurrencyFor(availableParallelism()),
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
