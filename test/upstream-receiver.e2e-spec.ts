import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { UPSTREAM_CLIENT, type UpstreamClient } from '#libs/upstream-client';
import { UpstreamReceiverRegistrar } from '../apps/api/src/admin/upstream-receiver.registrar.js';
import { createConsentRow, createSandboxSubApplication, onboard, useStack } from './kit/index.js';

type Registration = { id: string; applicationId: string; callbackUrl: string; upstreamWebhookId: string };

/**
 * `npm start` registers our receiver with the sandbox as the api starts (UPSTREAM_WEBHOOK_AUTO_REGISTER),
 * once however many apis start, again when the sandbox has forgotten it; readiness says which applications
 * holding consents have none.
 */
describe('the upstream webhook receiver, registered at start and watched by readiness', () => {
  // Readiness reads every merchant and registration of its database: this file has its own.
  const stack = useStack({
    ownDatabase: 'receiver',
    overrides: { UPSTREAM_WEBHOOK_AUTO_REGISTER: 'true' },
  });
  const root = () => stack.api.config.upstream.applicationId;
  const receiverUrl = () => `${stack.api.config.api.publicUrl}/v1/webhooks/upstream`;
  const current = async () =>
    (
      (await stack.operator.get('/admin/upstream/webhooks')).body.data as (Registration & {
        retiredAt: string | null;
      })[]
    ).filter((r) => r.retiredAt === null);
  /** Readiness as a fresh api process reads it (each process keeps its answer for a minute). */
  const readinessOfAFreshApi = async () => {
    const api = await stack.startApi();
    try {
      const ready = await fetch(`${api.url}/health/ready`);
      expect(ready.status).toBe(200);
      return ((await ready.json()) as { details: Record<string, Record<string, unknown>> }).details
        .upstreamWebhooks;
    } finally {
      await api.close();
    }
  };

  beforeAll(async () => {
    await stack.api.app.get(UpstreamReceiverRegistrar).running;
  });

  it('registers the receiver for the root application once, however many apis start', async () => {
    const [first] = await current();
    expect(first).toMatchObject({ applicationId: root(), callbackUrl: receiverUrl() });
    const another = await stack.startApi();
    await another.app.get(UpstreamReceiverRegistrar).running;
    await another.close();
    expect((await current()).map((r) => r.id)).toEqual([first.id]);
    const listed = await stack.api.app.get<UpstreamClient>(UPSTREAM_CLIENT).webhooks.list();
    expect((listed.data.active ?? []).filter((w) => w.id === first.upstreamWebhookId)).toHaveLength(1);
  });

  it('registers again when the upstream no longer lists ours (a sandbox restarted)', async () => {
    const [before] = await current();
    await stack.api.app.get<UpstreamClient>(UPSTREAM_CLIENT).webhooks.delete(before.upstreamWebhookId);
    const another = await stack.startApi();
    await another.app.get(UpstreamReceiverRegistrar).running;
    await another.close();
    const after = await current();
    expect(after).toHaveLength(1);
    expect(after[0].id).not.toBe(before.id);
    expect(after[0]).toMatchObject({ applicationId: root(), callbackUrl: receiverUrl() });
  });

  it('registers one webhook for the URL when two apis start at once', async () => {
    const client = stack.api.app.get<UpstreamClient>(UPSTREAM_CLIENT);
    const forUrl = async () =>
      ((await client.webhooks.list()).data.active ?? []).filter(
        (w) => w.callbackUrl?.main?.url === receiverUrl(),
      );
    // The sandbox forgot ours: both apis find none and race to register it.
    for (const webhook of await forUrl()) await client.webhooks.delete(webhook.id);
    const apis = await Promise.all([stack.startApi(), stack.startApi()]);
    try {
      await Promise.all(apis.map((api) => api.app.get(UpstreamReceiverRegistrar).running));
    } finally {
      await Promise.all(apis.map((api) => api.close()));
    }
    const live = await forUrl();
    expect(live).toHaveLength(1);
    const after = await current();
    expect(after.map((r) => r.upstreamWebhookId)).toEqual([live[0].id]);
  });

  it('says in readiness which applications hold consents with no receiver, and stays ready', async () => {
    expect(await readinessOfAFreshApi()).toEqual({ status: 'up', receiver: 'registered' });
    const sub = await createSandboxSubApplication(stack.sandbox.url, stack.api.config);
    const tenant = await onboard(stack, { subApplicationId: sub });
    // A merchant with no consent needs no receiver yet.
    expect(await readinessOfAFreshApi()).toEqual({ status: 'up', receiver: 'registered' });
    await createConsentRow(stack.api.app.get(PrismaService), {
      id: tenant.userId,
      merchantId: tenant.merchant.merchant.id,
    });
    expect(await readinessOfAFreshApi()).toEqual({
      status: 'up',
      receiver: 'missing',
      applicationsWithoutReceiver: [sub],
    });
    const registered = await stack.operator.post('/admin/upstream/webhooks', {
      merchantId: tenant.merchant.merchant.id,
    });
    expect(registered.status).toBe(201);
    expect(await readinessOfAFreshApi()).toEqual({ status: 'up', receiver: 'registered' });
  });
});
