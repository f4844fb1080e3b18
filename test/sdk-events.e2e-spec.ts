import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';
import { webhookHeaders } from '#libs/crypto';
import { PrismaService } from '#libs/database';
import { UserEventStreams } from '../apps/api/src/events/user-event-streams.js';
import {
  type BffClient,
  type BffEvent,
  createBffClient,
  type EventStream,
} from '../libs/merchant-sdk/src/index.js';
import { verifyEvent, WebhookVerificationError } from '../libs/merchant-sdk/src/webhooks-entry.js';
import { createMerchant, decideAtBank, eventually, uniqueName, useReceiver, useStack } from './kit/index.js';
import { FlakyProxy } from './kit/sdk-kit.js';

/** The stream's events with their positions, until `count` have come (or 60 s passed: the stream ends). */
async function take(stream: EventStream, count: number) {
  const taken: { position: string; event: BffEvent }[] = [];
  for await (const event of stream) {
    taken.push({ position: stream.lastEventId!, event });
    if (taken.length >= count) break;
  }
  return taken;
}

/** verifyEvent's refusal of a delivery. */
function refusal(verify: () => unknown): WebhookVerificationError {
  try {
    verify();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return error as WebhookVerificationError;
  }
  throw new Error('verifyEvent accepted it');
}

/**
 * The merchant SDK's events against a real api and worker: the user's stream, resumed by itself across a
 * dropped connection and by the caller from a stored position, and webhook deliveries verified with
 * `verifyEvent` (and refused when forged, stale or unsigned).
 */
