import { randomUUID } from 'node:crypto';
import { DiscoveryService } from '@nestjs/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMigrationsDir, migrate } from '#libs/database';
import { PaymentStatusPoller } from '#libs/domain/payments';
import { discoverJobProcessors } from '../apps/worker/src/job-handlers.check.js';
import {
  ApiClient,
  type ApiResponse,
  atBank,
  bankRedirect,
  captureLogger,
  dataOf,
  eventually,
  onboard,
  paymentBodies,
  SandboxHttp,
  type Stack,
  startStack,
  type Tenant,
  tuned,
  uniqueQueuePrefix,
  WAIT,
} from './kit/index.js';
import {
  type PrivatePostgres,
  type PrivateRedis,
  startPrivatePostgres,
  startPrivateRedis,
} from './kit/private-services.mjs';

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
      ...tuned({ authCacheSeconds: 0 }),
    },
    loggers: { api: logs.logger },
  });
  tenant = await onboard(stack);
}, 120_000);

afterAll(async () => {
  await stack?.close();
  await Promise.all([redis?.destroy(), postgres?.destroy()]);
});

/**
 * The merchant routes a client uses most: a read, a create (idempotent), and one that enqueues a job;
 * and a connect funnel report, which a user's browser sends as they connect a bank.
 */
const requests = (attempt: number) => [
  () => tenant.client.post('/v1/connect-funnel/reports', { attemptId: randomUUID(), event: 'opened' }),
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

/** A consent approved at the bank: its id, and the callback URL the bank sends the user back to. */
async function approvedAtBank() {
  const created = dataOf<{ id: string; authorisationUrl: string }>(
    await tenant.client.post(`/v1/users/${tenant.userId}/consents`, {
      institutionId: 'sandbox-redirect',
      redirectUrl: 'https://app.merchant.example/banks/done',
    }),
    201,
  );
  const callback = await bankRedirect(
    { apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url },
    created.authorisationUrl,
  );
  return { created, callback };
}

async function answersAgain() {
  await eventually(
    'the api answers again',
    async () => ((await stack.anonymous.get('/health/ready')).status === 200 ? true : undefined),
    WAIT.step,
  );
  for (const request of requests(99)) expect((await request()).status).toBeLessThan(300);
}

/**
 * The upstream holds the one-time token's exchange long enough for Postgres to stop behind it: the
 * callback is claimed and the bank's token obtained, but it cannot be stored. The callback answers 503,
 * and Postgres is back before this returns.
 */
async function postgresDownDuringExchange(sandbox: SandboxHttp, callback: string) {
  const held = await sandbox.holdOnce({
    method: 'POST',
    path: '/consent-one-time-token',
    latencyMs: 1_500,
  });
  const during = fetch(callback, { redirect: 'manual' });
  await held.hit();
  await postgres.stop('fast');
  const page = await during;
  await page.arrayBuffer();
  expect(page.status).toBe(503);
  await postgres.start();
  await answersAgain();
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

  it('Postgres down at the bank callback: a page that reloads itself, and the reload completes the consent', async () => {
    const { created, callback } = await approvedAtBank();
    await postgres.stop('fast');
    const during = await fetch(callback, { redirect: 'manual' });
    const page = await during.text();
    expect(during.status).toBe(503);
    expect(during.headers.get('content-type')).toMatch(/^text\/html/);
    expect(Number(during.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(during.headers.get('cache-control')).toBe('no-store');
    expect(page).toContain('<meta http-equiv="refresh"');
    await postgres.start();
    await answersAgain();
    // What the page's reload does: the same URL, which now completes the callback.
    const reloaded = await fetch(callback, { redirect: 'manual' });
    await reloaded.arrayBuffer();
    expect(reloaded.status).toBe(302);
    const back = new URL(reloaded.headers.get('location')!);
    expect(back.searchParams.get('status')).toBe('AUTHORIZED');
    expect(dataOf<{ status: string }>(await tenant.client.get(`/v1/consents/${created.id}`)).status).toBe(
      'AUTHORIZED',
    );
  }, 90_000);

  it('Postgres down while the bank’s answer is exchanged: stored once it is back, and the reload finds it authorised', async () => {
    const sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    const { created, callback } = await approvedAtBank();
    await postgresDownDuringExchange(sandbox, callback);
    // Before, the approval was lost with the request: the consent stayed AWAITING_AUTHORIZATION and the
    // reload (its state spent) sent the user back with that, until a reconciliation hours later.
    await eventually('the approval stored once Postgres is back', async () => {
      const consent = dataOf<{ status: string }>(await tenant.client.get(`/v1/consents/${created.id}`));
      return consent.status === 'AUTHORIZED' || undefined;
    });
    const reloaded = await fetch(callback, { redirect: 'manual' });
    await reloaded.arrayBuffer();
    expect(reloaded.status).toBe(302);
    expect(new URL(reloaded.headers.get('location')!).searchParams.get('status')).toBe('AUTHORIZED');
    await sandbox.admin('DELETE', '/faults');
  }, 90_000);

  it('Postgres down while a payment’s approval is exchanged: the payment is made once it is back, no reload needed', async () => {
    const sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    const created = dataOf<{ id: string; authorisationUrl: string }>(
      await tenant.client.post(`/v1/users/${tenant.userId}/payments`, paymentBodies.single(), {
        headers: { 'idempotency-key': `outage-approval-${Date.now()}` },
      }),
      201,
    );
    const callback = await bankRedirect(
      { apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url },
      created.authorisationUrl,
    );
    await postgresDownDuringExchange(sandbox, callback);
    // Before, the consent was stored once Postgres was back but its payment was not made: it stayed
    // AWAITING_AUTHORIZATION until the authorisation window closed (an hour), unless the user reloaded.
    await eventually('the payment made once Postgres is back', async () => {
      const payment = dataOf<{ status: string }>(await tenant.client.get(`/v1/payments/${created.id}`));
      return payment.status !== 'AWAITING_AUTHORIZATION' && payment.status !== 'SUBMITTING'
        ? payment
        : undefined;
    });
    await sandbox.admin('DELETE', '/faults');
  }, 90_000);

  it('Postgres down in the middle of a keyed payment: a retry with the same key goes through once it is back', async () => {
    const sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    // The bank holds the payment request long enough for Postgres to stop while it is in flight.
    const held = await sandbox.holdOnce({ method: 'POST', path: '/payment-auth-requests', latencyMs: 1_500 });
    const key = `outage-pay-${Date.now()}`;
    const pay = () =>
      tenant.client.post(`/v1/users/${tenant.userId}/payments`, paymentBodies.single(), {
        headers: { 'idempotency-key': key },
      });
    const first = pay();
    await held.hit();
    await postgres.stop('fast');
    expectUnavailable(await first, 'the payment whose claim outlived Postgres');
    await postgres.start();
    await answersAgain();
    // The claim is released once Postgres is back (tried every second), well before it would go stale
    // (60 s): the retry is answered, not told "in progress" for a minute.
    const retried = await eventually(
      'the retry answered',
      async () => {
        const response = await pay();
        if (response.status === 409) {
          expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
          return undefined;
        }
        return response;
      },
      20_000,
    );
    expect(retried.status).toBe(201);
    await sandbox.admin('DELETE', '/faults');
  }, 90_000);

  it('Postgres down in the middle of a payment status check: checked again once it is back, not after the lease', async () => {
    const sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    const poller = stack.api.app.get(PaymentStatusPoller);
    const created = dataOf<{ id: string; authorisationUrl: string }>(
      await tenant.client.post(`/v1/users/${tenant.userId}/payments`, paymentBodies.single(), {
        headers: { 'idempotency-key': `outage-check-${Date.now()}` },
      }),
      201,
    );
    expect((await atBank(stack, created.authorisationUrl)).query.status).toBe('PENDING');
    // The bank holds the status check long enough for Postgres to stop while it is in flight: the check
    // cannot record the answer, nor hand its claim back.
    const held = await sandbox.holdOnce({ method: 'GET', path: '/payments/**', latencyMs: 1_500 });
    const round = eventually('a round that claims the payment', async () => {
      const result = await poller.pollDue();
      return result.checked > 0 ? result : undefined;
    });
    await held.hit();
    await postgres.stop('fast');
    const claimed = await round.finally(() => postgres.start());
    // Ours at least: a payment an earlier test left due may be claimed in the same round, and fail alike.
    expect(claimed.failed).toBeGreaterThanOrEqual(1);
    await answersAgain();
    // Before, the claim stayed leased for CLAIM_LEASE_SECONDS (300 s): no round would look at the payment
    // for five minutes. Now the claim is handed back within seconds of Postgres returning.
    const done = await eventually(
      'the payment checked again and final',
      async () => {
        await poller.pollDue();
        const payment = dataOf<{ status: string }>(await tenant.client.get(`/v1/payments/${created.id}`));
        return ['PENDING', 'SUBMITTING'].includes(payment.status) ? undefined : payment;
      },
      WAIT.step,
    );
    expect(done.status).toBe('COMPLETED');
  }, 120_000);

  it('Redis down at start: an api and a worker start, the api serves and says not ready; both run once it is back', async () => {
    await redis.stop();
    const api = await stack.startApi();
    const worker = await stack.startWorker();
    const client = new ApiClient(api.url, tenant.client.token);
    // Requests that need no Redis are served (the rate limit counts in the process meanwhile).
    expect((await client.get('/v1/users?limit=5')).status).toBe(200);
    const ready = await client.get('/health/ready');
    expectUnavailable(ready, 'readiness while Redis is down');
    expect(ready.body.error.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'redis' })]),
    );

    await redis.start();
    await eventually(
      'the api started without Redis ready',
      async () => ((await client.get('/health/ready')).status === 200 ? true : undefined),
      WAIT.step,
    );
    const processors = discoverJobProcessors(worker.app.get(DiscoveryService));
    expect(processors.length).toBeGreaterThan(0);
    for (const processor of processors) {
      await processor.worker.waitUntilReady();
      expect(processor.worker.isRunning()).toBe(true);
    }
    await worker.close();
    await api.close();
  }, 90_000);
});
