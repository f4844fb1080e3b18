import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigValidationError, loadConfig, SETTING_NAMES } from './config.js';
import { RETIRED_SETTINGS } from './retired-settings.js';
import { syncConcurrencyFor, TUNING } from './tuning.js';

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigValidationError) return error.problems;
    throw error;
  }
  throw new Error('expected loadConfig to fail');
};

describe('loadConfig', () => {
  it('boots with no environment at all, pointing the api at the local sandbox', () => {
    const config = loadConfig({});
    expect(config.api.port).toBe(3000);
    expect(config.sandbox.port).toBe(4010);
    expect(config.upstream.baseUrl).toBe('http://127.0.0.1:4010');
    // One root application: the sandbox seeds the one the api authenticates as.
    expect(config.upstream.applicationId).toBe('00000000-0000-4000-8000-000000000001');
    expect(config.tuning).toEqual(TUNING);
    expect(config.crypto.encryptionKeys).toHaveLength(1);
    expect(config.crypto.encryptionKeys[0].key).toHaveLength(32);
  });

  it('runs two account syncs per core unless told, from 2 to 8, and exactly what SYNC_CONCURRENCY says', () => {
    expect(loadConfig({}).sync.syncConcurrency).toBe(syncConcurrencyFor(availableParallelism()));
    expect([1, 2, 3, 4, 16, 64].map(syncConcurrencyFor)).toEqual([2, 4, 6, 8, 8, 8]);
    expect(loadConfig({ SYNC_CONCURRENCY: '1' }).sync.syncConcurrency).toBe(1);
    expect(loadConfig({ SYNC_CONCURRENCY: '' }).sync.syncConcurrency).toBe(
      syncConcurrencyFor(availableParallelism()),
    );
    expect(() => loadConfig({ SYNC_CONCURRENCY: '0' })).toThrow(ConfigValidationError);
  });

  it('converts numbers and trims trailing slashes from URLs', () => {
    const config = loadConfig({
      API_PORT: '8080',
      UPSTREAM_BASE_URL: 'https://upstream.example/',
      API_PUBLIC_URL: 'https://bff.example//',
    });
    expect(config.api.port).toBe(8080);
    expect(config.upstream.baseUrl).toBe('https://upstream.example');
    expect(config.api.publicUrl).toBe('https://bff.example');
  });

  it('derives the local URLs from the ports, so changing a port alone keeps everything agreeing', () => {
    const config = loadConfig({ API_PORT: '8080', SANDBOX_PORT: '5010' });
    expect(config.api.publicUrl).toBe('http://localhost:8080');
    expect(config.sandbox.publicUrl).toBe('http://localhost:5010');
    expect(config.upstream.baseUrl).toBe('http://127.0.0.1:5010');
  });

  it('rejects URLs that only look right', () => {
    expect(problemsOf({ DATABASE_URL: 'postgresql://[bad' })).toEqual([
      expect.stringMatching(/^DATABASE_URL: not a valid URL/),
    ]);
    expect(problemsOf({ REDIS_URL: 'redis://host/abc' })).toEqual([
      expect.stringMatching(/^REDIS_URL: the database must be a number/),
    ]);
  });

  it('has the 50 settings an operator decides, and ignores any other variable, a removed one too', () => {
    expect(SETTING_NAMES).toHaveLength(50);
    const { retiredSettings, ...withRetired } = loadConfig({
      EVENTS_SWEEP_SECONDS: '1',
      SANDBOX_APP_ID: 'x',
      SYNC_PAGE_SIZE: '',
      SOMETHING_ELSE: 'y',
    });
    const { retiredSettings: none, ...plain } = loadConfig({});
    expect(withRetired).toEqual(plain);
    // Named for the boot's warning, in the table's order; an empty one is not set, an unknown one not ours.
    expect(retiredSettings).toEqual(['EVENTS_SWEEP_SECONDS', 'SANDBOX_APP_ID']);
    expect(none).toEqual([]);
    expect(Object.keys(RETIRED_SETTINGS).filter((name) => SETTING_NAMES.includes(name))).toEqual([]);
    // Each retired setting that became tuning names a tuning value that exists.
    const tuningNamed = Object.values(RETIRED_SETTINGS).flatMap(
      (now) => /^tuning `(\w+)`$/.exec(now)?.[1] ?? [],
    );
    expect(tuningNamed.filter((name) => !(name in TUNING))).toEqual([]);
    expect(tuningNamed.length).toBeGreaterThan(20);
  });

  it('keeps what needs a session on Postgres itself, and refuses a transaction pooler without it', () => {
    const direct = loadConfig({ DATABASE_URL: 'postgresql://app@db:5432/bff' }).database;
    expect(direct).toMatchObject({ pooler: 'none', directUrl: 'postgresql://app@db:5432/bff' });
    const pooled = loadConfig({
      DATABASE_URL: 'postgresql://app@pgbouncer:6432/bff',
      DATABASE_POOLER: 'transaction',
      DATABASE_DIRECT_URL: 'postgresql://app@db:5432/bff',
    }).database;
    expect(pooled).toMatchObject({ pooler: 'transaction', directUrl: 'postgresql://app@db:5432/bff' });
    expect(problemsOf({ DATABASE_POOLER: 'transaction' })).toEqual([
      expect.stringMatching(/^DATABASE_DIRECT_URL: required when DATABASE_POOLER=transaction/),
    ]);
    expect(problemsOf({ DATABASE_POOLER: 'session' })).toEqual([expect.stringMatching(/^DATABASE_POOLER: /)]);
    expect(problemsOf({ DATABASE_DIRECT_URL: 'postgresql://[bad' })).toEqual([
      expect.stringMatching(/^DATABASE_DIRECT_URL: not a valid URL/),
    ]);
  });

  it('finds the master through Sentinel when told to, and takes its credentials from REDIS_URL', () => {
    const redis = loadConfig({
      REDIS_SENTINELS: 'sentinel-1:26379,10.0.0.2:26380',
      REDIS_SENTINEL_NAME: 'bff',
      REDIS_SENTINEL_PASSWORD: 'watch',
      REDIS_URL: 'redis://:secret@ignored:6379/2',
    }).redis;
    expect(redis.sentinel).toEqual({
      sentinels: [
        { host: 'sentinel-1', port: 26379 },
        { host: '10.0.0.2', port: 26380 },
      ],
      name: 'bff',
      password: 'watch',
    });
    expect(redis.cluster).toBeNull();
    expect(loadConfig({}).redis.sentinel).toBeNull();
  });

  it('refuses Sentinel half set, beside a cluster, or over TLS, naming the setting', () => {
    expect(problemsOf({ REDIS_SENTINELS: 's1:26379' })).toEqual([
      expect.stringMatching(/^REDIS_SENTINEL_NAME: required with REDIS_SENTINELS/),
    ]);
    expect(problemsOf({ REDIS_SENTINEL_NAME: 'bff' })).toEqual([
      expect.stringMatching(/^REDIS_SENTINELS: required when REDIS_SENTINEL_NAME/),
    ]);
    expect(
      problemsOf({ REDIS_SENTINELS: 's1:26379', REDIS_SENTINEL_NAME: 'bff', REDIS_CLUSTER_NODES: 'n1:6379' }),
    ).toEqual([expect.stringMatching(/^REDIS_SENTINELS: not with REDIS_CLUSTER_NODES/)]);
    expect(problemsOf({ REDIS_SENTINELS: 's1', REDIS_SENTINEL_NAME: 'bff' })).toEqual([
      expect.stringMatching(/^REDIS_SENTINELS: REDIS_SENTINELS must list host:port entries/),
    ]);
    expect(
      problemsOf({ REDIS_SENTINELS: 's1:26379', REDIS_SENTINEL_NAME: 'bff', REDIS_URL: 'rediss://h:6379' }),
    ).toEqual([
      expect.stringMatching(/^REDIS_URL: rediss:\/\/ \(TLS\) is not supported with REDIS_SENTINELS/),
    ]);
  });

  it('reports one problem per bad setting', () => {
    expect(problemsOf({ API_PORT: '3000.5' })).toHaveLength(1);
  });

  it('treats an empty value as unset', () => {
    expect(loadConfig({ API_PORT: '' }).api.port).toBe(3000);
  });

  it('names every bad setting in one error', () => {
    const problems = problemsOf({ API_PORT: 'eighty', DATABASE_URL: 'mysql://x', UPSTREAM_API_VERSION: '3' });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^API_PORT: .*got "eighty"/),
        expect.stringMatching(/^DATABASE_URL: /),
        expect.stringMatching(/^UPSTREAM_API_VERSION: /),
      ]),
    );
  });

  it('never echoes a secret value in a validation message', () => {
    const problems = problemsOf({
      ADMIN_TOKEN: 'short-secret',
      DATABASE_URL: 'mysql://user:hunter2@db/x',
      DATABASE_DIRECT_URL: 'mysql://user:hunter3@db/x',
      DATABASE_REPLICA_URL: 'mysql://user:hunter4@db/x',
    });
    expect(problems.join('\n')).not.toMatch(/short-secret|hunter2|hunter3|hunter4/);
    expect(problems.join('\n')).toMatch(/ADMIN_TOKEN/);
    expect(problems.join('\n')).toMatch(/DATABASE_REPLICA_URL/);
  });

  it('validates encryption keys: 32 bytes each, unique ids, first one active', () => {
    const k1 = Buffer.alloc(32, 1).toString('base64');
    const k2 = Buffer.alloc(32, 2).toString('base64');
    const config = loadConfig({ ENCRYPTION_KEYS: `new:${k2},old:${k1}` });
    expect(config.crypto.encryptionKeys.map((k) => k.id)).toEqual(['new', 'old']);
    expect(problemsOf({ ENCRYPTION_KEYS: `a:${k1},a:${k2}` })).toEqual([expect.stringMatching(/unique/)]);
    expect(problemsOf({ ENCRYPTION_KEYS: 'a:dG9vLXNob3J0' })).toEqual([
      expect.stringMatching(/^ENCRYPTION_KEYS/),
    ]);
  });

  it('refuses the development secrets in production', () => {
    const problems = problemsOf({
      NODE_ENV: 'production',
      DEMO_MERCHANT_API_KEY: 'mk_demo_0123456789abcdefdemo',
    });
    expect(problems).toEqual(
      expect.arrayContaining(['UPSTREAM_BASE_URL: required when NODE_ENV=production']),
    );
    for (const name of [
      'ADMIN_TOKEN',
      'ENCRYPTION_KEYS',
      'SIGNING_SECRET',
      'UPSTREAM_APPLICATION_SECRET',
      'SANDBOX_ADMIN_TOKEN',
      'DEMO_MERCHANT_API_KEY',
    ]) {
      expect(problems).toEqual(
        expect.arrayContaining([expect.stringMatching(new RegExp(`^${name}: the development default`))]),
      );
    }
  });

  it('accepts production with real secrets', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      ADMIN_TOKEN: 'a-real-operator-token-of-some-length',
      ENCRYPTION_KEYS: `prod1:${Buffer.alloc(32, 7).toString('base64')}`,
      SIGNING_SECRET: 'x'.repeat(40),
      UPSTREAM_APPLICATION_SECRET: 'real-upstream-secret',
      SANDBOX_ADMIN_TOKEN: 'another-real-token',
      UPSTREAM_BASE_URL: 'https://upstream.example',
    });
    expect(config.demoMerchantApiKey).toBeNull();
  });
});

