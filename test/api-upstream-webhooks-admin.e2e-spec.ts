import { beforeAll, describe, expect, it } from 'vitest';
import { generateWebhookSecret, webhookHeaders } from '#libs/crypto';
import { DatabasePool, PrismaService, STATEMENT_TIMEOUT_MS } from '#libs/database';
import {
  REGISTRATION_LOCK_WAIT_MS,
  REGISTRATION_RETRY_AFTER_SECONDS,
  UPSTREAM_WEBHOOK_SQL,
  UpstreamWebhookRepository,
} from '#libs/domain/inbox';
import {
  ApiClient,
  captureLogger,
  createMerchant,
  createSandboxSubApplication,
  dataOf,
  eventually,
  SandboxHttp,
  type Stack,
  uniqueQueuePrefix,
  upstreamEvent,
  upstreamEventBody,
  useStack,
  WAIT,
} from './kit/index.js';

interface Registration {
  id: string;
  applicationId: string;
  merchantId: string | null;
  upstreamWebhookId: string | null;
  categories: string[];
  callbackUrl: string;
  status: string | null;
  retiredAt: string | null;
  createdAt: string;
}
interface Step {
  step: string;
  target?: string;
  outcome: string;
  detail?: string;
}

describe('api: operator routes registering our receiver with the upstream', () => {
  // The routes list and verify every registration of the database: this file has one of its own.
  const logs = captureLogger('api');
  const stack = useStack({
    ownDatabase: 'upstream_webhooks',
    overrides: { LOG_LEVEL: 'trace', QUEUE_PREFIX: uniqueQueuePrefix('uphooks') },
    loggers: { api: logs.logger },
  });
  let api: Stack['api'];
  let operator: ApiClient;
  let anonymous: ApiClient;
  let upstream: SandboxHttp;
  let repository: UpstreamWebhookRepository;
  let receiverUrl: string;
  let root: string;
  let categoryNames: string[];

  beforeAll(async () => {
    ({ api, operator, anonymous } = stack);
    upstream = new SandboxHttp(stack.sandbox.url, api.config);
    repository = api.app.get(UpstreamWebhookRepository);
    receiverUrl = `${api.url}/v1/webhooks/upstream`;
    root = api.config.upstream.applicationId;
    const categories = await upstream.call('GET', '/webhook/events/categories');
    categoryNames = (categories.body.data.categories as { name: string }[]).map((c) => c.name);
  });

  const register = async (body: Record<string, unknown>) =>
    dataOf<Registration>(await operator.post('/admin/upstream/webhooks', body), 201);
  const upstreamWebhooks = async (subApplication?: string) =>
    (await upstream.call('GET', '/webhook/events', { subApplication })).body.data.active as {
      id: string;
      callbackUrl: { main: { url: string } };
      categories: string[];
    }[];
  const subscriptions = async (subApplication?: string) =>
    (
      (await upstream.call('GET', '/notifications/event-subscriptions', { subApplication })).body.data as {
        eventTypeId: string;
      }[]
    ).map((s) => s.eventTypeId);
  const subscribe = async (eventTypeId: string, subApplication: string) => {
    const body = { eventTypeId, notification: { type: 'WEBHOOK', url: 'https://old.example/notify' } };
    const response = await upstream.call('POST', '/notifications/event-subscriptions', {
      body,
      subApplication,
    });
    expect(response.status).toBe(201);
  };
  const subMerchant = async () => {
    const subApplicationId = await createSandboxSubApplication(stack.sandbox.url, api.config);
    const { merchant } = await createMerchant(api, { subApplicationId });
    return { merchantId: merchant.id, merchantName: merchant.name, subApplicationId };
  };

  /** What `action` stored: its result and the one secret it added to those that verify. */
  async function withNewSecret<T>(action: () => Promise<T>): Promise<{ result: T; secret: string }> {
    const allSecrets = async () => [...(await repository.secretsByApplication(new Date(0))).values()].flat();
    const before = new Set(await allSecrets());
    const result = await action();
    const added = (await allSecrets()).filter((s) => !before.has(s));
    expect(added).toHaveLength(1);
    return { result, secret: added[0] };
  }

  /**
   * Emits an upstream event and waits for the first attempt of each of its deliveries: by the upstream
   * webhook it went through, and our receiver's answer (200 only if the signature verified at once; a
   * retry would hide a refusal).
   */
  async function deliveredToReceiver(applicationId = root) {
    const emitted = await upstream.admin('POST', '/webhooks/emit', {
      applicationId,
      type: 'payment.state.pending',
      data: { paymentId: 'p-1' },
    });
    expect(emitted.status).toBe(202);
    const eventId = emitted.body.data.eventId as string;
    const deliveries = await eventually('first attempts made', async () => {
      const { body } = await upstream.admin('GET', `/webhooks/deliveries?eventId=${eventId}`);
      const records = body.data as {
        target: { webhookId?: string };
        attempts: { statusCode?: number; error?: string }[];
      }[];
      return records.length > 0 && records.every((r) => r.attempts.length > 0) ? records : undefined;
    });
    const firstAttempts = deliveries.map((d) => [
      d.target.webhookId,
      d.attempts[0].statusCode ?? d.attempts[0].error,
    ]);
    return { eventId, firstAttempts };
  }

  it('registers the root application for every category, keeps the secret sealed, and the upstream signs with it', async () => {
    const { result: registration, secret } = await withNewSecret(() =>
      register({ callbackUrl: receiverUrl }),
    );
    expect(registration).toMatchObject({
      applicationId: root,
      merchantId: null,
      merchantName: null,
      upstreamWebhookId: expect.any(String),
      categories: categoryNames,
      callbackUrl: receiverUrl,
      retiredAt: null,
    });
    expect(JSON.stringify(registration)).not.toMatch(/whsec_|[sS]ecret/);

    const listed = await upstreamWebhooks();
    expect(listed.map((w) => [w.id, w.callbackUrl.main.url])).toContainEqual([
      registration.upstreamWebhookId,
      receiverUrl,
    ]);

    expect(secret).toMatch(/^whsec_/);
    const row = await api.app.get(PrismaService).upstreamWebhook.findUniqueOrThrow({
      where: { id: registration.id },
    });
    expect(row.secretCiphertext).not.toContain(secret);
    expect(row.secretCiphertext).not.toContain(secret.slice('whsec_'.length));
    expect(row.secretCiphertext.startsWith('whsec_')).toBe(false);

    // Proof that what we sealed is the upstream's secret: the receiver accepts the upstream's signature.
    const { eventId, firstAttempts } = await deliveredToReceiver();
    expect(firstAttempts).toEqual([[registration.upstreamWebhookId, 200]]);
    expect(await api.app.get(PrismaService).inboundEvent.count({ where: { eventId } })).toBe(1);
    expect(logs.text()).not.toContain(secret);
  });

  it('keeps one registration per URL however often, and however many at once, it is asked for', async () => {
    const { subApplicationId, merchantId } = await subMerchant();
    const forUrl = async () =>
      (await upstreamWebhooks(subApplicationId)).filter((w) => w.callbackUrl.main.url === receiverUrl);
    const body = { merchantId, callbackUrl: receiverUrl };
    // Registered upstream by a process that stopped before storing it: adopted, not registered again.
    const orphan = await upstream.call('POST', '/webhook/events', {
      subApplication: subApplicationId,
      body: {
        applicationId: subApplicationId,
        categories: categoryNames,
        callbackUrl: { main: { url: receiverUrl } },
      },
    });
    expect(orphan.status).toBe(201);
    const first = await register(body);
    expect(first.upstreamWebhookId).toBe(orphan.body.data.id);
    // With a secret we hold: the upstream signs with it.
    expect((await deliveredToReceiver(subApplicationId)).firstAttempts).toEqual([[orphan.body.data.id, 200]]);
    const again = await register(body);
    const together = await Promise.all([register(body), register(body)]);
    expect([again, ...together].map((r) => r.id)).toEqual([first.id, first.id, first.id]);
    expect((await forUrl()).map((w) => w.id)).toEqual([first.upstreamWebhookId]);

    // Other categories for the same URL replace the webhook upstream rather than add one.
    const narrower = await register({ ...body, categories: ['payment.state.success'] });
    expect(narrower.id).not.toBe(first.id);
    expect((await forUrl()).map((w) => [w.id, w.categories])).toEqual([
      [narrower.upstreamWebhookId, ['payment.state.success']],
    ]);
  });

  it("registers a merchant's sub-application with the header and its own applicationId; a merchant without one gets the root", async () => {
    const { merchantId, merchantName, subApplicationId } = await subMerchant();
    const registration = await register({ merchantId, categories: ['payment.state.success'] });
    expect(registration).toMatchObject({
      applicationId: subApplicationId,
      merchantId,
      merchantName,
      categories: ['payment.state.success'],
      callbackUrl: 'http://localhost:3000/v1/webhooks/upstream',
    });
    expect((await upstreamWebhooks(subApplicationId)).map((w) => w.id)).toEqual([
      registration.upstreamWebhookId,
    ]);
    expect((await upstreamWebhooks()).map((w) => w.id)).not.toContain(registration.upstreamWebhookId);

    const { merchant } = await createMerchant(api);
    const onRoot = await register({ merchantId: merchant.id, callbackUrl: receiverUrl });
    expect(onRoot).toMatchObject({ applicationId: root, merchantId: null });

    const all = dataOf<Registration[]>(await operator.get('/admin/upstream/webhooks'));
    expect(all.map((r) => r.id)).toEqual(expect.arrayContaining([onRoot.id, registration.id]));
    expect(JSON.stringify(all)).not.toMatch(/whsec_|[sS]ecret/);
  });

  it("passes the upstream's categories through", async () => {
    const categories = dataOf<{ name: string; description?: string }[]>(
      await operator.get('/admin/upstream/webhook-categories'),
    );
    const expected = await upstream.call('GET', '/webhook/events/categories');
    expect(categories).toEqual(expected.body.data.categories);
  });

  it('resets a secret: the old registration is retired, both secrets verify, and the upstream signs with the new one', async () => {
    // Other categories than the root's registration so far: a webhook of its own, which replaces that one
    // for the URL, so the event below reaches us through this webhook only, signed with secrets our
    // receiver had not loaded before the reset.
    const { result: before, secret: oldSecret } = await withNewSecret(() =>
      register({ callbackUrl: receiverUrl, categories: ['payment.state.pending'] }),
    );
    const { result: response, secret: newSecret } = await withNewSecret(() =>
      operator.post(`/admin/upstream/webhooks/${before.id}/secret`),
    );
    const after = dataOf<Registration>(response, 201);
    expect(JSON.stringify(response.body)).not.toMatch(/whsec_|[sS]ecret"/);
    expect(after).toMatchObject({ applicationId: root, callbackUrl: receiverUrl, retiredAt: null });
    expect(after.id).not.toBe(before.id);
    // The same upstream webhook, now with the new secret: it can be reset again.
    expect(after.upstreamWebhookId).toBe(before.upstreamWebhookId);

    const all = dataOf<Registration[]>(await operator.get('/admin/upstream/webhooks'));
    expect(all.find((r) => r.id === before.id)?.retiredAt).toEqual(expect.any(String));
    // Current secrets only (nothing retired after now): the new one, not the old one.
    const rootSecrets = async (retiredAfter: Date) =>
      (await repository.secretsByApplication(retiredAfter)).get(root) ?? [];
    const current = await rootSecrets(new Date(Date.now() + 60_000));
    expect(current).toContain(newSecret);
    expect(current).not.toContain(oldSecret);
    expect(await rootSecrets(new Date(0))).toEqual(expect.arrayContaining([oldSecret, newSecret]));
    // Within the grace period the retired secret still verifies.
    expect(await rootSecrets(new Date(Date.now() - 60_000))).toEqual(
      expect.arrayContaining([oldSecret, newSecret]),
    );

    expect((await deliveredToReceiver()).firstAttempts).toEqual([[after.upstreamWebhookId, 200]]);
    expect(logs.text()).not.toContain(newSecret);

    const again = await operator.post(`/admin/upstream/webhooks/${after.id}/secret`);
    expect(dataOf<Registration>(again, 201).upstreamWebhookId).toBe(before.upstreamWebhookId);

    for (const id of [before.id, '0190c0de-0000-7000-8000-000000000000', 'not-a-uuid']) {
      const missing = await operator.post(`/admin/upstream/webhooks/${id}/secret`);
      expect([missing.status, missing.body.error.code]).toEqual([404, 'NOT_FOUND']);
    }
  });

  it('verifies at once a secret another api stored just after this one refused a forgery', async () => {
    // A fresh api: the secrets it holds are those it loaded for the forgery, just before the registration.
    const receiving = await stack.startApi();
    try {
      const { merchantId, subApplicationId } = await subMerchant();
      const forgery = upstreamEvent('payment.state.pending', {});
      const body = upstreamEventBody(stack, forgery, subApplicationId);
      const forged = await new ApiClient(receiving.url).call('POST', '/v1/webhooks/upstream', {
        rawBody: body,
        headers: webhookHeaders({
          id: forgery.id,
          timestampSeconds: Math.floor(Date.now() / 1000),
          body,
          secrets: [generateWebhookSecret()],
        }),
      });
      expect([forged.status, forged.body.error.code]).toEqual([401, 'UNAUTHENTICATED']);
      const registration = await register({
        merchantId,
        callbackUrl: `${receiving.url}/v1/webhooks/upstream`,
      });
      expect((await deliveredToReceiver(subApplicationId)).firstAttempts).toEqual([
        [registration.upstreamWebhookId, 200],
      ]);
    } finally {
      await receiving.close();
    }
  });

  it('migrates from the notification API: deletes the subscriptions and registers; a second run skips', async () => {
    const { merchantId, subApplicationId } = await subMerchant();
    await subscribe('payment.status.completed', subApplicationId);
    await subscribe('payment.status', subApplicationId);

    const first = dataOf<{ applicationId: string; steps: Step[]; registration: Registration }>(
      await operator.post('/admin/upstream/webhooks/migrate', { merchantId }),
    );
    expect(first.applicationId).toBe(subApplicationId);
    expect(first.steps.map((s) => [s.step, s.target, s.outcome])).toEqual([
      ['list-subscriptions', undefined, 'done'],
      ['delete-subscription', 'payment.status.completed', 'done'],
      ['delete-subscription', 'payment.status', 'done'],
      ['list-categories', undefined, 'done'],
      ['register', 'http://localhost:3000/v1/webhooks/upstream', 'done'],
    ]);
    expect(first.registration).toMatchObject({ applicationId: subApplicationId, merchantId });
    expect(await subscriptions(subApplicationId)).toEqual([]);
    expect((await upstreamWebhooks(subApplicationId)).map((w) => w.id)).toEqual([
      first.registration.upstreamWebhookId,
    ]);

    const second = dataOf<{ steps: Step[]; registration: Registration }>(
      await operator.post('/admin/upstream/webhooks/migrate', { merchantId }),
    );
    expect(second.steps.map((s) => [s.step, s.outcome])).toEqual([
      ['list-subscriptions', 'done'],
      ['list-categories', 'done'],
      ['register', 'skipped'],
    ]);
    expect(second.registration.id).toBe(first.registration.id);
    expect(await upstreamWebhooks(subApplicationId)).toHaveLength(1);
  });

  it('stops a migration at a failed step with the usual error and the steps so far, and resumes on the next run', async () => {
    const { merchantId, subApplicationId } = await subMerchant();
    await subscribe('payment.status.completed', subApplicationId);
    await subscribe('payment.isoStatus', subApplicationId);
    const fault = (path: string, status: number) =>
      upstream.admin('POST', '/faults', { method: 'DELETE', path, status, count: 1 });
    // The first is gone already when deleted (someone else's run); the second is refused.
    await fault('/notifications/event-subscriptions/payment.status.completed', 404);
    await fault('/notifications/event-subscriptions/payment.isoStatus', 400);
    try {
      const failed = await operator.post('/admin/upstream/webhooks/migrate', { merchantId });
      expect([failed.status, failed.body.error.code]).toEqual([503, 'UPSTREAM_UNAVAILABLE']);
      expect(failed.body.error.message).toContain('delete-subscription');
      const details = failed.body.error.details as { field: string; issue: string }[];
      expect(details.map((d) => d.field)).toEqual(['steps[0]', 'steps[1]', 'steps[2]']);
      expect(details[1].issue).toBe(
        'delete-subscription payment.status.completed: skipped (already deleted)',
      );
      expect(details[2].issue).toMatch(/^delete-subscription payment.isoStatus: failed/);
      expect(await upstreamWebhooks(subApplicationId)).toEqual([]);
    } finally {
      await upstream.admin('DELETE', '/faults');
    }

    const resumed = dataOf<{ steps: Step[] }>(
      await operator.post('/admin/upstream/webhooks/migrate', { merchantId, callbackUrl: receiverUrl }),
    );
    expect(resumed.steps.filter((s) => s.step !== 'list-subscriptions').map((s) => s.outcome)).toEqual([
      'done',
      'done',
      'done',
      'done',
    ]);
    expect(await subscriptions(subApplicationId)).toEqual([]);
    expect(await upstreamWebhooks(subApplicationId)).toHaveLength(1);
  });

  /**
   * `during` run while this test holds the application's registration lock, as a registration under way
   * on another process would: its result once the lock is released.
   */
  const whileRegistering = <T>(applicationId: string, during: () => Promise<T>) =>
    api.app.get(DatabasePool).transaction(async (db) => {
      await db.query(UPSTREAM_WEBHOOK_SQL.registrationLock.text, [applicationId]);
      return during();
    });
  /** Registrations of this database waiting for a registration lock (advisory: no other lock is taken). */
  const waitingForTheLock = async () =>
    (
      await api.app.get(DatabasePool).rows<{ n: number }>({
        text: `SELECT count(*)::int AS n FROM pg_locks
          WHERE locktype = 'advisory' AND NOT granted
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        values: [],
      })
    )[0].n;

  it('answers 503 with Retry-After when another registration holds the application past the wait, not 500', async () => {
    // The wait is the one in force only while it is under the pool's statement bound.
    expect(REGISTRATION_LOCK_WAIT_MS).toBeLessThan(STATEMENT_TIMEOUT_MS);
    const { merchantId, subApplicationId } = await subMerchant();
    const body = { merchantId, callbackUrl: receiverUrl, categories: categoryNames };
    const started = Date.now();
    const refused = await whileRegistering(subApplicationId, () =>
      operator.post('/admin/upstream/webhooks', body),
    );
    const waited = Date.now() - started;
    expect([refused.status, refused.body.error.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    expect(refused.body.error.message).toMatch(/^Another registration for application .* is still under way/);
    expect(refused.headers.get('retry-after')).toBe(String(REGISTRATION_RETRY_AFTER_SECONDS));
    expect(refused.body.error.retryAfterSeconds).toBe(REGISTRATION_RETRY_AFTER_SECONDS);
    expect(waited).toBeGreaterThanOrEqual(REGISTRATION_LOCK_WAIT_MS);
    expect(waited).toBeLessThan(STATEMENT_TIMEOUT_MS);
    // Nothing of it was kept; once the lock is free the same request registers.
    expect(await upstreamWebhooks(subApplicationId)).toEqual([]);
    expect((await operator.post('/admin/upstream/webhooks', body)).status).toBe(201);
  }, 60_000);

  it('registers with every pooled connection taken by registrations waiting for the lock', async () => {
    // Two connections: the two registrations below hold both while they wait for the lock.
    const small = await stack.startApi({ DATABASE_POOL_MAX: '2' });
    try {
      const client = new ApiClient(small.url, small.config.api.adminToken);
      const { merchantId, subApplicationId } = await subMerchant();
      const body = { merchantId, callbackUrl: receiverUrl, categories: categoryNames };
      const answers = await whileRegistering(subApplicationId, async () => {
        const both = [
          client.post('/admin/upstream/webhooks', body),
          client.post('/admin/upstream/webhooks', body),
        ];
        await eventually(
          'both registrations waiting for the lock',
          async () => ((await waitingForTheLock()) === 2 ? true : undefined),
          WAIT.step,
        );
        return both;
      });
      // The first to get the lock needs no third connection to finish; the second then finds its webhook.
      const [first, second] = await Promise.all(answers);
      expect([first.status, second.status], JSON.stringify([first.body, second.body])).toEqual([201, 201]);
      expect(second.body.data.id).toBe(first.body.data.id);
      expect((await upstreamWebhooks(subApplicationId)).map((w) => w.id)).toEqual([
        first.body.data.upstreamWebhookId,
      ]);
    } finally {
      await small.close();
    }
  });

  it('answers 401 without the operator token, and 403 to a merchant key', async () => {
    const { apiKey } = await createMerchant(api);
    const routes: [string, string][] = [
      ['POST', '/admin/upstream/webhooks'],
      ['GET', '/admin/upstream/webhooks'],
      ['POST', '/admin/upstream/webhooks/0190c0de-0000-7000-8000-000000000000/secret'],
      ['GET', '/admin/upstream/webhook-categories'],
      ['POST', '/admin/upstream/webhooks/migrate'],
    ];
    for (const [method, path] of routes) {
      const body = method === 'POST' ? {} : undefined;
      const unauthenticated = await anonymous.call(method, path, { body });
      expect([path, unauthenticated.status, unauthenticated.body.error.code]).toEqual([
        path,
        401,
        'UNAUTHENTICATED',
      ]);
      const merchant = await anonymous.as(apiKey.key).call(method, path, { body });
      expect([path, merchant.status]).toEqual([path, 403]);
    }
  });

  it('refuses bad bodies with 400 VALIDATION_FAILED, and an unknown merchant with 404', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ categories: 'payment.state.success' }, 'categories'],
      [{ categories: [] }, 'categories'],
      [{ categories: [42] }, 'categories'],
      [{ callbackUrl: 'not a url' }, 'callbackUrl'],
      [{ callbackUrl: 'ftp://files.example/hooks' }, 'callbackUrl'],
      [{ merchantId: 'merchant-1' }, 'merchantId'],
      [{ surprise: true }, 'surprise'],
    ];
    for (const path of ['/admin/upstream/webhooks', '/admin/upstream/webhooks/migrate']) {
      for (const [body, field] of bad) {
        const response = await operator.post(path, body);
        expect([path, response.status, response.body.error.code]).toEqual([path, 400, 'VALIDATION_FAILED']);
        expect(response.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
      }
      const unknown = await operator.post(path, { merchantId: '0190c0de-0000-7000-8000-000000000000' });
      expect([path, unknown.status, unknown.body.error.code]).toEqual([path, 404, 'NOT_FOUND']);
    }

    // A category the upstream does not offer is the operator's mistake too.
    const refused = await operator.post('/admin/upstream/webhooks', { categories: ['no.such.category'] });
    expect([refused.status, refused.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(refused.body.error.details).toEqual([{ field: 'categories[0]', issue: expect.any(String) }]);
  });
});
