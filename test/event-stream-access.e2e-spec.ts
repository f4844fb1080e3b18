import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { MerchantEventRepository, UserEventsService } from '#libs/domain/events';
import {
  eventually,
  merchantCallerOf,
  onboard,
  sessionToken,
  spawnApi,
  type Tenant,
  tuned,
  useStack,
  WAIT,
} from './kit/index.js';
import { SseClient } from './kit/sse-client.js';

/**
 * Access ends everywhere at once, open streams included: streams opened on one api process with an API
 * key, with user sessions and with a merchant's key and session end, with an SSE `error` event naming the
 * reason, when the key is revoked, the user erased, the session expires or the merchant is disabled on
 * the other process. The streams' heartbeat is longer than the test, so it is the revocation broadcast (or
 * the expiry timer) that ends them.
 */
describe('event streams: access ends everywhere at once', () => {
  // The worker relays the events recorded here: a database of its own.
  const stack = useStack({ ownDatabase: 'stream_access', worker: true });
  let second: Awaited<ReturnType<typeof spawnApi>>;
  const streams: SseClient[] = [];

  beforeAll(async () => {
    second = await spawnApi({
      DATABASE_URL: stack.databaseUrl,
      QUEUE_PREFIX: stack.api.config.redis.queuePrefix,
      UPSTREAM_BASE_URL: stack.sandbox.url,
      // Longer than any wait here: what ends a stream is the revocation or the expiry, not a heartbeat.
      ...tuned({ sseHeartbeatSeconds: 120 }),
    });
  });
  afterAll(async () => {
    for (const stream of streams) stream.close();
    await second?.stop();
  });

  const session = (tenant: Tenant, seconds?: number) =>
    sessionToken(
      stack.api.config,
      { merchantId: tenant.merchant.merchant.id, userId: tenant.userId },
      seconds,
    );

  /** A stream of the tenant's user, on the second api process. */
  async function follow(tenant: Tenant, token: string | { cookie: string }): Promise<SseClient> {
    const stream = await SseClient.open(`${second.url}/v1/users/${tenant.userId}/events`, token);
    streams.push(stream);
    await stream.waitForComment('connected');
    return stream;
  }

  /** The stream ends by itself, its last message the error its next request would get. */
  async function endsWith(stream: SseClient, code: string, reason: RegExp, within: number = WAIT.streamEnd) {
    await eventually(
      'the stream ended by the server',
      () => (stream.closedByServer ? true : undefined),
      within,
    );
    const last = stream.messages[stream.messages.length - 1];
    expect(last?.event).toBe('error');
    const { error } = JSON.parse(last.data) as { error: { code: string; message: string; status: number } };
    expect(error.code).toBe(code);
    expect(error.message).toMatch(reason);
  }

  it('ends a stream when its API key is revoked, and its user session streams when the user is erased', async () => {
    const keyed = await onboard(stack);
    const erased = await onboard(stack);
    const byKey = await follow(keyed, keyed.merchant.apiKey.key);
    const bySession = await follow(erased, session(erased));
    const byKeyOfErased = await follow(erased, erased.merchant.apiKey.key);

    const { merchant, apiKey } = keyed.merchant;
    expect(
      (await stack.operator.delete(`/admin/merchants/${merchant.id}/api-keys/${apiKey.id}`)).status,
    ).toBe(204);
    expect((await erased.client.delete(`/v1/users/${erased.userId}`)).status).toBe(204);

    await endsWith(byKey, 'UNAUTHENTICATED', /API key was revoked/);
    await endsWith(bySession, 'UNAUTHENTICATED', /user of this session was erased/);
    await endsWith(byKeyOfErased, 'NOT_FOUND', /erased/);
  });

  it("ends a console session's stream when the key it was made from is revoked", async () => {
    const tenant = await onboard(stack);
    const signIn = await fetch(`${stack.api.url}/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey: tenant.merchant.apiKey.key }),
    });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0];
    const byCookie = await follow(tenant, { cookie });

    const { merchant, apiKey } = tenant.merchant;
    expect(
      (await stack.operator.delete(`/admin/merchants/${merchant.id}/api-keys/${apiKey.id}`)).status,
    ).toBe(204);
    await endsWith(byCookie, 'UNAUTHENTICATED', /API key was revoked/);
  });

  it('ends a console session on every process when it signs out: copies of the cookie, and its stream', async () => {
    const tenant = await onboard(stack);
    const signIn = (body: Record<string, string>) =>
      fetch(`${stack.api.url}/console/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const merchantCookie = (await signIn({ apiKey: tenant.merchant.apiKey.key })).headers
      .get('set-cookie')!
      .split(';')[0];
    const operatorCookie = (await signIn({ operatorToken: stack.api.config.api.adminToken })).headers
      .get('set-cookie')!
      .split(';')[0];
    const status = async (url: string, path: string, cookie: string) =>
      (await fetch(`${url}${path}`, { headers: { cookie } })).status;
    const everywhere = async (path: string, cookie: string) => [
      await status(stack.api.url, path, cookie),
      await status(second.url, path, cookie),
    ];
    expect(await everywhere('/v1/me', merchantCookie)).toEqual([200, 200]);
    expect(await everywhere('/admin/merchants', operatorCookie)).toEqual([200, 200]);
    const byCookie = await follow(tenant, { cookie: merchantCookie });

    // A copy of each cookie was taken above; the browser signs out on the first process.
    for (const cookie of [merchantCookie, operatorCookie]) {
      const signedOut = await fetch(`${stack.api.url}/console/session`, {
        method: 'DELETE',
        headers: { cookie },
      });
      expect(signedOut.status).toBe(204);
    }
    await endsWith(byCookie, 'UNAUTHENTICATED', /console session has ended/);
    // At once on the process signed out on; within the revocation's bound on the other.
    expect(await status(stack.api.url, '/v1/me', merchantCookie)).toBe(401);
    expect(await status(stack.api.url, '/admin/merchants', operatorCookie)).toBe(401);
    await eventually(
      'the copies refused on the other process',
      async () =>
        (await status(second.url, '/v1/me', merchantCookie)) === 401 &&
        (await status(second.url, '/admin/merchants', operatorCookie)) === 401
          ? true
          : undefined,
      WAIT.revocation,
    );
    // The credentials themselves are untouched: only the sessions ended.
    expect((await tenant.client.get('/v1/me')).status).toBe(200);
    expect((await signIn({ apiKey: tenant.merchant.apiKey.key })).status).toBe(200);
  });

  it('ends a stream when its session expires', async () => {
    const tenant = await onboard(stack);
    // Long enough to be opened on a loaded machine before it expires (its expiry is whole seconds).
    const ttlSeconds = 10;
    const expiring = await follow(tenant, session(tenant, ttlSeconds));
    const lasting = await follow(tenant, session(tenant));
    await endsWith(
      expiring,
      'UNAUTHENTICATED',
      /session token has expired/,
      ttlSeconds * 1000 + WAIT.streamEnd,
    );
    expect(lasting.closedByServer).toBe(false);
  });

  it('ends every stream of a disabled merchant, and reads nothing for it after', async () => {
    const tenant = await onboard(stack);
    const bystander = await onboard(stack);
    const byKey = await follow(tenant, tenant.merchant.apiKey.key);
    const bySession = await follow(tenant, session(tenant));
    const unrelated = await follow(bystander, session(bystander));

    const disabled = await stack.operator.post(`/admin/merchants/${tenant.merchant.merchant.id}/disable`, {});
    expect(disabled.status).toBe(200);
    await endsWith(byKey, 'MERCHANT_DISABLED', /merchant is disabled/);
    await endsWith(bySession, 'MERCHANT_DISABLED', /merchant is disabled/);
    expect(unrelated.closedByServer).toBe(false);

    // An event recorded (and relayed) after the disabling is never read for the merchant's callers: the
    // read that would send it is refused in the same statement. The bystander's is read.
    const prisma = stack.api.app.get(PrismaService);
    const events = stack.api.app.get(MerchantEventRepository);
    await prisma.$transaction((tx) =>
      events.recordInTransaction(
        tx,
        [tenant, bystander].map((t) => ({
          merchantId: t.merchant.merchant.id,
          userId: t.userId,
          type: 'sync.succeeded' as const,
          data: {},
        })),
      ),
    );
    await eventually('both events relayed', async () =>
      (await prisma.merchantEvent.count({ where: { streamSeq: null } })) === 0 ? true : undefined,
    );
    const service = stack.api.app.get(UserEventsService);
    const refused = await service.after(merchantCallerOf(tenant), tenant.userId, '0');
    expect([refused.events, refused.refusal?.code]).toEqual([[], 'MERCHANT_DISABLED']);
    const read = await service.after(merchantCallerOf(bystander), bystander.userId, '0');
    expect([read.events.map((e) => e.event.type), read.refusal]).toEqual([['sync.succeeded'], undefined]);
    await unrelated.waitFor(1);
    expect(unrelated.closedByServer).toBe(false);
  });
});
