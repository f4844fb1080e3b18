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
 * Every environment variable the system reads, with its dev default. `.env.example` mirrors this class
 * one-to-one (a test keeps them in step). Defaults point at the local sandbox so that `npm start` works
 * with no file at all; `production` refuses the dev secrets (see config.ts).
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
  @IsEnum(NodeEnv)
  NODE_ENV: NodeEnv = NodeEnv.Development;

  @IsEnum(LogLevel)
  LOG_LEVEL: LogLevel = LogLevel.Info;

  // --- api ---
  @IsString()
  API_HOST = '127.0.0.1';

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  API_PORT = 3000;

  /** Where browsers and the upstream reach the api (consent callbacks, webhook receiver); default from API_PORT. */
  @IsOptional()
  @IsUrl(LOCAL_URL)
  API_PUBLIC_URL?: string = undefined;

  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(50 * 1024 * 1024)
  API_BODY_LIMIT_BYTES = 1024 * 1024;

  @IsString()
  @MinLength(16)
  ADMIN_TOKEN: string = DEV_SECRETS.ADMIN_TOKEN;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  RATE_LIMIT_PER_MINUTE = 600;

  /** How long a verified API key or session stays cached in an api process (0: verify every request). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(300)
  AUTH_CACHE_SECONDS = 30;

  /**
   * What each api process keeps of the page-view reads (a user's accounts, the users page), dropped when
   * Postgres notifies a change of the merchant's (0: none).
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(4096)
  READ_CACHE_MB = 16;

  // --- storage ---
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgresql:// URL' })
  DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/bff';

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(500)
  DATABASE_POOL_MAX = 10;

  @Matches(/^rediss?:\/\//, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
  REDIS_URL = 'redis://127.0.0.1:6379/0';

  /**
   * A Redis Cluster instead of REDIS_URL: its nodes, comma-separated, as `host:port` or `redis://[:password@]host:port`
   * (`rediss://` for TLS); any few masters will do, the rest are discovered.
   */
  @IsOptional()
  @Matches(
    /^(?:(?:rediss?:\/\/(?:[^@/\s,]*@)?)?[A-Za-z0-9.-]+:\d{1,5})(?:,(?:(?:rediss?:\/\/(?:[^@/\s,]*@)?)?[A-Za-z0-9.-]+:\d{1,5}))*$/,
    {
      message: 'REDIS_CLUSTER_NODES must list host:port (or redis://host:port) entries, comma-separated',
    },
  )
  REDIS_CLUSTER_NODES?: string = undefined;

  /** Namespaces every BullMQ key, so several deployments (or test runs) can share one Redis. */
  @Matches(/^[A-Za-z0-9_-]{1,32}$/)
  QUEUE_PREFIX = 'bff';

  /**
   * How often every worker checks that the job schedulers it runs still exist in Redis (and restores those
   * a Redis that lost its data forgot). It also checks whenever its Redis connection comes back.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  QUEUE_SCHEDULE_CHECK_SECONDS = 15;

  // --- upstream ---
  /** Default: the local sandbox on SANDBOX_PORT. Required in production. */
  @IsOptional()
  @IsUrl(LOCAL_URL)
  UPSTREAM_BASE_URL?: string = undefined;

  @IsString()
  @MinLength(1)
  UPSTREAM_APPLICATION_ID = '00000000-0000-4000-8000-000000000001';

  @IsString()
  @MinLength(1)
  UPSTREAM_APPLICATION_SECRET: string = DEV_SECRETS.UPSTREAM_APPLICATION_SECRET;

  /** `1` sends no version header; `2.0-ALPHA` opts into version 2 of the upstream interface. */
  @IsIn(['1', '2.0-ALPHA'])
  UPSTREAM_API_VERSION = '1';

  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(120_000)
  UPSTREAM_TIMEOUT_MS = 10_000;

  // --- secrets at rest ---
  /**
   * Comma-separated `keyId:base64key` pairs (32-byte AES-256-GCM keys). The first encrypts; all decrypt,
   * so keys rotate by prepending a new one and re-encrypting in the background.
   */
  @Matches(/^[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=(,[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=)*$/, {
    message: 'ENCRYPTION_KEYS must be comma-separated keyId:base64 pairs of 32-byte keys',
  })
  ENCRYPTION_KEYS: string = DEV_SECRETS.ENCRYPTION_KEYS;

  /** HMAC secret for session tokens and the signed consent `state`. */
  @IsString()
  @MinLength(32)
  SIGNING_SECRET: string = DEV_SECRETS.SIGNING_SECRET;

  @Transform(toInt)
  @IsInt()
  @Min(60)
  @Max(24 * 3600)
  SESSION_TTL_SECONDS = 900;

  // --- background work ---
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(500)
  WORKER_CONCURRENCY = 20;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  SYNC_CONCURRENCY = 2;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(7 * 24 * 60)
  SYNC_INTERVAL_MINUTES = 240;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(90)
  SYNC_OVERLAP_DAYS = 7;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  SYNC_PAGE_SIZE = 1000;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3600)
  SYNC_DISPATCH_EVERY_SECONDS = 60;

  /** A queued or running sync run untouched this long has its job made sure of by the next dispatch. */
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(3600)
  SYNC_RUN_IDLE_SECONDS = 90;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(7 * 24 * 60)
  INSTITUTIONS_REFRESH_MINUTES = 360;

  // --- consent lifecycle ---
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(89)
  CONSENT_REFRESH_DAYS_BEFORE_EXPIRY = 7;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(7 * 24 * 60)
  CONSENT_EXPIRY_SCAN_MINUTES = 1440;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(7 * 24 * 60)
  CONSENT_RECONCILE_MINUTES = 360;

  /** Pages of stored transactions each api process keeps, keyed by the account's version (0: none). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(4096)
  STORED_PAGE_CACHE_MB = 32;

  // --- payments ---
  /** How often the worker looks for payments whose status check is due (the fallback behind webhooks). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3600)
  PAYMENT_STATUS_POLL_SECONDS = 5;

  // --- worker metrics ---
  /** Interface of the worker's metrics listener (0.0.0.0 in containers, so Prometheus can reach it). */
  @IsString()
  WORKER_METRICS_HOST = '127.0.0.1';

  /** Port of the worker's GET /metrics (the api serves its own on API_PORT); 0: no listener. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  WORKER_METRICS_PORT = 9464;

  /** The queue and database gauges are computed at most this often, whoever scrapes and how often. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  WORKER_METRICS_REFRESH_SECONDS = 30;

  // --- tracing (OpenTelemetry's standard variables; the SDK reads the rest of OTEL_* itself) ---
  /** Where traces go (OTLP over HTTP; /v1/traces is appended); unset, with the next one unset: tracing is off. */
  @IsOptional()
  @IsUrl(LOCAL_URL)
  OTEL_EXPORTER_OTLP_ENDPOINT?: string = undefined;

  /** The traces endpoint itself (used as is), overriding OTEL_EXPORTER_OTLP_ENDPOINT. */
  @IsOptional()
  @IsUrl(LOCAL_URL)
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string = undefined;

  /** OTLP's encoding over HTTP; gRPC is not shipped. */
  @IsIn(['http/protobuf', 'http/json'])
  OTEL_EXPORTER_OTLP_PROTOCOL = 'http/protobuf';

  /** The same for traces alone, overriding OTEL_EXPORTER_OTLP_PROTOCOL. */
  @IsOptional()
  @IsIn(['http/protobuf', 'http/json'])
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?: string = undefined;

  /** `none` turns tracing off even with an endpoint set; `otlp` turns it on (localhost:4318 without one). */
  @IsOptional()
  @IsIn(['otlp', 'none'])
  OTEL_TRACES_EXPORTER?: string = undefined;

  /** `true` turns tracing off whatever else is set. */
  @IsIn(['true', 'false'])
  OTEL_SDK_DISABLED = 'false';

  /** The service name on every span; unset: the app's own (api, worker, sandbox). */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  OTEL_SERVICE_NAME?: string = undefined;

  // --- demo merchant app ---
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(65535)
  DEMO_PORT = 5020;

  /** Where the demo merchant app is served, when it runs; the api's GET / links to it. */
  @IsOptional()
  @IsUrl(LOCAL_URL)
  DEMO_PUBLIC_URL?: string = undefined;

  // --- events in (upstream webhooks) and out (merchant endpoints, SSE) ---
  /** How upstream webhooks are signed; the upstream does not publish its scheme, so it is named here. */
  @IsIn(['standard-webhooks'])
  WEBHOOK_SIGNATURE_SCHEME = 'standard-webhooks';

  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(1024 * 1024)
  WEBHOOK_MAX_BODY_BYTES = 256 * 1024;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  WEBHOOK_TOLERANCE_SECONDS = 300;

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
  @IsIn(['true', 'false'])
  UPSTREAM_WEBHOOK_AUTO_REGISTER = 'false';

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(500)
  EVENTS_CONCURRENCY = 50;

  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(60_000)
  EVENT_DELIVERY_TIMEOUT_MS = 5_000;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  EVENT_DELIVERY_BACKOFF_SECONDS = 30;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(7 * 24)
  EVENT_DELIVERY_RETRY_HOURS = 24;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(30 * 24)
  EVENT_ENDPOINT_DISABLE_AFTER_HOURS = 72;

  /** Deliveries to private, loopback and link-local addresses; default: allowed unless NODE_ENV=production. */
  @IsOptional()
  @IsIn(['true', 'false'])
  EVENT_ENDPOINTS_ALLOW_PRIVATE?: string = undefined;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3600)
  EVENTS_SWEEP_SECONDS = 30;

  // --- retention ---
  /**
   * Days a relayed event, with its delivery log, is kept (for SSE resume, delivery lists and retries);
   * older ones are removed by the retention sweep, never while a delivery of it is still being tried.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3650)
  EVENT_RETENTION_DAYS = 30;

  /** Days a processed upstream webhook is kept in the inbox (for operators, and to absorb a late duplicate). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3650)
  INBOX_RETENTION_DAYS = 30;

  /** Finished sync runs kept per account, newest first; an older one goes as each new run ends. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000)
  SYNC_RUNS_KEPT_PER_ACCOUNT = 100;

  /** How often the retention sweep runs; 0: this worker does not schedule it. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(24 * 60)
  RETENTION_SWEEP_MINUTES = 60;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(300)
  SSE_HEARTBEAT_SECONDS = 15;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(5000)
  SSE_PAGE_SIZE = 500;

  // --- sandbox ---
  @IsString()
  SANDBOX_HOST = '127.0.0.1';

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  SANDBOX_PORT = 4010;

  /** Where browsers reach the sandbox's hosted consent page; default from SANDBOX_PORT. */
  @IsOptional()
  @IsUrl(LOCAL_URL)
  SANDBOX_PUBLIC_URL?: string = undefined;

  @IsString()
  @MinLength(1)
  SANDBOX_APP_ID = '00000000-0000-4000-8000-000000000001';

  @IsString()
  @MinLength(1)
  SANDBOX_APP_SECRET: string = DEV_SECRETS.UPSTREAM_APPLICATION_SECRET;

  @IsString()
  @MinLength(8)
  SANDBOX_ADMIN_TOKEN: string = DEV_SECRETS.SANDBOX_ADMIN_TOKEN;

  /** Where the sandbox keeps its state across restarts; empty: in memory only (tests, benchmarks). */
  @IsOptional()
  @IsString()
  SANDBOX_DATA_DIR?: string = undefined;

  // --- dev seed ---
  /** API key of the demo merchant that `npm start` seeds. Ignored in production unless set explicitly. */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @Matches(/^(mk_[A-Za-z0-9_]{16,})?$/, {
    message: 'DEMO_MERCHANT_API_KEY must look like mk_<at least 16 chars>',
  })
  DEMO_MERCHANT_API_KEY?: string = DEV_SECRETS.DEMO_MERCHANT_API_KEY;
}
