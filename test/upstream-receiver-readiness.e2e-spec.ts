import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { UpstreamReceiverRegistrar } from '../apps/api/src/admin/upstream-receiver.registrar.js';
import { createConsentRow, onboard, SandboxHttp, useStack } from './kit/index.js';

/**
 * Readiness says whether our receiver is registered from what the upstream lists, not from our own table:
 * a registration deleted at the upstream behind our back shows as `missing`, and an upstream that does not
 * answer the question as `unknown`; never `down`.
 */
describe('readiness reads the receiver registration from the upstream', () => {
  // Readiness reads every merchant and registration of its database: this file has its own.
  const stack = useStack({
    ownDatabase: 'receiver_ready',
    overrides: { UPSTREAM_WEBHOOK_AUTO_REGISTER: 'true' },
  });
  let root: string;

  /** `upstreamWebhooks` as a fresh api process reads it (each keeps its answer for a minute). */
  const readinessOfAFreshApi = async (overrides: Record<string, string> = {}) => {
    // Not registering itself, or it would mend what the test broke before anyone looked.
    const api = await stack.startApi({ UPSTREAM_WEBHOOK_AUTO_REGISTER: 'false', ...overrides });
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
    root = stack.api.config.upstream.applicationId;
    // A merchant of the root application holding a consent: the upstream must be able to reach us.
    const tenant = await onboard(stack);
    await createConsentRow(stack.api.app.get(PrismaService), {
      id: tenant.userId,
      merchantId: tenant.merchant.merchant.id,
    });
  });

  it('says missing once the upstream no longer lists our registration, though our table still holds it', async () => {
    expect(await readinessOfAFreshApi()).toEqual({ status: 'up', receiver: 'registered' });

    const ours = (
      (await stack.operator.get('/admin/upstream/webhooks')).body.data as {
        applicationId: string;
        upstreamWebhookId: string;
        retiredAt: string | null;
      }[]
    ).filter((r) => r.retiredAt === null && r.applicationId === root);
    expect(ours).toHaveLength(1);
    // Behind our back: straight at the sandbox, as an operator with the upstream's console would.
    const sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    const deleted = await sandbox.call('DELETE', `/webhook/events/${ours[0].upstreamWebhookId}`);
    expect(deleted.status).toBe(200);

    expect(await readinessOfAFreshApi()).toEqual({
      status: 'up',
      receiver: 'missing',
      applicationsWithoutReceiver: [root],
    });
    // Our table still says registered: it was not asked.
    const still = (await stack.operator.get('/admin/upstream/webhooks')).body.data as {
      retiredAt: string | null;
    }[];
    expect(still.filter((r) => r.retiredAt === null)).toHaveLength(1);
  });

  it('says unknown, and stays ready, when the upstream does not answer the question', async () => {
    // An upstream whose front door answers (its own readiness check passes) but whose API drops every call.
    const upstream: Server = createServer((request, response) => {
      if (request.url === '/') response.end('ok');
      else request.socket.destroy();
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = upstream.address() as AddressInfo;
      expect(await readinessOfAFreshApi({ UPSTREAM_BASE_URL: `http://127.0.0.1:${port}` })).toEqual({
        status: 'up',
        receiver: 'unknown',
      });
    } finally {
      upstream.closeAllConnections();
      await new Promise((resolve) => upstream.close(resolve));
    }
  });
});