describe('tuning: fixed, except that a test may shorten it', () => {
  const test = { NODE_ENV: 'test' };

  it('takes TEST_TUNING over the defaults when NODE_ENV=test', () => {
    const tuning = loadConfig({
      ...test,
      TEST_TUNING: '{"eventsSweepEverySeconds":1,"syncDispatchEverySeconds":0}',
    }).tuning;
    expect(tuning).toEqual({ ...TUNING, eventsSweepEverySeconds: 1, syncDispatchEverySeconds: 0 });
    expect(loadConfig({ ...test, TEST_TUNING: '' }).tuning).toEqual(TUNING);
  });

  it('refuses it anywhere else: a deployment runs the code’s values', () => {
    for (const NODE_ENV of ['development', 'production']) {
      expect(problemsOf({ NODE_ENV, TEST_TUNING: '{"authCacheSeconds":0}' })).toEqual(
        expect.arrayContaining([expect.stringMatching(/^TEST_TUNING: read only when NODE_ENV=test/)]),
      );
    }
  });

  it('refuses what is not JSON, an unknown name, and a value that is no whole number or 0 where 0 is no off', () => {
    expect(problemsOf({ ...test, TEST_TUNING: 'eventsSweepEverySeconds=1' })).toEqual([
      'TEST_TUNING: not JSON',
    ]);
    expect(problemsOf({ ...test, TEST_TUNING: '[1]' })).toEqual([expect.stringMatching(/JSON object/)]);
    expect(problemsOf({ ...test, TEST_TUNING: '{"EVENTS_SWEEP_SECONDS":1}' })).toEqual([
      expect.stringMatching(/^TEST_TUNING: EVENTS_SWEEP_SECONDS is no tuning value/),
    ]);
    expect(
      problemsOf({
        ...test,
        TEST_TUNING: '{"sseHeartbeatSeconds":0,"ssePageSize":"5","authCacheSeconds":1.5}',
      }),
    ).toEqual([
      expect.stringMatching(/^TEST_TUNING: sseHeartbeatSeconds must be a whole number of at least 1/),
      expect.stringMatching(/^TEST_TUNING: ssePageSize must be a whole number of at least 1/),
      expect.stringMatching(/^TEST_TUNING: authCacheSeconds must be a whole number of at least 0/),
    ]);
  });
});

