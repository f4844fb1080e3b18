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

/**
 * Every environment variable the system reads, with its dev default and, in `@Setting`, its one-line
 * meaning: `.env.example` is generated from this class (`npm run config:example`; a test compares).
 * Defaults point at the local sandbox so that `npm start` works with no file at all; `production`
 * refuses the dev secrets (see config.ts). An empty value is the same as an unset one: the default.
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

  @Setting('Largest request body accepted, in bytes (bigger gets 413 PAYLOAD_TOO_LARGE)')
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(50 * 1024 * 1024)
  API_BODY_LIMIT_BYTES = 1024 * 1024;

  @Setting(
    'Proxies trusted to name the client address (X-Forwarded-For), sent upstream as psu-ip-address for a user session: empty for none, a hop count, or IPs and CIDRs comma-separated',
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

  /** How long a verified API key or session stays cached in an api process (0: verify every request). */
  @Setting(
    'Seconds a verified API key or session stays cached per api process (revocations reach every process at once through Redis; 0: no cache)',
  )
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(300)
  AUTH_CACHE_SECONDS = 30;

  /**
   * What each api process keeps of the page-view reads (a user's accounts, the users page), dropped when
   * Postgres notifies a change of the merchant's (0: none).
   */
  @Setting(
    "MiB of page-view reads (a user's accounts, the users page) each api process keeps until Postgres notifies a change of the merchant's (0: none)",
  )
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(4096)
  READ_CACHE_MB = 16;

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

  /** Namespaces every BullMQ key, so several deployments (or test runs) can share one Redis. */
  @Setting('Prefix of every BullMQ key, so several deployments can share one Redis')
  @Matches(/^[A-Za-z0-9_-]{1,32}$/)
  QUEUE_PREFIX = 'bff';

  /**
   * How often every worker checks that the job schedulers it runs still exist in Redis (and restores those
   * a Redis that lost its data forgot). It also checks whenever its Redis connection comes back.
   */
  @Setting(
    'How often each worker checks that its job schedulers still exist in Redis and restores them (also on every reconnect)',
  )
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  QUEUE_SCHEDULE_CHECK_SECONDS = 15;

  /** Default: the local sandbox on SANDBOX_PORT. Required in production. */
  @Setting(
    'Base URL of the upstream API (empty: the local sandbox, http://127.0.0.1:$SANDBOX_PORT; required in production)',
    { section: 'upstream (the aggregation service; the local sandbox by default)' },
  )
  @IsOptional()
  @IsUrl(LOCAL_URL)
  UPSTREAM_BASE_URL?: string = undefined;

  @Setting('Root application id (HTTP Basic username)')
  @IsString()
  @MinLength(1)
  UPSTREAM_APPLICATION_ID = '00000000-0000-4000-8000-000000000001';

  @Setting('Root application secret (HTTP Basic password)')
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
    "Account syncs one worker process runs at once (the sync queue's own concurrency; each holds up to two pages of 1,000 transactions in memory)",
  )
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  SYNC_CONCURRENCY = 2;

  @Setting(
    'How long after a sync an account falls due again, in minutes (jittered by up to a tenth either way)',
  )
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(7 * 24 * 60)
  SYNC_INTERVAL_MINUTES = 240;

  @Setting('An incremental sync re-reads this many days before the newest booked transaction it holds')
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(90)
  SYNC_OVERLAP_DAYS = 7;

  @Setting('Transactions a sync asks the upstream for per page (1 to 1,000)')
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  SYNC_PAGE_SIZE = 1000;

  /** Pages of stored transactions each api process keeps, keyed by the account's version (0: none). */
  @Setting(
    "Megabytes of stored-transaction pages each api process keeps, keyed by the account's transactions version, so a sync's change is seen at once (0: no cache)",
  )
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(4096)
  STORED_PAGE_CACHE_MB = 32;

  @Setting(
    'How often the sync dispatcher looks for accounts that are due, in seconds (0: this worker does not schedule it)',
  )
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3600)
  SYNC_DISPATCH_EVERY_SECONDS = 60;

  /** A queued or running sync run untouched this long has its job made sure of by the next dispatch. */
  @Setting('A queued or running sync run untouched this long has its job made sure of by the next dispatch')
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(3600)
  SYNC_RUN_IDLE_SECONDS = 90;

  @Setting(
    'How often the worker refreshes the institutions cache from the upstream, in minutes (0: not scheduled here)',
  )
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(7 * 24 * 60)
  INSTITUTIONS_REFRESH_MINUTES = 360;

  @Setting('consent.expiring and the re-authorisation go out this many days before a data consent expires', {
    section: 'consent lifecycle',
  })
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(89)
  CONSENT_REFRESH_DAYS_BEFORE_EXPIRY = 7;

  @Setting(
    'How often the worker scans for consents about to expire (and expires those past due), in minutes (0: not here)',
  )
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(7 * 24 * 60)
  CONSENT_EXPIRY_SCAN_MINUTES = 1440;

  @Setting(
    "How often the worker compares authorised consents with the upstream's view, in minutes (0: not here)",
  )
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(7 * 24 * 60)
  CONSENT_RECONCILE_MINUTES = 360;

  /** How often the worker looks for payments whose status check is due (the fallback behind webhooks). */
  @Setting(
    "How often the worker looks for payments whose status check is due, in seconds: the fallback behind the upstream's payment webhooks (0: not here)",
    { section: 'payments' },
  )
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3600)
  PAYMENT_STATUS_POLL_SECONDS = 5;

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

  /** The queue and database gauges are computed at most this often, whoever scrapes and how often. */
  @Setting(
    'The worker recomputes its queue and database gauges at most this often, in seconds, however often it is scraped',
  )
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  WORKER_METRICS_REFRESH_SECONDS = 30;

  /** Where traces go (OTLP over HTTP; /v1/traces is appended); unset, with the next one unset: tracing is off. */
  @Setting(
    'Where traces go, an OTLP/HTTP receiver (a collector, Jaeger, Tempo); /v1/traces is appended. Empty: off',
    {
      section:
        'tracing (OpenTelemetry; off unless an endpoint is set. The SDK reads the other OTEL_* variables itself)',
    },
  )
  @IsOptional()
  @IsUrl(LOCAL_URL)
  OTEL_EXPORTER_OTLP_ENDPOINT?: string = undefined;

  /** The traces endpoint itself (used as is), overriding OTEL_EXPORTER_OTLP_ENDPOINT. */
  @Setting(
    'The traces URL itself, used as is (overrides the one above); empty: from OTEL_EXPORTER_OTLP_ENDPOINT',
  )
  @IsOptional()
  @IsUrl(LOCAL_URL)
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string = undefined;

  /** OTLP's encoding over HTTP; gRPC is not shipped. */
  @Setting("OTLP's encoding: http/protobuf or http/json (gRPC is not shipped)")
  @IsIn(['http/protobuf', 'http/json'])
  OTEL_EXPORTER_OTLP_PROTOCOL = 'http/protobuf';

  /** The same for traces alone, overriding OTEL_EXPORTER_OTLP_PROTOCOL. */
  @Setting('The same for traces alone; empty: OTEL_EXPORTER_OTLP_PROTOCOL')
  @IsOptional()
  @IsIn(['http/protobuf', 'http/json'])
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?: string = undefined;

  /** `none` turns tracing off even with an endpoint set; `otlp` turns it on (localhost:4318 without one). */
  @Setting('otlp or none; empty: otlp when an endpoint is set, else none')
  @IsOptional()
  @IsIn(['otlp', 'none'])
  OTEL_TRACES_EXPORTER?: string = undefined;

  /** `true` turns tracing off whatever else is set. */
  @Setting('true turns tracing off whatever else is set')
  @IsIn(['true', 'false'])
  OTEL_SDK_DISABLED = 'false';

  /** The service name on every span; unset: the app's own (api, worker, sandbox). */
  @Setting(
    "The service name on every span; empty: the app's own (api, worker, sandbox), so leave it empty when one environment runs all three",
  )
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

  /** How upstream webhooks are signed; the upstream does not publish its scheme, so it is named here. */
  @Setting(
    'How the upstream signs its webhooks (its scheme is not public; the sandbox uses Standard Webhooks)',
    { section: 'events: upstream webhooks in, merchant deliveries and live streams out' },
  )
  @IsIn(['standard-webhooks'])
  WEBHOOK_SIGNATURE_SCHEME = 'standard-webhooks';

  @Setting('Largest webhook body the receiver reads, in bytes (larger: 413)')
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(1024 * 1024)
  WEBHOOK_MAX_BODY_BYTES = 256 * 1024;

  @Setting("How far a webhook's timestamp may be from our clock, either way, in seconds")
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  WEBHOOK_TOLERANCE_SECONDS = 300;

  @Setting('How long a replaced upstream webhook secret still verifies, in hours')
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(30 * 24)
  UPSTREAM_WEBHOOK_SECRET_GRACE_HOURS = 24;

  /**
   * `true`: each api registers our receiver with the upstream for the root application as it starts,
   * unless a registration of ours is still listed there. `npm start` sets it (a sandbox reset or fresh state
   * forgets registrations); production registers once as a step of going live.
   */
  @Setting(
    'true: each api registers our receiver with the upstream (root application) as it starts, unless the upstream still lists ours; production registers once, on purpose',
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

  @Setting('One delivery attempt to a merchant endpoint times out after this many milliseconds')
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(60_000)
  EVENT_DELIVERY_TIMEOUT_MS = 5_000;

  @Setting('First retry after this many seconds, then doubling (at most an hour apart), jittered')
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  EVENT_DELIVERY_BACKOFF_SECONDS = 30;

  @Setting('A delivery is retried for this many hours after its event, then marked failed')
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(7 * 24)
  EVENT_DELIVERY_RETRY_HOURS = 24;

  @Setting('An endpoint failing without one success for this many hours is disabled')
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(30 * 24)
  EVENT_ENDPOINT_DISABLE_AFTER_HOURS = 72;

  /** Deliveries to private, loopback and link-local addresses; default: allowed unless NODE_ENV=production. */
  @Setting(
    'Deliver to private, loopback and link-local addresses (empty: yes, except with NODE_ENV=production)',
  )
  @IsOptional()
  @IsIn(['true', 'false'])
  EVENT_ENDPOINTS_ALLOW_PRIVATE?: string = undefined;

  @Setting(
    'How often the worker re-enqueues inbox events and deliveries lost from Redis, in seconds (0: not here)',
  )
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3600)
  EVENTS_SWEEP_SECONDS = 30;

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

  /** Days a processed upstream webhook is kept in the inbox (for operators, and to absorb a late duplicate). */
  @Setting('Days processed upstream webhooks are kept in the inbox; then removed')
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3650)
  INBOX_RETENTION_DAYS = 30;

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

  /** How often the retention sweep runs; 0: this worker does not schedule it. */
  @Setting('How often the retention sweep runs (0: this worker does not schedule it)')
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(24 * 60)
  RETENTION_SWEEP_MINUTES = 60;

  @Setting('A comment line on every open event stream this often, in seconds, so proxies keep it open', {
    section: 'live event streams',
  })
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(300)
  SSE_HEARTBEAT_SECONDS = 15;

  @Setting(
    'Events an open stream reads from Postgres per query (a replay from an old Last-Event-ID reads page after page)',
  )
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(5000)
  SSE_PAGE_SIZE = 500;

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

  @Setting("Application id of the sandbox's seeded root application (matches UPSTREAM_APPLICATION_ID)")
  @IsString()
  @MinLength(1)
  SANDBOX_APP_ID = '00000000-0000-4000-8000-000000000001';

  @Setting("Secret of the sandbox's seeded root application (matches UPSTREAM_APPLICATION_SECRET)")
  @IsString()
  @MinLength(1)
  SANDBOX_APP_SECRET: string = DEV_SECRETS.UPSTREAM_APPLICATION_SECRET;

  @Setting('Bearer token of the sandbox control API /sandbox/admin/*')
  @IsString()
  @MinLength(8)
  SANDBOX_ADMIN_TOKEN: string = DEV_SECRETS.SANDBOX_ADMIN_TOKEN;

  /** Where the sandbox keeps its state across restarts; empty: in memory only (tests, benchmarks). */
  @Setting(
    'Where the sandbox keeps its state (users, consents, payments, webhooks, clock) across restarts; empty: in memory only',
  )
  @IsOptional()
  @IsString()
  SANDBOX_DATA_DIR?: string = undefined;

  /** API key of the demo merchant that `npm start` seeds. Ignored in production unless set explicitly. */
  @Setting(
    'API key of the demo merchant npm start creates and prints; empty: mk_demo_0123456789abcdefdemo, except with NODE_ENV=production, where it is off unless set (and that value is refused)',
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
