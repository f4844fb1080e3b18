import { Transform } from 'class-transformer';
import {
  IsEnum,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { SYNCS_MAX_BY_DEFAULT, SYNCS_PER_CORE } from './tuning.js';

/**
 * Every environment variable the system reads, with its dev default and, in `@Setting`, its one-line
 * meaning: `.env.example` is generated from this class (`npm run config:example`; a test compares).
 * Defaults point at the local sandbox so that `npm start` works with no file at all; `production`
 * refuses the dev secrets (see config.ts). An empty value is the same as an unset one: the default.
 * Kept whole past 300 lines: it is the one list of settings, and split it would be two lists.
 */

export enum NodeEnv {
  Development = 'development',
  Test = 'test',
  Production = 'production',
}

export enum LogLevel {
  Fatal = 'fatal',
  Error = 'error',
  Warn = 'warn',
  Info = 'info',
  Debug = 'debug',
  Trace = 'trace',
  Silent = 'silent',
}

/** What `.env.example` says of a setting. */
export interface SettingDoc {
  /** One line: what the setting does, and what an empty value means when that is not its default. */
  meaning: string;
  /** Starts a new section of `.env.example`, under this heading. */
  section?: string;
  /** The value `.env.example` shows, when it is not the default (one that depends on NODE_ENV). */
  example?: string;
}

const SETTING_DOCS = new Map<string, SettingDoc>();

/** Documents a setting for `.env.example`; every property of {@link EnvironmentVariables} has one. */
function Setting(meaning: string, options: Omit<SettingDoc, 'meaning'> = {}): PropertyDecorator {
  return (_target, key) => {
    SETTING_DOCS.set(String(key), { meaning, ...options });
  };
}

/** The documentation of a setting, as `@Setting` gave it. */
export function settingDoc(name: string): SettingDoc | undefined {
  return SETTING_DOCS.get(name);
}

const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value;

const LOCAL_URL = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

/** The dev secrets; config.ts rejects them when NODE_ENV=production. */
export const DEV_SECRETS = {
  ADMIN_TOKEN: 'dev-admin-token-change-me',
  ENCRYPTION_KEYS: 'dev1:ZGV2LW9ubHktZW5jcnlwdGlvbi1rZXktMzItYnl0ZXM=',
  SIGNING_SECRET: 'dev-signing-secret-change-me-0123456789',
  UPSTREAM_APPLICATION_SECRET: 'sandbox-secret',
  SANDBOX_ADMIN_TOKEN: 'sandbox-admin-token',
  DEMO_MERCHANT_API_KEY: 'mk_demo_0123456789abcdefdemo',
} as const;

export class EnvironmentVariables {
  @Setting('development | test | production (production rejects the development secrets)', {
    section: 'runtime',
  })
  @IsEnum(NodeEnv)
  NODE_ENV: NodeEnv = NodeEnv.Development;

  @Setting('fatal | error | warn | info | debug | trace | silent')
  @IsEnum(LogLevel)
  LOG_LEVEL: LogLevel = LogLevel.Info;

  @Setting('Interface the api listens on (0.0.0.0 in containers)', { section: 'api' })
  @IsString()
  API_HOST = '127.0.0.1';

  @Setting('Port of the merchant API, health, metrics and docs')
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  API_PORT = 3000;

  /** Where browsers and the upstream reach the api (consent callbacks, webhook receiver); default from API_PORT. */
  @Setting(
    'Public base URL of the api, for consent callbacks and the webhook receiver (empty: http://localhost:$API_PORT)',
  )
  @IsOptional()
  @IsUrl(LOCAL_URL)
  API_PUBLIC_URL?: string = undefined;

  @Setting(
    'Proxies trusted to name the client address (X-Forwarded-For; sent upstream as psu-ip-address): empty for none, a hop count, or IPs and CIDRs comma-separated',
  )
  @IsOptional()
  @Matches(/^(\d{1,2}|[0-9A-Fa-f:.]+(\/\d{1,3})?(\s*,\s*[0-9A-Fa-f:.]+(\/\d{1,3})?)*)?$/, {
    message: 'API_TRUST_PROXY must be empty, a hop count, or IP addresses and CIDRs separated by commas',
  })
  API_TRUST_PROXY?: string = undefined;

  @Setting('Operator bearer token for /admin/* (at least 16 characters)')
  @IsString()
  @MinLength(16)
  ADMIN_TOKEN: string = DEV_SECRETS.ADMIN_TOKEN;

  @Setting(
    'Requests per minute per merchant (and per session user), counted in Redis across every api process',
  )
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  RATE_LIMIT_PER_MINUTE = 600;

  @Setting('Postgres connection URL (npm test uses the same server with the database name suffixed _test)', {
    section: 'storage',
  })
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgresql:// URL' })
  DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/bff';

  @Setting('Connections per process in the Postgres pool')
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(500)
  DATABASE_POOL_MAX = 10;

  /**
   * `transaction`: DATABASE_URL is a pooler in transaction mode (PgBouncer), whose server connections change
   * between transactions: the pool sends no named statements and no startup settings (the statement bound is
   * the server's: docs/operations.md#behind-pgbouncer), and what needs a session goes to DATABASE_DIRECT_URL.
   */
  @Setting(
    'none | transaction: DATABASE_URL goes through a transaction-mode pooler (PgBouncer); needs DATABASE_DIRECT_URL',
  )
  @IsIn(['none', 'transaction'])
  DATABASE_POOLER: 'none' | 'transaction' = 'none';

  /** The read cache's and outbox relay's LISTEN and the migrator's lock hold a session: never a pooler's. */
  @Setting(
    'Postgres URL bypassing the pooler, for what needs a session: LISTEN and migrations (empty: DATABASE_URL)',
  )
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_DIRECT_URL must be a postgresql:// URL' })
  DATABASE_DIRECT_URL?: string = undefined;

  /** Reads that may be a little behind go there, each merchant's after its own writes are replayed. */
  @Setting(
    'Postgres URL of a streaming read replica for stored pages, lists, the change feed and events (empty: every read on DATABASE_URL)',
  )
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_REPLICA_URL must be a postgresql:// URL' })
  DATABASE_REPLICA_URL?: string = undefined;

  @Setting('Redis URL for queues, rate limits and caches (rediss:// for TLS)')
  @Matches(/^rediss?:\/\//, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
  REDIS_URL = 'redis://127.0.0.1:6379/0';

  /**
   * A Redis Cluster instead of REDIS_URL: its nodes, comma-separated, as `host:port` or `redis://[:password@]host:port`
   * (`rediss://` for TLS); any few masters will do, the rest are discovered.
   */
  @Setting(
    'A Redis Cluster instead (replaces REDIS_URL): host:port or redis://[:password@]host:port, comma-separated',
  )
  @IsOptional()
  @Matches(
    /^(?:(?:rediss?:\/\/(?:[^@/\s,]*@)?)?[A-Za-z0-9.-]+:\d{1,5})(?:,(?:(?:rediss?:\/\/(?:[^@/\s,]*@)?)?[A-Za-z0-9.-]+:\d{1,5}))*$/,
    {
      message: 'REDIS_CLUSTER_NODES must list host:port (or redis://host:port) entries, comma-separated',
    },
  )
  REDIS_CLUSTER_NODES?: string = undefined;

  /**
   * Redis Sentinel instead of REDIS_URL's host: every client asks the sentinels for the master of
   * REDIS_SENTINEL_NAME and follows a failover. REDIS_URL still gives the master's password and database.
   */
  @Setting(
    'Redis Sentinel instead (the master is asked of them; REDIS_URL gives only its password and database): host:port, comma-separated',
  )
  @IsOptional()
  @Matches(/^[A-Za-z0-9.-]+:\d{1,5}(?:,[A-Za-z0-9.-]+:\d{1,5})*$/, {
    message: 'REDIS_SENTINELS must list host:port entries, comma-separated',
  })
  REDIS_SENTINELS?: string = undefined;

  @Setting(
    'The master group the sentinels monitor (`sentinel monitor <name> …`); required with REDIS_SENTINELS',
  )
  @IsOptional()
  @Matches(/^[A-Za-z0-9._-]{1,64}$/, { message: 'REDIS_SENTINEL_NAME must be a sentinel master name' })
  REDIS_SENTINEL_NAME?: string = undefined;

  @Setting('Password of the sentinels themselves (empty: they ask none), not of the master')
  @IsOptional()
  @IsString()
  REDIS_SENTINEL_PASSWORD?: string = undefined;

  /** Namespaces every BullMQ key, so several deployments (or test runs) can share one Redis. */
  @Setting('Prefix of every BullMQ key, so several deployments can share one Redis')
  @Matches(/^[A-Za-z0-9_-]{1,32}$/)
  QUEUE_PREFIX = 'bff';

  /** Default: the local sandbox on SANDBOX_PORT. Required in production. */
  @Setting(
    'Base URL of the upstream API (empty: the local sandbox, http://127.0.0.1:$SANDBOX_PORT; required in production)',
    { section: 'upstream (the aggregation service; the local sandbox by default)' },
  )
  @IsOptional()
  @IsUrl(LOCAL_URL)
  UPSTREAM_BASE_URL?: string = undefined;

  @Setting('Root application id (HTTP Basic username); the sandbox seeds its root application with it')
  @IsString()
  @MinLength(1)
  UPSTREAM_APPLICATION_ID = '00000000-0000-4000-8000-000000000001';

  @Setting("Root application secret (HTTP Basic password); the sandbox's root application has it too")
  @IsString()
  @MinLength(1)
  UPSTREAM_APPLICATION_SECRET: string = DEV_SECRETS.UPSTREAM_APPLICATION_SECRET;

  /** `1` sends no version header; `2.0-ALPHA` opts into version 2 of the upstream interface. */
  @Setting('Upstream interface version: 1, or 2.0-ALPHA to send the version-2 header')
  @IsIn(['1', '2.0-ALPHA'])
  UPSTREAM_API_VERSION = '1';

  @Setting('Timeout of one upstream call, in milliseconds')
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(120_000)
  UPSTREAM_TIMEOUT_MS = 10_000;

  /**
   * Comma-separated `keyId:base64key` pairs (32-byte AES-256-GCM keys). The first encrypts; all decrypt,
   * so keys rotate by prepending a new one and re-encrypting in the background.
   */
  @Setting(
    'Comma-separated keyId:base64 pairs of 32-byte AES-256-GCM keys; the first encrypts, all decrypt',
    { section: 'secrets at rest' },
  )
  @Matches(/^[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=(,[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=)*$/, {
    message: 'ENCRYPTION_KEYS must be comma-separated keyId:base64 pairs of 32-byte keys',
  })
  ENCRYPTION_KEYS: string = DEV_SECRETS.ENCRYPTION_KEYS;

  /** HMAC secret for session tokens and the signed consent `state`. */
  @Setting('HMAC secret for user session tokens and the signed consent state (at least 32 characters)')
  @IsString()
  @MinLength(32)
  SIGNING_SECRET: string = DEV_SECRETS.SIGNING_SECRET;

  @Setting('Lifetime of a user session token, in seconds')
  @Transform(toInt)
  @IsInt()
  @Min(60)
  @Max(24 * 3600)
  SESSION_TTL_SECONDS = 900;

  @Setting('Jobs one worker process runs at once, per queue', { section: 'background work' })
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(500)
  WORKER_CONCURRENCY = 20;

  @Setting(
    `Account syncs one worker process runs at once (empty: ${SYNCS_PER_CORE} per core it may use, from ${SYNCS_PER_CORE} to ${SYNCS_MAX_BY_DEFAULT}; each holds up to two pages of 1,000 transactions in memory)`,
  )
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  SYNC_CONCURRENCY?: number = undefined;

  @Setting(
    'How long after a sync an account falls due again, in minutes (jittered by up to a tenth either way)',
  )
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(7 * 24 * 60)
  SYNC_INTERVAL_MINUTES = 240;

  @Setting('consent.expiring and the re-authorisation go out this many days before a data consent expires', {
    section: 'consent lifecycle',
  })
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(89)
  CONSENT_REFRESH_DAYS_BEFORE_EXPIRY = 7;

  /** Interface of the worker's metrics listener (0.0.0.0 in containers, so Prometheus can reach it). */
  @Setting(
    "Interface the worker's metrics listener binds (0.0.0.0 in containers, so Prometheus can reach it)",
    { section: 'worker metrics' },
  )
  @IsString()
  WORKER_METRICS_HOST = '127.0.0.1';

  /** Port of the worker's GET /metrics (the api serves its own on API_PORT); 0: no listener. */
  @Setting(
    "Port of the worker's GET /metrics: queue depths, sync lag, deliveries, consents, inbox (0: no listener)",
  )
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  WORKER_METRICS_PORT = 9464;

  /** Where traces go (OTLP over HTTP; /v1/traces is appended); unset: tracing is off, nothing of the SDK loaded. */
  @Setting(
    'Where traces go, an OTLP/HTTP receiver (a collector, Jaeger, Tempo); /v1/traces is appended. Empty: off',
    {
      section:
        "tracing (OpenTelemetry; on when the endpoint is set. The exporter reads OpenTelemetry's other standard OTEL_* variables itself: protocol, headers, …)",
    },
  )
  @IsOptional()
  @IsUrl(LOCAL_URL)
  OTEL_EXPORTER_OTLP_ENDPOINT?: string = undefined;

  /** The service name on every span; unset: the app's own (api, worker, sandbox). */
  @Setting("The service name on every span; empty: the app's own (api, worker, sandbox)")
  @IsOptional()
  @IsString()
  @MaxLength(200)
  OTEL_SERVICE_NAME?: string = undefined;

  @Setting(
    'Port of the demo merchant app (npm start runs it; it holds DEMO_MERCHANT_API_KEY and mints sessions)',
    { section: 'demo merchant app' },
  )
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(65535)
  DEMO_PORT = 5020;

  /** Where the demo merchant app is served, when it runs; the api's GET / links to it. */
  @Setting(
    "Where the demo merchant app is served when it runs, for the api's GET / (empty: no link; npm start sets it)",
  )
  @IsOptional()
  @IsUrl(LOCAL_URL)
  DEMO_PUBLIC_URL?: string = undefined;

  /**
   * `true`: each api registers our receiver with the upstream for the root application as it starts,
   * unless a registration of ours is still listed there. `npm start` sets it (a sandbox reset or fresh state
   * forgets registrations); production registers once as a step of going live.
   */
  @Setting(
    'true: each api registers our receiver with the upstream as it starts, unless the upstream lists ours (production registers once, on purpose)',
    { section: 'events: upstream webhooks in, merchant deliveries out' },
  )
  @IsIn(['true', 'false'])
  UPSTREAM_WEBHOOK_AUTO_REGISTER = 'false';

  @Setting(
    'Event jobs (fan-out, deliveries) one worker process runs at once; deliveries mostly wait on endpoints',
  )
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(500)
  EVENTS_CONCURRENCY = 50;

  @Setting('A delivery is retried for this many hours after its event, then marked failed')
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(7 * 24)
  EVENT_DELIVERY_RETRY_HOURS = 24;

  /** Deliveries to private, loopback and link-local addresses; default: allowed unless NODE_ENV=production. */
  @Setting(
    'Deliver to private, loopback and link-local addresses (empty: yes, except with NODE_ENV=production)',
  )
  @IsOptional()
  @IsIn(['true', 'false'])
  EVENT_ENDPOINTS_ALLOW_PRIVATE?: string = undefined;

  /**
   * Days a relayed event, with its delivery log, is kept (for SSE resume, delivery lists and retries);
   * older ones are removed by the retention sweep, never while a delivery of it is still being tried.
   */
  @Setting('Days relayed events and their delivery log are kept (SSE resume, delivery lists); then removed', {
    section: 'retention',
  })
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3650)
  EVENT_RETENTION_DAYS = 30;

  /**
   * Days an audit entry is kept; then the retention sweep removes it, the only removal the table allows.
   * Long by default: an audit trail is read long after the fact.
   */
  @Setting('Days audit log entries (operator and merchant administrative actions) are kept; then removed')
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(36_500)
  AUDIT_RETENTION_DAYS = 400;

  /** Finished sync runs kept per account, newest first; an older one goes as each new run ends. */
  @Setting('Finished sync runs kept per account (newest first)')
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000)
  SYNC_RUNS_KEPT_PER_ACCOUNT = 100;

  @Setting('Interface the sandbox listens on', { section: 'sandbox (the offline upstream)' })
  @IsString()
  SANDBOX_HOST = '127.0.0.1';

  @Setting('Port of the sandbox')
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  SANDBOX_PORT = 4010;

  /** Where browsers reach the sandbox's hosted consent page; default from SANDBOX_PORT. */
  @Setting("Where browsers reach the sandbox's hosted consent page (empty: http://localhost:$SANDBOX_PORT)")
  @IsOptional()
  @IsUrl(LOCAL_URL)
  SANDBOX_PUBLIC_URL?: string = undefined;

  @Setting('Bearer token of the sandbox control API /sandbox/admin/*')
  @IsString()
  @MinLength(8)
  SANDBOX_ADMIN_TOKEN: string = DEV_SECRETS.SANDBOX_ADMIN_TOKEN;

  /** Where the sandbox keeps its state across restarts; empty: in memory only (tests, benchmarks). */
  @Setting('Where the sandbox keeps its state across restarts; empty: in memory only')
  @IsOptional()
  @IsString()
  SANDBOX_DATA_DIR?: string = undefined;

  /** API key of the demo merchant that `npm start` seeds. Ignored in production unless set explicitly. */
  @Setting(
    'API key of the demo merchant npm start creates and prints; empty: mk_demo_0123456789abcdefdemo, except in production: off unless set (that key is refused)',
    { section: 'development seed', example: '' },
  )
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @Matches(/^(mk_[A-Za-z0-9_]{16,})?$/, {
    message: 'DEMO_MERCHANT_API_KEY must look like mk_<at least 16 chars>',
  })
  DEMO_MERCHANT_API_KEY?: string = DEV_SECRETS.DEMO_MERCHANT_API_KEY;
}
