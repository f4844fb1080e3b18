import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMigrationsDir, migrate } from '#libs/database';
import {
  ApiClient,
  type ApiResponse,
  onboard,
  spawnApi,
  type Stack,
  stackProcessEnv,
  startStack,
  type Tenant,
  uniqueQueuePrefix,
  type WorkerProcess,
} from './kit/index.js';
import { type PrivateReplica, startPrivateReplica } from './kit/private-replica.mjs';
import { type PrivatePostgres, startPrivatePostgres } from './kit/private-services.mjs';

/**
 * Issue 80: during a Postgres failover a connection can still lead to the old primary after it has been
 * demoted to a standby, until the proxy in front cuts it (docs/failover.md#postgres-patroni-behind-haproxy). A write
 * there fails with 25006 (read_only_sql_transaction): the merchant must get what any outage gives, 503
 * with Retry-After in the envelope, never a 500, and reads go on being served. An api whose DATABASE_URL
 * is a hot standby meets exactly that on every write.
 */
describe('a write that reaches a standby (a demoted primary) is an outage, not a failure', () => {
  let primary: PrivatePostgres;
  let standby: PrivateReplica;
  let stack: Stack;
  let tenant: Tenant;
  let onStandby: WorkerProcess & { url: string };
  let client: ApiClient;

  beforeAll(async () => {
    primary = await startPrivatePostgres();
    await migrate(primary.url, defaultMigrationsDir());
    const queuePrefix = uniqueQueuePrefix('standby');
    stack = await startStack({ overrides: { DATABASE_URL: primary.url, QUEUE_PREFIX: queuePrefix } });
    tenant = await onboard(stack);
    standby = await startPrivateReplica(primary);
    onStandby = await spawnApi(stackProcessEnv(stack, { DATABASE_URL: standby.url }));
    client = new ApiClient(onStandby.url, tenant.client.token);
  });
  afterAll(async () => {
    await onStandby?.stop();
    await stack?.close();
    await standby?.destroy();
    await primary?.destroy();
  });

  const expectUnavailable = (response: ApiResponse, what: string) => {
    expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBe(503);
    expect(response.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  };

  it('answers 503 with Retry-After to writes, through hand-written SQL and Prisma alike, and serves reads', async () => {
    // The standby has replayed the merchant and its user: reads are served from it.
    const read = await client.get('/v1/users?limit=5');
    expect(read.status, JSON.stringify(read.body)).toBe(200);

    expectUnavailable(
      await client.post(
        '/v1/users',
        { reference: 'on-a-standby' },
        { headers: { 'idempotency-key': 'standby-1' } },
      ),
      'a user created',
    );
    expectUnavailable(
      await client.post('/v1/event-endpoints', { url: 'https://merchant.example/hooks', types: [] }),
      'an event endpoint created',
    );
    const operator = new ApiClient(onStandby.url, stack.api.config.api.adminToken);
    expectUnavailable(
      await operator.post('/admin/merchants', { name: 'On a standby' }),
      'a merchant on-boarded',
    );

    // Nothing of it reached the primary, and the same requests succeed there.
    const created = await tenant.client.post(
      '/v1/users',
      { reference: 'on-a-standby' },
      { headers: { 'idempotency-key': 'standby-1' } },
    );
    expect(created.status).toBe(201);
    expect(onStandby.output()).not.toMatch(/"code":"INTERNAL"/);
  });
});
