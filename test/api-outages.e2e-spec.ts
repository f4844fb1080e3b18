import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMigrationsDir, migrate } from '#libs/database';
import { captureLogger, uniqueQueuePrefix } from '#libs/testing';
import { type ApiResponse, onboard, type Stack, startStack, type Tenant } from './support/api-kit.js';
import {
  type PrivatePostgres,
  type PrivateRedis,
  startPrivatePostgres,
  startPrivateRedis,
} from './support/private-services.mjs';
import { eventually } from './support/sync-kit.js';

// Issue 26: while Redis or Postgres is unreachable, every route answers 503 SERVICE_UNAVAILABLE with
// Retry-After (never 500, never a hang), /health/ready names the dependency, the logs say it once per
// outage, and everything answers again by itself when the dependency is back.

let redis: PrivateRedis;
let postgres: PrivatePostgres;
let stack: Stack;
let tenant: Tenant;
const logs = captureLogger('api', 'info');

beforeAll(async () => {
  [redis, postgres] = await Promise.all([startPrivateRedis(), startPrivatePostgres()]);
  await migrate(postgres.url, defaultMigrationsDir());
  stack = await startStack({
    overrides: {
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: uniqueQueuePrefix('outages'),
      LOG_LEVEL: 'info',
      // Every request authenticates against the stores: a cached key would hide the outage from auth.
      AUTH_CACHE_SECONDS: '0',
    },
    loggers: { api: logs.logger },
  });
  tenant = await onboard(stack);
}, 120_000);

afterAll(async () => {
  await stack?.close();
  await Promise.all([redis?.destroy(), postgres?.destroy()]);
});

/** The merchant routes a client uses most: a read, a create (idempotent), and one that enqueues a job. */
const requests = (attempt: number) => [
  () => tenant.client.get('/v1/users?limit=5'),
  () =>
    tenant.client.post(
      '/v1/users',
      { reference: `outage-user-${attempt}` },
      { headers: { 'idempotency-key': `outage-${attempt}` } },
    ),
  () => tenant.client.get(`/v1/users/${tenant.userId}`),
];

function expectUnavailable(response: ApiResponse, what: string) {
  expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBe(503);
  expect(response.body.error.code).toBe('SERVICE_UNAVAILABLE');
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
}

/**
 * Stops `dependency`, then sends several rounds of requests: each is answered within seconds, never with a
 * 500; `expectAnswer` says what each must be. The log says the outage once, however many requests met it.
 */
async function duringOutage(
  dependency: 'redis' | 'postgres',
  stop: () => Promise<void>,
  expectAnswer: (response: ApiResponse, what: string) => void,
) {
  const before = logs.lines.length;
  await stop();
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    for (const request of requests(attempt)) {
      const started = Date.now();
      const response = await request();
      expectAnswer(response, `${dependency} down, round ${attempt}`);
      expect(Date.now() - started, 'answered, not hung').toBeLessThan(10_000);
    }
  }
  const ready = await stack.anonymous.get('/health/ready');
  expectUnavailable(ready, 'readiness');
  expect(ready.body.error.details).toEqual(
    expect.arrayContaining([expect.objectContaining({ field: dependency })]),
  );
  const outageLines = logs.lines.slice(before);
  expect(outageLines.filter((line) => line.includes('"unhandled error"'))).toEqual([]);
  expect(outageLines.filter((line) => line.includes(`"${dependency} unavailable`))).toHaveLength(1);
}

async function answersAgain() {
  await eventually(
    'the api answers again',
    async () => ((await stack.anonymous.get('/health/ready')).status === 200 ? true : undefined),
    30_000,
  );
  for (const request of requests(99)) expect((await request()).status).toBeLessThan(300);
}

describe('infrastructure outages', () => {
  it('Redis down: the rate limit falls back to each process, so requests still answer; logged once; back by itself', async () => {
    for (const request of requests(0)) expect((await request()).status).toBeLessThan(300);
    await duringOutage(
      'redis',
      () => redis.stop(),
      (response, what) => {
        expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBeLessThan(300);
        expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();
      },
    );
    await redis.start();
    await answersAgain();
  }, 90_000);

  it('Postgres down: 503 SERVICE_UNAVAILABLE with Retry-After, logged once; back by itself', async () => {
    await duringOutage('postgres', () => postgres.stop('fast'), expectUnavailable);
    await postgres.start();
    await answersAgain();
  }, 90_000);
});
