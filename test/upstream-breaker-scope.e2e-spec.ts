import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UPSTREAM_CLIENT, type UpstreamClient } from '#libs/upstream-client';
import {
  connect,
  dataOf,
  eventually,
  onboard,
  SandboxHttp,
  type Tenant,
  uniqueName,
  uniqueQueuePrefix,
  useStack,
} from './kit/index.js';

/**
 * The breakers' keys on the real stack: one merchant's calls that name no bank failing over and over
 * cut off that merchant's operation alone, never another merchant's bank read; an upstream failing
 * everyone's calls still opens the service-wide breaker for all.
 */
describe('one merchant’s failing calls never cut off another merchant', () => {
  const stack = useStack({ overrides: { QUEUE_PREFIX: uniqueQueuePrefix('breaker-scope') } });
  let sandbox: SandboxHttp;
  let failing: Tenant;
  let healthy: Tenant;
  let account: string;

  const serviceBreaker = () => stack.api.app.get<UpstreamClient>(UPSTREAM_CLIENT).breakerState('upstream');
  const createUser = (tenant: Tenant) => tenant.client.post('/v1/users', { reference: uniqueName('u') });

  beforeAll(async () => {
    sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    [failing, healthy] = [await onboard(stack), await onboard(stack)];
    await connect(stack, healthy, 'sandbox-redirect');
    account = await eventually('the healthy merchant’s accounts listed', async () => {
      const accounts = dataOf<{ id: string }[]>(
        await healthy.client.get(`/v1/users/${healthy.userId}/accounts`),
      );
      return accounts[0]?.id;
    });
  });
  afterEach(async () => {
    await sandbox.admin('DELETE', '/faults');
  });

  it('lets merchant B read its bank live after merchant A’s user creations failed again and again', async () => {
    const fault = await sandbox.admin<{ data: { id: string } }>('POST', '/faults', {
      method: 'POST',
      path: '/users',
      status: 500,
    });
    expect(fault.status).toBe(201);
    for (let i = 0; i < 8; i++) expect((await createUser(failing)).status).toBe(503);

    const live = await healthy.client.get(`/v1/accounts/${account}/transactions/live`);
    expect(live.status).toBe(200);
    expect(serviceBreaker()).toBe('closed');
    // Merchant A's creations are cut off (refused without reaching the upstream), and only they are.
    const hits = async () =>
      (await sandbox.admin<{ data: { id: string; hits: number }[] }>('GET', '/faults')).body.data.find(
        (rule) => rule.id === fault.body.data.id,
      )?.hits;
    const before = await hits();
    expect((await createUser(failing)).status).toBe(503);
    expect(await hits()).toBe(before);
  }, 120_000);

  it('still opens for every caller when the upstream fails every merchant’s calls', async () => {
    expect((await sandbox.admin('POST', '/faults', { path: '/**', status: 500 })).status).toBe(201);
    const third = await onboard(stack);
    await eventually('the service-wide breaker open', async () => {
      await Promise.all([
        createUser(failing),
        createUser(third),
        healthy.client.get(`/v1/accounts/${account}/transactions/live`),
      ]);
      return serviceBreaker() === 'open' || undefined;
    });
  }, 120_000);
});
