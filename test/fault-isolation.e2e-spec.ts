import type { INestApplicationContext } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { UPSTREAM_CLIENT, type UpstreamClient } from '#libs/upstream-client';
import {
  accountsWhenSynced,
  connect,
  dataOf,
  eventually,
  paymentApprovedAtBank,
  storedTransactions,
  uniqueName,
  uniqueQueuePrefix,
  useBankFaults,
  useStack,
  useTenant,
} from './kit/index.js';

/**
 * Bulkheads on the real stack: one bank failing every data call, with the upstream blaming itself
 * (`source: YAPILY`, the hardest case: nothing in the answer says it is the bank's), cuts off that bank
 * alone. Another bank's first sync, reads and payments go through as if nothing were wrong.
 */
describe('one failing bank never takes the others down', () => {
  const stack = useStack({
    worker: true,
    overrides: { QUEUE_PREFIX: uniqueQueuePrefix('fault-isolation') },
  });
  const tenant = useTenant(stack);
  const sandbox = useBankFaults(stack);

  const breakerOf = (process: { app: INestApplicationContext }, key: string) =>
    process.app.get<UpstreamClient>(UPSTREAM_CLIENT).breakerState(key);

  it('cuts off the failing bank alone: another bank connects, syncs, reads and pays', async () => {
    const failing = await sandbox.admin('POST', '/faults', {
      method: 'GET',
      path: '/accounts/**',
      institution: 'sandbox-flaky',
      status: 500,
    });
    expect(failing.status).toBe(201);
    await connect(stack, tenant, 'sandbox-flaky');
    const flakyAccounts = await eventually('the failing bank’s accounts listed', async () => {
      const accounts = dataOf<{ id: string }[]>(
        await tenant.client.get(`/v1/users/${tenant.userId}/accounts`),
      );
      return accounts.length > 0 ? accounts : undefined;
    });
    // Live reads of the failing bank, each retried by the client, until its breaker opens in the api.
    await eventually('the failing bank’s breaker open in the api', async () => {
      const live = await tenant.client.get(`/v1/accounts/${flakyAccounts[0].id}/transactions/live`);
      expect(live.status).toBeGreaterThanOrEqual(500);
      return breakerOf(stack.api, 'sandbox-flaky') === 'open' || undefined;
    });
    expect(breakerOf(stack.api, 'upstream')).toBe('closed');

    // Another user of the merchant, at another bank: every step reaches the upstream and succeeds.
    const other = dataOf<{ id: string }>(
      await tenant.client.post('/v1/users', { reference: uniqueName('isolated') }),
      201,
    );
    await connect(stack, { ...tenant, userId: other.id }, 'sandbox-redirect');
    const accounts = await accountsWhenSynced(tenant.client, other.id);
    expect(accounts.length).toBeGreaterThan(0);
    let stored = 0;
    for (const account of accounts) {
      stored += (await storedTransactions(tenant.client, account.id)).length;
      expect((await tenant.client.get(`/v1/accounts/${account.id}/transactions/live`)).status).toBe(200);
    }
    expect(stored).toBeGreaterThan(0);
    expect((await tenant.client.get(`/v1/accounts/${accounts[0].id}/statements`)).status).toBe(200);
    await paymentApprovedAtBank(stack, tenant, other.id, 'isolated-pay');

    // The failing bank is still failing and still cut off; the service never was.
    expect(breakerOf(stack.api, 'upstream')).toBe('closed');
    expect(breakerOf(stack.worker!, 'upstream')).toBe('closed');
    const refused = await tenant.client.get(`/v1/accounts/${flakyAccounts[0].id}/transactions/live`);
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
  }, 180_000);
});
