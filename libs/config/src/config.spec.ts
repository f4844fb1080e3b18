import { describe, expect, it } from 'vitest';
import { ConfigValidationError, loadConfig } from './config.js';

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
    // The dev defaults make the api and the sandbox agree out of the box.
    expect(config.upstream.applicationId).toBe(config.sandbox.appId);
    expect(config.upstream.applicationSecret).toBe(config.sandbox.appSecret);
    expect(config.crypto.encryptionKeys).toHaveLength(1);
    expect(config.crypto.encryptionKeys[0].key).toHaveLength(32);
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

  it('checks the job schedulers every 15 s unless told otherwise; 0 is refused', () => {
    expect(loadConfig({}).redis.scheduleCheckSeconds).toBe(15);
    expect(loadConfig({ QUEUE_SCHEDULE_CHECK_SECONDS: '2' }).redis.scheduleCheckSeconds).toBe(2);
    expect(problemsOf({ QUEUE_SCHEDULE_CHECK_SECONDS: '0' })).toEqual([
      expect.stringMatching(/^QUEUE_SCHEDULE_CHECK_SECONDS: /),
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
    const problems = problemsOf({ ADMIN_TOKEN: 'short-secret', DATABASE_URL: 'mysql://user:hunter2@db/x' });
    expect(problems.join('\n')).not.toMatch(/short-secret|hunter2/);
    expect(problems.join('\n')).toMatch(/ADMIN_TOKEN/);
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

describe('tracing: OpenTelemetry’s standard switches', () => {
  it('is off unless an endpoint or the otlp exporter is named, and off again when told', () => {
    expect(loadConfig({}).tracing).toBeNull();
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(loadConfig(endpoint).tracing).toEqual({ protocol: 'http/protobuf', serviceName: null });
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'otlp' }).tracing).not.toBeNull();
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }).tracing,
    ).not.toBeNull();
    expect(loadConfig({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }).tracing).toBeNull();
    expect(loadConfig({ ...endpoint, OTEL_SDK_DISABLED: 'true' }).tracing).toBeNull();
  });

  it('takes the traces protocol over the general one, and the service name as given', () => {
    const config = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'bff-api-eu',
    });
    expect(config.tracing).toEqual({ protocol: 'http/json', serviceName: 'bff-api-eu' });
  });

  it('refuses gRPC, which is not shipped, and an endpoint that is no URL', () => {
    expect(problemsOf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toEqual([
      expect.stringContaining('OTEL_EXPORTER_OTLP_PROTOCOL'),
    ]);
    expect(problemsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector' })).toEqual([
      expect.stringContaining('OTEL_EXPORTER_OTLP_ENDPOINT'),
    ]);
  });
});