describe('tracing: on with an OTLP endpoint', () => {
  it('is off unless OTEL_EXPORTER_OTLP_ENDPOINT is set, and takes the service name as given', () => {
    expect(loadConfig({}).tracing).toBeNull();
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(loadConfig(endpoint).tracing).toEqual({ protocol: 'http/protobuf', serviceName: null });
    expect(loadConfig({ ...endpoint, OTEL_SERVICE_NAME: 'bff-api-eu' }).tracing).toEqual({
      protocol: 'http/protobuf',
      serviceName: 'bff-api-eu',
    });
  });

  it("takes the encoding from OpenTelemetry's own variables, the traces one over the general one", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(loadConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).tracing?.protocol).toBe(
      'http/json',
    );
    const both = {
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
    };
    expect(loadConfig({ ...endpoint, ...both }).tracing?.protocol).toBe('http/json');
  });

  it('refuses gRPC, which is not shipped, when tracing is on, and an endpoint that is no URL', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(problemsOf({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toEqual([
      expect.stringMatching(/^OTEL_EXPORTER_OTLP_PROTOCOL: http\/protobuf or http\/json/),
    ]);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).tracing).toBeNull();
    expect(problemsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector' })).toEqual([
      expect.stringContaining('OTEL_EXPORTER_OTLP_ENDPOINT'),
    ]);
  });
});
