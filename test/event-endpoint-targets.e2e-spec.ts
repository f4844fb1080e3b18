import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import {
  createConsentRow,
  dataOf,
  EventReceiver,
  eventually,
  onboard,
  postUpstreamEvent,
  registeredSecret,
  type Tenant,
  TestDns,
  tuned,
  upstreamEvent,
  useStack,
} from './kit/index.js';

interface TestSent {
  delivered: boolean;
  responseStatus: number | null;
  error: string | null;
}
type Created = { endpoint: { id: string; url: string } };

const PUBLIC = '93.184.216.34';
// Started before the stacks below, which are told its port; stopped after them.
const dns = await new TestDns().start();

/**
 * Issue 81 (8): a merchant's endpoint must not reach our own network by name. With private targets
 * refused (production's default), a name is checked as it is saved (create and PATCH) and again on the
 * address each delivery connects to, so one that rebinds after the save is refused too. The names
 * resolve through a DNS server this test runs (the network here has none).
 */
describe('event endpoints: names that resolve to private addresses', () => {
  // The worker delivers every event of its database: this file has one of its own.
  const stack = useStack({
    ownDatabase: 'endpoint_targets',
    worker: true,
    overrides: { EVENT_ENDPOINTS_ALLOW_PRIVATE: 'false', ...tuned({ eventEndpointDnsPort: dns.port }) },
  });
  let tenant: Tenant;
  let receiver: EventReceiver;

  beforeAll(async () => {
    tenant = await onboard(stack);
    receiver = await new EventReceiver().start();
    dns.set('localtest.me', '127.0.0.1');
    dns.set('10-1-2-3.nip.io', '10.1.2.3');
    dns.set('metadata.google.internal', '169.254.169.254');
    dns.set('both.example.test', PUBLIC, 'fd00::1');
    dns.set('public.example.test', PUBLIC);
  });
  afterAll(async () => {
    await receiver?.stop();
    await dns.stop();
  });

  const create = (url: string) =>
    tenant.client.post('/v1/event-endpoints', { url, types: ['consent.revoked'] });
  const refusedBecause = (response: { status: number; body: any }, why: string) => {
    expect([response.status, response.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(response.body.error.details).toEqual([{ field: 'url', issue: expect.stringContaining(why) }]);
  };

  it('refuses, at create and at PATCH, a name resolving to loopback, private or metadata addresses', async () => {
    const named: [string, string][] = [
      ['localtest.me', '127.0.0.1'],
      ['10-1-2-3.nip.io', '10.1.2.3'],
      ['metadata.google.internal', '169.254.169.254'],
      ['both.example.test', 'fd00::1'],
    ];
    const saved = dataOf<Created>(await create('https://public.example.test/hooks'), 201);
    for (const [name, address] of named) {
      const why = `${name} resolves to ${address}, a private or local address`;
      refusedBecause(await create(`https://${name}/hooks`), why);
      refusedBecause(
        await tenant.client.patch(`/v1/event-endpoints/${saved.endpoint.id}`, {
          url: `http://${name}:8080/x`,
        }),
        why,
      );
    }
    const kept = dataOf<Created['endpoint']>(
      await tenant.client.get(`/v1/event-endpoints/${saved.endpoint.id}`),
    );
    expect(kept.url).toBe('https://public.example.test/hooks');
    await tenant.client.delete(`/v1/event-endpoints/${saved.endpoint.id}`);
  });

  it('refuses at connect time a name that resolved public when saved and private when delivered to', async () => {
    const port = new URL(receiver.url).port;
    dns.set('rebind.example.test', PUBLIC);
    const saved = dataOf<Created>(await create(`http://rebind.example.test:${port}/hooks`), 201);
    // Rebound to where our receiver listens: were it connected to, the receiver would see the request.
    dns.set('rebind.example.test', '127.0.0.1');
    const sent = dataOf<TestSent>(await tenant.client.post(`/v1/event-endpoints/${saved.endpoint.id}/test`));
    expect(sent).toMatchObject({ delivered: false, responseStatus: null });
    expect(sent.error).toContain('rebind.example.test resolves to 127.0.0.1, a private or local address');
    expect(receiver.requests).toEqual([]);
    await tenant.client.delete(`/v1/event-endpoints/${saved.endpoint.id}`);
  });

  it('fails a delivery to a name rebound since it was saved, and says why', async () => {
    const port = new URL(receiver.url).port;
    dns.set('rebound.example.test', PUBLIC);
    const saved = dataOf<Created>(await create(`http://rebound.example.test:${port}/hooks`), 201);
    dns.set('rebound.example.test', '10.0.0.7', '127.0.0.1');
    const prisma = stack.api.app.get(PrismaService);
    const consent = await createConsentRow(prisma, {
      id: tenant.userId,
      merchantId: tenant.merchant.merchant.id,
    });
    const revoked = upstreamEvent('consent.state.revoked', { consentId: consent.upstreamConsentId });
    expect((await postUpstreamEvent(stack, revoked, await registeredSecret(stack))).status).toBe(200);

    const path = `/v1/event-endpoints/${saved.endpoint.id}/deliveries`;
    const [delivery] = await eventually('the first attempt made', async () => {
      const found = dataOf<{ id: string; attempts: number }[]>(await tenant.client.get(path));
      return found[0]?.attempts ? found : undefined;
    });
    const attempts = dataOf<{ response: unknown; error: string | null }[]>(
      await tenant.client.get(`${path}/${delivery.id}/attempts`),
    );
    expect(attempts.at(-1)).toMatchObject({
      response: null,
      error: expect.stringContaining('rebound.example.test resolves to 10.0.0.7, a private or local address'),
    });
    expect(receiver.requests).toEqual([]);
  });
});

/** A redirect is never followed, wherever it points: the delivery fails and names why. */
describe('event endpoints: redirects', () => {
  const stack = useStack({});
  let tenant: Tenant;
  let redirecting: Server;
  let target: EventReceiver;

  beforeAll(async () => {
    tenant = await onboard(stack);
    target = await new EventReceiver().start();
    redirecting = createServer((request, response) => {
      request.resume();
      const to = request.url === '/metadata' ? 'http://169.254.169.254/latest/meta-data/' : target.url;
      response.writeHead(307, { location: to }).end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await target?.stop();
    redirecting?.closeAllConnections();
    await new Promise<void>((resolve) => (redirecting ? redirecting.close(() => resolve()) : resolve()));
  });

  it('does not follow a redirect to a private address', async () => {
    const base = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`;
    for (const path of ['/hooks', '/metadata']) {
      const saved = dataOf<Created>(
        await tenant.client.post('/v1/event-endpoints', {
          url: `${base}${path}`,
          types: ['consent.revoked'],
        }),
        201,
      );
      const sent = dataOf<TestSent>(
        await tenant.client.post(`/v1/event-endpoints/${saved.endpoint.id}/test`),
      );
      expect(sent).toEqual(
        expect.objectContaining({
          delivered: false,
          responseStatus: 307,
          error: 'redirects are not followed',
        }),
      );
    }
    expect(target.requests).toEqual([]);
  });
});