describe('merchant SDK: the user event stream and webhook verification', () => {
  // The worker relays every event of its database: this file has one of its own.
  const stack = useStack({ ownDatabase: 'sdk_events', worker: true, overrides: { LOG_LEVEL: 'silent' } });
  let prisma: PrismaService;
  let bff: BffClient;
  const receiver = useReceiver();
  let endpoint: { id: string; secret: string };
  let userId: string;
  let consentId: string;
  /** Every event of the user, in stream order, with its position. */
  let history: { position: string; event: BffEvent }[];

  beforeAll(async () => {
    prisma = stack.api.app.get(PrismaService);
    const merchant = await createMerchant(stack.api);
    bff = createBffClient({ baseUrl: stack.api.url, token: merchant.apiKey.key });
    const created = await bff.eventEndpoints.create({ url: receiver.url });
    endpoint = { id: created.endpoint.id, secret: created.secret };
    userId = (await bff.users.create({ reference: uniqueName('customer') })).id;
    const consent = await bff.consents.create(userId, {
      institutionId: 'sandbox-redirect',
      redirectUrl: 'https://app.merchant.example/banks/done',
    });
    consentId = consent.id;
    const back = await decideAtBank(
      { apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url },
      consent.authorisationUrl,
    );
    expect(back.location.searchParams.get('status')).toBe('AUTHORIZED');
    await eventually('every account synced', async () => {
      const accounts = await bff.accounts.list(userId).toArray();
      return accounts.length > 0 && accounts.every((a) => a.sync.status === 'synced') ? true : undefined;
    });
    await eventually('every event relayed', async () =>
      (await prisma.merchantEvent.count({ where: { userId, streamSeq: null } })) === 0 ? true : undefined,
    );
  });

  it('replays a user’s events in order, reconnecting by itself after Last-Event-ID when the connection drops', async () => {
    const stored = await prisma.merchantEvent.findMany({ where: { userId }, orderBy: { streamSeq: 'asc' } });
    // The first connection is cut after one message; the second resumes after it.
    const proxy = await new FlakyProxy(stack.api.url, (request, index) =>
      index === 0 ? { cutAfterMessages: 1 } : undefined,
    ).start();
    try {
      const browser = createBffClient({
        baseUrl: proxy.url,
        token: (await bff.sessions.create(userId)).token,
      });
      const stream = browser.events.stream(userId, { lastEventId: '0', signal: AbortSignal.timeout(60_000) });
      history = await take(stream, stored.length);
      expect(history.map((h) => h.event.id)).toEqual(stored.map((event) => event.id));
      expect(history.map((h) => h.position)).toEqual(stored.map((event) => String(event.streamSeq)));
      expect(history[0].event).toMatchObject({ type: 'consent.authorized', userId });
      expect(history.map((h) => h.event.type)).toContain('sync.succeeded');
      expect(proxy.records.map((r) => r.headers['last-event-id'])).toEqual(['0', history[0].position]);
    } finally {
      await proxy.stop();
    }
  });

  it('sends live events, and resumes from a stored position in a new stream', async () => {
    const stream = bff.events.stream(userId, { lastEventId: history.at(-1)!.position });
    const live = take(stream, 1);
    await bff.consents.revoke(consentId);
    const [revoked] = await live;
    expect(revoked.event).toMatchObject({ type: 'consent.revoked', data: { consentId } });
    expect(Number(revoked.position)).toBeGreaterThan(Number(history.at(-1)!.position));

    const resumed = await take(bff.events.stream(userId, { lastEventId: history.at(-1)!.position }), 1);
    expect(resumed).toEqual([revoked]);
    // A position that is not one is refused at once, not retried.
    const bad = bff.events.stream(userId, { lastEventId: 'not-a-position' });
    await expect(take(bad, 1)).rejects.toMatchObject({ name: 'BffError', code: 'VALIDATION_FAILED' });
  });

  it('stops with a typed error, not a reconnection, when the api ends the stream: its user erased', async () => {
    const erased = (await bff.users.create({ reference: uniqueName('leaving') })).id;
    const browser = createBffClient({
      baseUrl: stack.api.url,
      token: (await bff.sessions.create(erased)).token,
    });
    const streams = stack.api.app.get(UserEventStreams);
    const before = streams.size;
    const reading = take(browser.events.stream(erased, { signal: AbortSignal.timeout(60_000) }), 1);
    await eventually('the stream open at the api', () => (streams.size > before ? true : undefined));
    // Awaited from now on, so the stream's end is never an unhandled rejection while the erase runs.
    const ended = expect(reading).rejects.toMatchObject({
      name: 'BffError',
      code: 'UNAUTHENTICATED',
      status: 401,
      message: expect.stringMatching(/user of this session was erased/),
    });
    await bff.users.delete(erased);
    await ended;
  });

  it('ends the stream at once on close(), even after a garbage collection while it waited', async () => {
    const stream = bff.events.stream(userId, { lastEventId: '0' });
    const events: BffEvent[] = [];
    const following = (async () => {
      for await (const event of stream) events.push(event);
    })();
    await eventually('the replay', () => (events.length >= history.length ? true : undefined));
    // Node's fetch links signals through weak references: a collection must not cut the one that closes.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    for (let i = 0; i < 3; i += 1) {
      gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
    stream.close();
    // A stream that close() did not end stays open for ever (the server never ends it): 10 s tells the
    // two apart however loaded the machine, and an ended one is seen at once.
    let ended = false;
    void following.then(() => (ended = true));
    await eventually('the stream ended by close()', () => ended || undefined, 10_000);
  });

  it('verifies a delivery and answers its event; refuses a forged, stale or unsigned one', async () => {
    const deliveries = await eventually('the revocation delivered', () => {
      const accepted = receiver.accepted();
      return accepted.some((d) => d.type === 'consent.revoked') ? accepted : undefined;
    });
    for (const delivery of deliveries) {
      const event = verifyEvent(delivery.body, delivery.headers, endpoint.secret);
      expect(event).toEqual(JSON.parse(delivery.body));
    }
    const delivery = deliveries.find((d) => d.type === 'consent.revoked')!;
    const headers = delivery.headers as Record<string, string>;
    // Any usual form of the body and headers: bytes, a fetch Headers.
    const event = verifyEvent(new TextEncoder().encode(delivery.body), new Headers(headers), endpoint.secret);
    expect(event).toMatchObject({ type: 'consent.revoked', data: { consentId } });

    const otherSecret = `whsec_${Buffer.alloc(24, 1).toString('base64')}`;
    // One character changed, whatever it was (an id ending in 0 would otherwise stay as it was).
    const tampered = delivery.body.replace(
      consentId,
      consentId.replace(/.$/, (c) => (c === '0' ? '1' : '0')),
    );
    expect(refusal(() => verifyEvent(tampered, headers, endpoint.secret)).code).toBe('INVALID_SIGNATURE');
    expect(refusal(() => verifyEvent(delivery.body, headers, otherSecret)).code).toBe('INVALID_SIGNATURE');
    expect(verifyEvent(delivery.body, headers, [otherSecret, endpoint.secret]).id).toBe(event.id);
    const { 'webhook-signature': _, ...unsigned } = headers;
    expect(refusal(() => verifyEvent(delivery.body, unsigned, endpoint.secret)).code).toBe('MISSING_HEADERS');
    const signed = (body: string, secondsAgo: number) =>
      webhookHeaders({
        id: event.id,
        timestampSeconds: Math.floor(Date.now() / 1000) - secondsAgo,
        body,
        secrets: [endpoint.secret],
      });
    const stale = signed(delivery.body, 301);
    expect(refusal(() => verifyEvent(delivery.body, stale, endpoint.secret)).code).toBe('INVALID_TIMESTAMP');
    const notAnEvent = '{"hello":"world"}';
    const foreign = refusal(() => verifyEvent(notAnEvent, signed(notAnEvent, 0), endpoint.secret));
    expect(foreign.code).toBe('INVALID_PAYLOAD');
  });

  it('verifies a redelivery after a rotation with the old secret or the new one', async () => {
    const rotated = await bff.eventEndpoints.rotateSecret(endpoint.id);
    const delivery = (await bff.eventEndpoints.deliveries(endpoint.id).toArray()).find(
      (d) => d.eventType === 'consent.revoked',
    )!;
    const before = receiver.requests.length;
    await bff.eventEndpoints.retryDelivery(endpoint.id, delivery.id);
    const again = await eventually('the redelivery', () => receiver.requests.slice(before).at(0));
    expect(verifyEvent(again.body, again.headers, endpoint.secret).type).toBe('consent.revoked');
    expect(verifyEvent(again.body, again.headers, rotated.secret).type).toBe('consent.revoked');
  });
});
