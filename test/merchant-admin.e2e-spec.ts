import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { AccountSyncStateRepository } from '#libs/domain/accounts';
import { EventDeliveryRepository, EventDeliveryService, EventsSweeperService } from '#libs/domain/events';
import { UserRepository } from '#libs/domain/users';
import {
  ApiClient,
  assertProperty,
  createConsentRow,
  createDueAccounts,
  createPaymentRow,
  createSandboxSubApplication,
  createUser,
  EventReceiver,
  eventually,
  onboard,
  postUpstreamEvent,
  registeredSecret,
  sessionToken,
  spawnApi,
  type Tenant,
  tuned,
  upstreamEvent,
  useStack,
  WAIT,
  type WorkerProcess,
} from './kit/index.js';

/**
 * The operator changes a merchant after on-boarding and switches it off and on: in effect on every api
 * process at once, and nothing of the merchant's data or pending work is lost.
 */
describe('operator: changing, disabling and enabling a merchant', () => {
  // The dispatcher, sweeps and payment poll act on every row of their database: this file has its own.
  const stack = useStack({
    ownDatabase: 'merchant_admin',
    worker: true,
    overrides: {
      ...tuned({
        authCacheSeconds: 300,
        eventsSweepEverySeconds: 1,
        eventDeliveryBackoffSeconds: 1,
        paymentStatusPollSeconds: 1,
        syncDispatchEverySeconds: 3600,
      }),
    },
  });
  let second: WorkerProcess & { url: string };
  let prisma: PrismaService;

  beforeAll(async () => {
    prisma = stack.api.app.get(PrismaService);
    // A second api process on the same database and Redis channel, its credential cache warm for 300 s.
    second = await spawnApi({
      LOG_LEVEL: 'error',
      ...tuned({ authCacheSeconds: 300 }),
      UPSTREAM_BASE_URL: stack.sandbox.url,
      DATABASE_URL: stack.databaseUrl,
      QUEUE_PREFIX: stack.api.config.redis.queuePrefix,
    });
  }, 90_000);
  afterAll(async () => {
    await second?.stop();
  });

  const merchantPath = (t: Tenant) => `/admin/merchants/${t.merchant.merchant.id}`;
  const preflight = (baseUrl: string, origin: string) =>
    fetch(`${baseUrl}/v1/institutions`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'GET' },
    });

  it('changes the name and the browser origins, in effect for CORS at once on every api process', async () => {
    const tenant = await onboard(stack, { frontendOrigins: ['https://old.shop.example'] });
    const onSecond = new ApiClient(second.url, tenant.merchant.apiKey.key);
    expect((await preflight(second.url, 'https://old.shop.example')).status).toBe(204);

    const changed = await stack.operator.patch(merchantPath(tenant), {
      name: 'Renamed Shop',
      frontendOrigins: ['https://new.shop.example', 'https://new.shop.example'],
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({
      name: 'Renamed Shop',
      frontendOrigins: ['https://new.shop.example'],
      disabledAt: null,
    });
    expect((await preflight(second.url, 'https://new.shop.example')).status).toBe(204);
    expect((await preflight(second.url, 'https://old.shop.example')).status).toBe(403);
    const read = await onSecond.get('/v1/institutions?limit=1', {
      headers: { origin: 'https://new.shop.example' },
    });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBe('https://new.shop.example');

    // Bad input changes nothing and says which field.
    for (const body of [
      { frontendOrigins: ['not an origin'] },
      { name: '' },
      { name: null },
      { subApplicationId: 'spaces are not ids' },
    ]) {
      const refused = await stack.operator.patch(merchantPath(tenant), body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error.code).toBe('VALIDATION_FAILED');
      expect(refused.body.error.details[0].field).toBe(Object.keys(body)[0]);
    }
    expect((await stack.operator.get(merchantPath(tenant))).body.data).toMatchObject({
      name: 'Renamed Shop',
      frontendOrigins: ['https://new.shop.example'],
    });
    for (const id of ['0190b3c4-0000-7000-8000-000000000000', 'not-a-uuid']) {
      const missing = await stack.operator.patch(`/admin/merchants/${id}`, { name: 'x' });
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('NOT_FOUND');
    }
    // Only the operator changes merchants.
    expect((await tenant.client.patch(merchantPath(tenant), { name: 'mine' })).status).toBe(403);
  });

  it('maps another sub-application only while the merchant has no consent, as the upstream knows it', async () => {
    const tenant = await onboard(stack);
    const other = await onboard(stack);
    const sub = await createSandboxSubApplication(stack.sandbox.url, stack.api.config, 'Shop EU');

    const unknown = await stack.operator.patch(merchantPath(tenant), { subApplicationId: 'no-such-app' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details[0].field).toBe('subApplicationId');

    const mapped = await stack.operator.patch(merchantPath(tenant), { subApplicationId: sub });
    expect(mapped.status).toBe(200);
    expect(mapped.body.data).toMatchObject({ subApplicationId: sub, subApplicationName: 'Shop EU' });
    // `null` maps none again (the root application), and frees the sub-application for remapping.
    const cleared = await stack.operator.patch(merchantPath(tenant), { subApplicationId: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).toMatchObject({ subApplicationId: null, subApplicationName: null });
    expect((await stack.operator.patch(merchantPath(tenant), { subApplicationId: sub })).status).toBe(200);
    // The same again is no change; another merchant cannot take it.
    expect((await stack.operator.patch(merchantPath(tenant), { subApplicationId: sub })).status).toBe(200);
    const taken = await stack.operator.patch(merchantPath(other), { subApplicationId: sub });
    expect(taken.status).toBe(409);

    // Once a consent lives under it, it stays.
    await createConsentRow(prisma, { id: tenant.userId, merchantId: tenant.merchant.merchant.id });
    const later = await createSandboxSubApplication(stack.sandbox.url, stack.api.config);
    const refused = await stack.operator.patch(merchantPath(tenant), { subApplicationId: later });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('CONFLICT');
    expect((await stack.operator.patch(merchantPath(tenant), { subApplicationId: null })).status).toBe(409);
    expect((await stack.operator.get(merchantPath(tenant))).body.data.subApplicationId).toBe(sub);
  });

  it("refuses a disabled merchant's keys and sessions on every api process at once, and takes them again once enabled", async () => {
    const tenant = await onboard(stack);
    const bystander = await onboard(stack);
    const session = sessionToken(stack.api.config, {
      merchantId: tenant.merchant.merchant.id,
      userId: tenant.userId,
    });
    const callers = [stack.api.url, second.url].flatMap((url) => [
      new ApiClient(url, tenant.merchant.apiKey.key),
      new ApiClient(url, session),
    ]);
    const read = (client: ApiClient) => client.get(`/v1/users/${tenant.userId}`);
    // Every credential cached as valid on both processes first.
    for (const client of callers) expect((await read(client)).status).toBe(200);

    const disabled = await stack.operator.post(`${merchantPath(tenant)}/disable`);
    expect(disabled.status).toBe(200);
    expect(disabled.body.data.disabledAt).toEqual(expect.any(String));
    const again = await stack.operator.post(`${merchantPath(tenant)}/disable`);
    expect(again.body.data.disabledAt).toBe(disabled.body.data.disabledAt);

    // This process was told before the answer; the other within moments, through Redis.
    for (const client of callers.slice(0, 2)) {
      const refused = await read(client);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('MERCHANT_DISABLED');
    }
    for (const client of callers.slice(2)) {
      await eventually(
        'the disabled merchant refused on every api',
        async () => {
          expect((await read(client)).body.error?.code).toBe('MERCHANT_DISABLED');
          return true;
        },
        WAIT.revocation,
        50,
      );
    }
    // A wrong key stays a plain 401: the merchant's state is told only to its own credentials.
    const forged = `${tenant.merchant.apiKey.key.slice(0, -4)}AAAA`;
    expect((await stack.anonymous.as(forged).get('/v1/me')).status).toBe(401);
    expect((await bystander.client.get('/v1/me')).status).toBe(200);
    expect((await stack.operator.get(merchantPath(tenant))).body.data.disabledAt).toBe(
      disabled.body.data.disabledAt,
    );

    const enabled = await stack.operator.post(`${merchantPath(tenant)}/enable`);
    expect(enabled.status).toBe(200);
    expect(enabled.body.data.disabledAt).toBeNull();
    expect((await stack.operator.post(`${merchantPath(tenant)}/enable`)).status).toBe(200);
    for (const client of callers) {
      const answer = await read(client);
      expect(answer.status).toBe(200);
      expect(answer.body.data.id).toBe(tenant.userId);
    }
  });

  it("leaves a disabled merchant's due accounts out of every dispatch, whatever the mix and page size", async () => {
    const syncState = stack.worker!.app.get(AccountSyncStateRepository);
    const users = stack.api.app.get(UserRepository);
    /** Every due account of `merchantIds`, through the dispatcher's keyset pages of `pageSize`. */
    const dueOf = async (merchantIds: Set<string>, pageSize: number) => {
      const found: string[] = [];
      let after: { nextSyncAt: Date; accountId: string } | null = null;
      for (;;) {
        const page = await syncState.dueForSync(new Date(), after, pageSize);
        found.push(...page.filter((r) => merchantIds.has(r.merchantId)).map((r) => r.accountId));
        if (page.length < pageSize) return found.sort();
        const last = page.at(-1)!;
        after = { nextSyncAt: last.nextSyncAt, accountId: last.accountId };
      }
    };
    await assertProperty(
      fc.asyncProperty(
        fc.array(fc.record({ disabled: fc.boolean(), accounts: fc.integer({ min: 0, max: 130 }) }), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.integer({ min: 7, max: 120 }),
        async (merchants, pageSize) => {
          const enabledAccounts: string[] = [];
          const all: string[] = [];
          const ids = new Set<string>();
          for (const m of merchants) {
            const tenant = await onboard(stack);
            const id = tenant.merchant.merchant.id;
            ids.add(id);
            const user = await createUser(users, id);
            const consent = await createConsentRow(prisma, user);
            const accounts = await createDueAccounts(prisma, consent, m.accounts);
            all.push(...accounts);
            if (m.disabled)
              expect((await stack.operator.post(`/admin/merchants/${id}/disable`)).status).toBe(200);
            else enabledAccounts.push(...accounts);
          }
          expect(await dueOf(ids, pageSize)).toEqual(enabledAccounts.sort());
          for (const id of ids) await stack.operator.post(`/admin/merchants/${id}/enable`);
          expect(await dueOf(ids, pageSize)).toEqual(all.sort());
        },
      ),
      6,
    );
  });

  it('holds back event deliveries and payment checks while disabled, counts no attempt, and sends them once enabled', async () => {
    const tenant = await onboard(stack);
    const bystander = await onboard(stack);
    const receiver = await new EventReceiver().start();
    try {
      const created = await tenant.client.post('/v1/event-endpoints', {
        url: receiver.url,
        types: ['consent.revoked'],
      });
      expect(created.status).toBe(201);
      const consent = await createConsentRow(prisma, {
        id: tenant.userId,
        merchantId: tenant.merchant.merchant.id,
      });
      const duePayment = async (t: Tenant) => {
        const user = await createUser(stack.api.app.get(UserRepository), t.merchant.merchant.id);
        const row = await createConsentRow(prisma, user);
        return createPaymentRow(prisma, row, { nextStatusCheckAt: new Date(Date.now() - 120_000) });
      };
      // Disabled before its payment is due: a poll round running meanwhile could otherwise take it first.
      expect((await stack.operator.post(`${merchantPath(tenant)}/disable`)).status).toBe(200);
      const held = await duePayment(tenant);
      // Due after the held one, so a poll round that reaches it has passed the held one by.
      const control = await duePayment(bystander);

      // The bank revokes the consent while the merchant is off: applied here, the event kept for it.
      const secret = await registeredSecret(stack);
      const revoked = upstreamEvent('consent.state.revoked', { consentId: consent.upstreamConsentId });
      expect((await postUpstreamEvent(stack, revoked, secret)).status).toBe(200);
      const delivery = await eventually('the delivery recorded', async () => {
        const row = await prisma.eventDelivery.findFirst({
          where: { endpointId: created.body.data.endpoint.id },
        });
        return row ?? undefined;
      });
      expect((await prisma.consent.findUniqueOrThrow({ where: { id: consent.id } })).status).toBe('REVOKED');

      // Its job ran (or runs) to no effect: no request, no attempt counted, not picked up by the sweep.
      const deliveries = stack.worker!.app.get(EventDeliveryService);
      expect(await deliveries.attempt(delivery.id)).toEqual({ outcome: 'skipped' });
      const overdue = await stack
        .worker!.app.get(EventDeliveryRepository)
        .overdue(new Date(Date.now() + 3_600_000), 10_000);
      expect(overdue.map((d) => d.id)).not.toContain(delivery.id);
      await eventually('a payment poll round past the held payment', async () => {
        const row = await prisma.payment.findUniqueOrThrow({ where: { id: control.id } });
        return row.nextStatusCheckAt?.getTime() !== control.nextStatusCheckAt?.getTime() ? true : undefined;
      });
      expect((await prisma.payment.findUniqueOrThrow({ where: { id: held.id } })).nextStatusCheckAt).toEqual(
        held.nextStatusCheckAt,
      );
      expect(receiver.requests).toEqual([]);
      expect(await prisma.eventDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({
        status: 'PENDING',
        attempts: 0,
      });

      // Enabled: the sweep finds the delivery (here run as if its 30 s of grace had passed), the poll the payment.
      expect((await stack.operator.post(`${merchantPath(tenant)}/enable`)).status).toBe(200);
      await stack.worker!.app.get(EventsSweeperService).sweepOutbound(new Date(Date.now() + 60_000));
      await eventually('the delivery sent', () =>
        receiver.accepted().length === 1 ? receiver.accepted() : undefined,
      ).then((accepted) => expect(accepted.map((e) => e.type)).toEqual(['consent.revoked']));
      await eventually('the held payment checked', async () => {
        const row = await prisma.payment.findUniqueOrThrow({ where: { id: held.id } });
        return row.nextStatusCheckAt?.getTime() !== held.nextStatusCheckAt?.getTime() ? true : undefined;
      });
      expect(await prisma.eventDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({
        status: 'SUCCEEDED',
        attempts: 1,
      });
    } finally {
      await receiver.stop();
    }
  });
});
