import type { LogLevel, NodeEnv } from './env.dto.js';
import type { Tuning } from './tuning.js';

/* The typed configuration's shape; config.ts validates the environment into it. */

export interface EncryptionKey {
  id: string;
  key: Buffer;
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
  database: {
    /** What the pool connects to: Postgres, or a pooler in front of it. */
    url: string;
    poolMax: number;
    /** `transaction`: `url` is a transaction-mode pooler (no named statements, no startup settings). */
    pooler: 'none' | 'transaction';
    /** Postgres itself, for what holds a session (LISTEN, the migrator's lock); `url` when not set apart. */
    directUrl: string;
    /** A streaming replica for reads that may be a little behind (replica-reads.ts); null: none. */
    replicaUrl: string | null;
  };
  redis: {
    url: string;
    /** Set: a Redis Cluster, and `url` is not used. */
    cluster: RedisClusterConfig | null;
    /** Set: the master is found through these sentinels; `url` gives only its credentials and database. */
    sentinel: RedisSentinelConfig | null;
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

/** A Redis Cluster's seed nodes, and the credentials and TLS every node shares. */
export interface RedisClusterConfig {
  nodes: { host: string; port: number }[];
  password?: string;
  username?: string;
  tls: boolean;
}

/** Redis Sentinel: where the sentinels are and which master group of theirs is ours. */
export interface RedisSentinelConfig {
  sentinels: { host: string; port: number }[];
  name: string;
  /** The sentinels' own password (`requirepass` in sentinel.conf), when they ask one. */
  password?: string;
}

export type OtlpProtocol = 'http/protobuf' | 'http/json';
