import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { webhookHeaders } from '#libs/crypto';
import { PrismaService } from '#libs/database';
import { EventsSweeperService } from '#libs/domain/events';
import {
  createConsentRow,
  EventReceiver,
  eventually,
  postUpstreamEvent,
  registeredSecret,
  sessionToken,
  spawnApi,
  stackProcessEnv,
  type Tenant,
  testRandom,
  tuned,
  uniqueName,
  unsignedWebhookError,
  upstreamEvent,
  upstreamEventBody,
  useStack,
  useTenant,
  WAIT,
} from './kit/index.js';
import { SseClient } from './kit/sse-client.js';

describe('events: the signed receiver, the inbox, fan-out, deliveries and live streams', () => {
  // The worker relays and sweeps every event of its database: this file has one of its own.
  const stack = useStack({
    ownDatabase: 'events',
    worker: true,
    overrides: {
      ...tuned({ eventsSweepEverySeconds: 1, eventDeliveryBackoffSeconds: 1, sseHeartbeatSeconds: 1 }),
    },
  });
  const tenant = useTenant(stack);
  const other = useTenant(stack);
  let secret: string;
  let prisma: PrismaService;

  beforeAll(async () => {
    prisma = stack.api.app.get(PrismaService);
    secret = await registeredSecret(stack);
  });

  /** An authorised consent of the tenant's user, straight in the database: its upstream id. */
  async function consentOf(t: Tenant = tenant) {
    return createConsentRow(prisma, { id: t.userId, merchantId: t.merchant.merchant.id });
  }

  /** The bank's signed event that it moved a consent of ours to `state`. */
  const bankMoved = (consent: { upstreamConsentId: string }, state: 'revoked' | 'expired') =>
    postUpstreamEvent(
      stack,
      upstreamEvent(`consent.state.${state}`, { consentId: consent.upstreamConsentId }),
      secret,
    );

  /** Waits until every event so far is relayed, so a new endpoint only receives what follows. */
  async function endpoint(t: Tenant, receiver: EventReceiver, types: string[] = []) {
    await eventually('outbox relayed', async () =>
      (await prisma.merchantEvent.count({ where: { streamSeq: null } })) === 0 ? true : undefined,
    );
    const response = await t.client.post('/v1/event-endpoints', { url: receiver.url, types });
    expect(response.status).toBe(201);
    return response.body.data as { endpoint: { id: string }; secret: string };
  }

  /**
   * The endpoint's latest delivery once the worker has recorded how it ended (not PENDING): an endpoint's
   * answer reaches the receiver before the worker that sent the request has written it down.
   */
  const deliveryOutcome = (t: Tenant, endpointId: string) =>
    eventually(
      'the delivery’s outcome recorded',
      async () => {
        const log = await t.client.get(`/v1/event-endpoints/${endpointId}/deliveries`);
        expect(log.status).toBe(200);
        const [latest] = log.body.data as ({ id: string; status: string } & Record<string, unknown>)[];
        return latest && latest.status !== 'PENDING' ? latest : undefined;
      },
      WAIT.step,
    );

  it('refuses unsigned, forged, tampered, stale, future-dated and oversized webhooks, storing nothing', async () => {
    const tolerance = stack.api.config.tuning.webhookToleranceSeconds;
    const event = upstreamEvent('consent.state.revoked', { consentId: 'nothing-of-ours' });
    const refused = [
      await postUpstreamEvent(stack, event, secret, { unsigned: true }),
      await postUpstreamEvent(stack, event, 'whsec_' + Buffer.alloc(24, 7).toString('base64')),
      await postUpstreamEvent(stack, event, secret, {
        body: upstreamEventBody(stack, { ...event, type: 'x' }),
      }),
      // A minute past the tolerance either way: a request slowed by a loaded machine stays outside it.
      await postUpstreamEvent(stack, event, secret, { timestampOffset: -(tolerance + 60) }),
      await postUpstreamEvent(stack, event, secret, { timestampOffset: tolerance + 60 }),
    ];
    expect(refused.map((r) => [r.status, r.body.error.code])).toEqual(
      Array(5).fill([401, 'UNAUTHENTICATED']),
    );
    expect(refused[3].body.error.message).toContain('too old');

    const big = upstreamEvent('payment.state.success', { blob: 'x'.repeat(300 * 1024) });
    const tooLarge = await postUpstreamEvent(stack, big, secret);
    expect([tooLarge.status, tooLarge.body.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);

    const notAnObject = await postUpstreamEvent(stack, event, secret, { signedBody: '[1,2]' });
    expect([notAnObject.status, notAnObject.body.error.details]).toEqual([
      400,
      [{ field: 'body', issue: 'is not a JSON object' }],
    ]);
    expect(await prisma.inboundEvent.count({ where: { eventId: { in: [event.id, big.id] } } })).toBe(0);
  });

  it('refuses, 401, the right signature in any other encoding than the canonical one (as the official package does)', async () => {
    const event = upstreamEvent('consent.state.revoked', { consentId: 'nothing-of-ours' });
    const valueOf = (header: string) => header.slice('v1,'.length);
    const url = (v: string) => v.replace(/\+/g, '-').replace(/\//g, '_');
    const reencodings: Record<string, (header: string) => string> = {
      unpadded: (h) => `v1,${valueOf(h).replace(/=+$/, '')}`,
      base64url: (h) => `v1,${url(valueOf(h))}`,
      'base64url, unpadded': (h) => `v1,${url(valueOf(h)).replace(/=+$/, '')}`,
      'trailing junk': (h) => `${h}AA`,
      'extra padding': (h) => `${h}==`,
      'space after the comma': (h) => `v1, ${valueOf(h)}`,
      'version V1': (h) => `V1,${valueOf(h)}`,
      'version v2': (h) => `v2,${valueOf(h)}`,
      hex: (h) => `v1,${Buffer.from(valueOf(h), 'base64').toString('hex')}`,
    };
    const at = Math.floor(Date.now() / 1000);
    for (const [name, reencode] of Object.entries(reencodings)) {
      // A re-encoding that leaves a signature as it was (base64url of one with no '+' or '/') proves
      // nothing: the event id is chosen so that this one changes it.
      // The body is made once and that very body sent: it carries a createdAt, so making it again could
      // give another signature, one the re-encoding leaves as it was.
      let once = event;
      let body = '';
      for (let n = 0; ; n++) {
        once = { ...event, id: `${event.id}-${name.replace(/\W+/g, '-')}-${n}` };
        body = upstreamEventBody(stack, once);
        const canonical = webhookHeaders({ id: once.id, timestampSeconds: at, body, secrets: [secret] })[
          'webhook-signature'
        ];
        if (reencode(canonical) !== canonical) break;
      }
      const answer = await postUpstreamEvent(stack, once, secret, {
        signedBody: body,
        signature: reencode,
        timestampSeconds: at,
      });
      expect({ name, status: answer.status, body: answer.body }).toEqual({
        name,
        status: 401,
        body: { error: unsignedWebhookError() },
      });
    }
    expect(await prisma.inboundEvent.count({ where: { eventId: { startsWith: event.id } } })).toBe(0);
    // The canonical signature of the same event passes.
    expect((await postUpstreamEvent(stack, event, secret)).status).toBe(200);
  });

  it('refuses, 400, a signed event Postgres cannot store, without failing the events stored with it', async () => {
    const good = Array.from({ length: 10 }, () => upstreamEvent('payment.state.pending', { paymentId: 'p' }));
    const bad = upstreamEvent('payment.state.pending', { note: 'nul' });
    // JSON.stringify writes the NUL as \u0000: valid JSON, which Postgres' jsonb refuses.
    const badBody = upstreamEventBody(stack, { ...bad, data: { note: 'a\u0000b' } });
    const answers = await Promise.all([
      ...good.map((e) => postUpstreamEvent(stack, e, secret)),
      postUpstreamEvent(stack, bad, secret, { signedBody: badBody }),
    ]);
    expect(answers.slice(0, 10).map((a) => a.status)).toEqual(Array(10).fill(200));
    expect([answers[10].status, answers[10].body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(answers[10].body.error.message).toContain('cannot be stored');
    expect(await prisma.inboundEvent.count({ where: { eventId: { in: good.map((e) => e.id) } } })).toBe(10);
  });

  it('stores a verified event once, answers a redelivery 200 without change, and fans it out once', async () => {
    const consent = await consentOf();
    const event = upstreamEvent('consent.state.revoked', { consentId: consent.upstreamConsentId });
    const first = await postUpstreamEvent(stack, event, secret);
    const again = await postUpstreamEvent(stack, event, secret);
    expect([first.status, first.body.data]).toEqual([200, { eventId: event.id, duplicate: false }]);
    expect([again.status, again.body.data]).toEqual([200, { eventId: event.id, duplicate: true }]);

    const row = await eventually('fanned out', async () => {
      const r = await prisma.inboundEvent.findFirstOrThrow({ where: { eventId: event.id } });
      return r.status === 'PROCESSED' ? r : undefined;
    });
    expect(row).toMatchObject({ outcome: 'applied', merchantId: tenant.merchant.merchant.id });
    const after = await prisma.consent.findUniqueOrThrow({ where: { id: consent.id } });
    expect(after).toMatchObject({ status: 'REVOKED', lastErrorCode: 'CONSENT_REVOKED' });
    const events = await prisma.merchantEvent.findMany({
      where: { merchantId: tenant.merchant.merchant.id },
    });
    expect(events.filter((e) => (e.data as { consentId: string }).consentId === consent.id)).toHaveLength(1);
  });

  it('judges a webhook by its signature and content, whatever content type labels it', async () => {
    const types = [
      'text/plain',
      'text/plain; charset=utf-8',
      'application/cloudevents+json',
      'application/octet-stream',
    ];
    for (const contentType of types) {
      const consent = await consentOf();
      const event = upstreamEvent('consent.state.revoked', { consentId: consent.upstreamConsentId });
      const answer = await postUpstreamEvent(stack, event, secret, { contentType });
      expect([contentType, answer.status, answer.body.data]).toEqual([
        contentType,
        200,
        { eventId: event.id, duplicate: false },
      ]);
      // Labelled JSON or not, a forgery is refused for its signature and a signed non-JSON body for its content.
      const forged = await postUpstreamEvent(stack, upstreamEvent('consent.state.revoked', {}), secret, {
        contentType,
        // One character of the signature changed (to another: a random signature may start with A).
        signature: (signed) => signed.replace(/,(.)/, (_, c: string) => `,${c === 'A' ? 'B' : 'A'}`),
      });
      expect([contentType, forged.status, forged.body.error.code]).toEqual([
        contentType,
        401,
        'UNAUTHENTICATED',
      ]);
      const notJson = await postUpstreamEvent(stack, upstreamEvent('consent.state.revoked', {}), secret, {
        contentType,
        signedBody: 'revoked',
      });
      expect([contentType, notJson.status, notJson.body.error.message]).toEqual([
        contentType,
        400,
        'The webhook body is not JSON.',
      ]);
    }
  });

  it('R4: of 1,000 mixed deliveries, accepts no bad one and fans out every good one exactly once', async () => {
    const consents = await Promise.all(Array.from({ length: 20 }, () => consentOf()));
    // 400 good events: two revocations per consent (the bank may announce it twice, under two ids: the
    // second finds it revoked, unchanged) and 360 of a type we do not act on; then their 100 redeliveries
    // and 500 bad ones.
    const good = [
      ...consents.flatMap((c) => [
        upstreamEvent('consent.state.revoked', { consentId: c.upstreamConsentId }),
        upstreamEvent('consent.state.revoked', { consentId: c.upstreamConsentId }),
      ]),
      ...Array.from({ length: 360 }, (_, i) =>
        upstreamEvent('payment.state.pending', { paymentId: `p-${i}` }),
      ),
    ];
    const bad: (() => Promise<{ status: number }>)[] = [];
    for (let i = 0; i < 100; i++) {
      const e = upstreamEvent('consent.state.revoked', { consentId: consents[i % 20].upstreamConsentId });
      bad.push(
        () => postUpstreamEvent(stack, e, 'whsec_' + Buffer.alloc(24, i).toString('base64')),
        () => postUpstreamEvent(stack, e, secret, { body: upstreamEventBody(stack, { ...e, id: 'other' }) }),
        () => postUpstreamEvent(stack, e, secret, { timestampOffset: -3600 }),
        () => postUpstreamEvent(stack, e, secret, { unsigned: true }),
        () => postUpstreamEvent(stack, { ...e, id: `${e.id}-replayed` }, secret, { timestampOffset: 900 }),
      );
    }
    const calls = testRandom().shuffle([
      ...good.map((e) => () => postUpstreamEvent(stack, e, secret)),
      ...good.slice(0, 100).map((e) => () => postUpstreamEvent(stack, e, secret)),
      ...bad,
    ]);
    const statuses: number[] = [];
    for (let i = 0; i < calls.length; i += 50) {
      statuses.push(...(await Promise.all(calls.slice(i, i + 50).map((c) => c()))).map((r) => r.status));
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(500);
    expect(statuses.filter((s) => s === 401)).toHaveLength(500);

    const ids = good.map((e) => e.id);
    await eventually('every good event processed', async () =>
      (await prisma.inboundEvent.count({ where: { eventId: { in: ids }, status: 'PROCESSED' } })) === 400
        ? true
        : undefined,
    );
    expect(await prisma.inboundEvent.count({ where: { eventId: { in: ids } } })).toBe(400);
    const outcomes = await prisma.inboundEvent.groupBy({
      by: ['outcome'],
      where: { eventId: { in: ids } },
      _count: true,
    });
    expect(Object.fromEntries(outcomes.map((o) => [o.outcome, o._count]))).toEqual({
      applied: 20,
      unchanged: 20,
      ignored: 360,
    });
    const revoked = await prisma.merchantEvent.findMany({
      where: { merchantId: tenant.merchant.merchant.id, type: 'CONSENT_REVOKED' },
    });
    for (const consent of consents) {
      expect(revoked.filter((e) => (e.data as { consentId: string }).consentId === consent.id)).toHaveLength(
        1,
      );
      expect((await prisma.consent.findUniqueOrThrow({ where: { id: consent.id } })).status).toBe('REVOKED');
    }
  });

  it('delivers to an endpoint that fails three times, with the same event id and a signature the official library verifies', async () => {
    const receiver = await new EventReceiver([500, 500, 500]).start();
    try {
      const { endpoint: created, secret: endpointSecret } = await endpoint(tenant, receiver, [
        'consent.revoked',
      ]);
      const consent = await consentOf();
      await bankMoved(consent, 'revoked');

      const [delivered] = await eventually('delivered after three failures', () =>
        receiver.accepted().length > 0 ? receiver.accepted() : undefined,
      );
      expect(receiver.requests.map((r) => r.status)).toEqual([500, 500, 500, 200]);
      expect(new Set(receiver.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([delivered.id]));
      expect(new Set(receiver.requests.map((r) => r.body)).size).toBe(1);
      const headers = delivered.headers as Record<string, string>;
      expect(new Webhook(endpointSecret).verify(delivered.body, headers)).toMatchObject({
        id: delivered.id,
        type: 'consent.revoked',
        userId: tenant.userId,
        data: { consentId: consent.id, status: 'REVOKED', reason: 'CONSENT_REVOKED' },
      });

      // The endpoint has answered; the worker records that answer after it (the endpoint first).
      const recorded = await deliveryOutcome(tenant, created.id);
      expect(recorded).toMatchObject({
        eventId: delivered.id,
        eventType: 'consent.revoked',
        status: 'SUCCEEDED',
        attempts: 4,
        lastResponseStatus: 200,
        nextAttemptAt: null,
      });
      const view = await tenant.client.get(`/v1/event-endpoints/${created.id}`);
      expect(view.body.data).toMatchObject({ failingSince: null, disabledAt: null });

      // Sent again on request: the same event, the same id.
      const retried = await tenant.client.post(
        `/v1/event-endpoints/${created.id}/deliveries/${recorded.id}/retry`,
      );
      expect(retried.status).toBe(202);
      await eventually('sent again', () => (receiver.accepted().length === 2 ? true : undefined));
      expect(receiver.accepted()[1].body).toBe(delivered.body);
    } finally {
      await receiver.stop();
    }
  });

  it('signs with both secrets for a day after a rotation, and only sends the subscribed types', async () => {
    const receiver = await new EventReceiver().start();
    try {
      const { endpoint: created, secret: before } = await endpoint(tenant, receiver, ['consent.expired']);
      const rotated = await tenant.client.post(`/v1/event-endpoints/${created.id}/secret`);
      expect(rotated.status).toBe(201);
      const after = rotated.body.data.secret as string;
      expect(after).not.toBe(before);
      expect(Date.parse(rotated.body.data.endpoint.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(
        23 * 3600_000,
      );

      const [revokedOne, expiredOne] = [await consentOf(), await consentOf()];
      await bankMoved(revokedOne, 'revoked');
      await bankMoved(expiredOne, 'expired');
      const [delivered] = await eventually('the expiry delivered', () =>
        receiver.accepted().length > 0 ? receiver.accepted() : undefined,
      );
      expect(delivered.type).toBe('consent.expired');
      const headers = delivered.headers as Record<string, string>;
      expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
      expect(() => new Webhook(before).verify(delivered.body, headers)).not.toThrow();
      expect(() => new Webhook(after).verify(delivered.body, headers)).not.toThrow();
      // The revocation (not subscribed) never came; nothing else is pending for this endpoint. Read once the
      // revocation is relayed (its deliveries made): before, its absence from the log would prove nothing.
      await eventually('the revocation relayed', async () => {
        const revocation = await prisma.merchantEvent.findFirst({
          where: { type: 'CONSENT_REVOKED', data: { path: ['consentId'], equals: revokedOne.id } },
        });
        return revocation?.streamSeq != null ? true : undefined;
      });
      const log = await tenant.client.get(`/v1/event-endpoints/${created.id}/deliveries`);
      expect(log.body.data.map((d: { eventType: string }) => d.eventType)).toEqual(['consent.expired']);
    } finally {
      await receiver.stop();
    }
  });

  it('streams a user’s events live and resumes after Last-Event-ID with every missed event, once', async () => {
    const token = sessionToken(stack.api.config, {
      merchantId: tenant.merchant.merchant.id,
      userId: tenant.userId,
    });
    const url = `${stack.api.url}/v1/users/${tenant.userId}/events`;
    const first = await SseClient.open(url, token);
    // One revocation recorded before the next is sent: the stream's order is the order of the commits,
    // and two webhooks accepted back to back may be processed (and committed) either way round.
    const revoke = async () => {
      const c = await consentOf();
      await bankMoved(c, 'revoked');
      await eventually('the revocation recorded', async () =>
        (await prisma.merchantEvent.count({
          where: { type: 'CONSENT_REVOKED', data: { path: ['consentId'], equals: c.id } },
        })) > 0
          ? true
          : undefined,
      );
      return c.id;
    };
    const live = [await revoke(), await revoke()];
    const seen = await first.waitFor(2);
    expect(seen.map((m) => [m.event, JSON.parse(m.data).data.consentId])).toEqual(
      live.map((id) => ['consent.revoked', id]),
    );
    first.close();

    const missed = [await revoke(), await revoke(), await revoke()];
    // Wait until the outbox has them all, then resume.
    await eventually('relayed', async () => {
      const n = await prisma.merchantEvent.count({
        where: { userId: tenant.userId, streamSeq: { not: null } },
      });
      return n >= live.length + missed.length ? true : undefined;
    });
    const resumed = await SseClient.open(url, token, seen[seen.length - 1].id);
    const replayed = await resumed.waitFor(3);
    expect(replayed.map((m) => JSON.parse(m.data).data.consentId)).toEqual(missed);
    const ids = [...seen, ...replayed].map((m) => Number(m.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(5);
    // Heartbeats arrive; nothing more does.
    await resumed.waitForComment('heartbeat');
    expect(resumed.messages).toHaveLength(3);
    resumed.close();
  });

  it('streams from any api process (a second one here), and ends its streams cleanly when it shuts down', async () => {
    const second = await spawnApi(stackProcessEnv(stack, tuned({ sseHeartbeatSeconds: 1 })));
    const token = sessionToken(stack.api.config, {
      merchantId: tenant.merchant.merchant.id,
      userId: tenant.userId,
    });
    const stream = await SseClient.open(`${second.url}/v1/users/${tenant.userId}/events`, token);
    try {
      // The webhook arrives at the first api; the worker relays; the second api's stream is woken.
      const consent = await consentOf();
      await bankMoved(consent, 'revoked');
      const [message] = await stream.waitFor(1);
      expect(JSON.parse(message.data).data.consentId).toBe(consent.id);
    } finally {
      await second.stop();
    }
    // SIGTERM: the process ends its streams before it exits.
    await eventually(
      'the stream ended by the server',
      () => (stream.closedByServer ? true : undefined),
      WAIT.streamEnd,
    );
    expect(second.output()).not.toMatch(/"level":"error"/);
  });

  it('shows an endpoint secret once: not in an idempotent replay, the idempotency record or the table', async () => {
    const receiver = await new EventReceiver().start();
    try {
      await eventually('outbox relayed', async () =>
        (await prisma.merchantEvent.count({ where: { streamSeq: null } })) === 0 ? true : undefined,
      );
      const key = { headers: { 'idempotency-key': uniqueName('idem') } };
      const first = await tenant.client.post('/v1/event-endpoints', { url: receiver.url }, key);
      const replay = await tenant.client.post('/v1/event-endpoints', { url: receiver.url }, key);
      const secretShown = first.body.data.secret as string;
      expect(secretShown).toMatch(/^whsec_/);
      expect(replay.body.data.endpoint.id).toBe(first.body.data.endpoint.id);
      expect(replay.body.data.secret).toBeUndefined();
      const stored = await prisma.idempotencyKey.findFirstOrThrow({
        where: { key: key.headers['idempotency-key'] },
      });
      expect(JSON.stringify(stored)).not.toContain(secretShown);
      const row = await prisma.eventEndpoint.findUniqueOrThrow({
        where: { id: first.body.data.endpoint.id },
      });
      expect(JSON.stringify(row)).not.toContain(secretShown.slice(6));
      await tenant.client.delete(`/v1/event-endpoints/${first.body.data.endpoint.id}`);
    } finally {
      await receiver.stop();
    }
  });

  it('disables an endpoint that has failed for 72 h, keeps what it misses, shows the operator why, and resends after enabling', async () => {
    const receiver = await new EventReceiver().start();
    receiver.otherwise = 503;
    const revokeOne = async () => {
      const consent = await consentOf(other);
      await bankMoved(consent, 'revoked');
      return consent.id;
    };
    try {
      const { endpoint: created } = await endpoint(other, receiver);
      await revokeOne();
      const failing = await eventually('the first failure recorded', async () => {
        const view = await other.client.get(`/v1/event-endpoints/${created.id}`);
        return view.body.data.failingSince ? view.body.data : undefined;
      });
      expect(failing.disabledAt).toBeNull();

      // 73 hours on, the sweeper finds it still failing.
      const sweeper = stack.worker!.app.get(EventsSweeperService);
      const later = new Date(Date.parse(failing.failingSince) + 73 * 3_600_000);
      expect((await sweeper.sweepOutbound(later)).disabled).toBeGreaterThanOrEqual(1);
      const disabled = (await other.client.get(`/v1/event-endpoints/${created.id}`)).body.data;
      expect(disabled.disabledAt).toEqual(later.toISOString());
      expect(disabled.disabledReason).toContain('No delivery succeeded since');
      const seen = await stack.operator.get('/admin/event-endpoints');
      expect(seen.body.data.find((e: { id: string }) => e.id === created.id)).toMatchObject({
        merchantId: other.merchant.merchant.id,
        merchantName: other.merchant.merchant.name,
        disabledReason: disabled.disabledReason,
      });

      // An event while it is disabled is not lost: recorded failed, for a retry once it is enabled.
      const missed = await revokeOne();
      const log = await eventually('both deliveries failed', async () => {
        const data = (await other.client.get(`/v1/event-endpoints/${created.id}/deliveries`)).body.data;
        return data.length === 2 ? (data as { id: string; status: string; lastError: string }[]) : undefined;
      });
      expect(log.map((d) => [d.status, d.lastError])).toEqual([
        ['FAILED', 'endpoint disabled'],
        ['FAILED', 'endpoint disabled'],
      ]);
      const refused = await other.client.post(
        `/v1/event-endpoints/${created.id}/deliveries/${log[0].id}/retry`,
      );
      expect([refused.status, refused.body.error.code]).toEqual([409, 'CONFLICT']);

      receiver.otherwise = 200;
      const enabled = await other.client.post(`/v1/event-endpoints/${created.id}/enable`);
      expect(enabled.body.data).toMatchObject({ disabledAt: null, disabledReason: null, failingSince: null });
      expect(
        (await other.client.post(`/v1/event-endpoints/${created.id}/deliveries/${log[0].id}/retry`)).status,
      ).toBe(202);
      const [resent] = await eventually('the missed event resent', () =>
        receiver.accepted().length > 0 ? receiver.accepted() : undefined,
      );
      expect(JSON.parse(resent.body).data.consentId).toBe(missed);
      await other.client.delete(`/v1/event-endpoints/${created.id}`);
    } finally {
      await receiver.stop();
    }
  });

  it('moves an endpoint to a new address: pending deliveries follow, the secret stays, the failure clock restarts', async () => {
    const [broken, fixed] = [await new EventReceiver().start(), await new EventReceiver().start()];
    broken.otherwise = 500;
    try {
      const { endpoint: created, secret: endpointSecret } = await endpoint(tenant, broken, [
        'consent.revoked',
      ]);
      const path = `/v1/event-endpoints/${created.id}`;
      const revoked = await consentOf();
      await bankMoved(revoked, 'revoked');
      const failing = await eventually('the endpoint marked failing', async () => {
        const view = await tenant.client.get(path);
        return view.body.data.failingSince ? (view.body.data as { failingSince: string }) : undefined;
      });

      // The same address again is no change: it cannot postpone the auto-disable.
      const same = await tenant.client.patch(path, { url: broken.url });
      expect([same.status, same.body.data.failingSince]).toEqual([200, failing.failingSince]);

      const moved = await tenant.client.patch(path, { url: fixed.url });
      expect(moved.status).toBe(200);
      expect(moved.body.data).toMatchObject({
        url: fixed.url,
        types: ['consent.revoked'],
        failingSince: null,
      });
      const [delivered] = await eventually('the pending delivery sent to the new address', () =>
        fixed.accepted().length > 0 ? fixed.accepted() : undefined,
      );
      expect(delivered.type).toBe('consent.revoked');
      const headers = delivered.headers as Record<string, string>;
      expect(() => new Webhook(endpointSecret).verify(delivered.body, headers)).not.toThrow();

      // New types apply to what is recorded from now on.
      const retyped = await tenant.client.patch(path, { types: ['consent.expired'] });
      expect(retyped.body.data).toMatchObject({ url: fixed.url, types: ['consent.expired'] });
      const [revokedLater, expired] = [await consentOf(), await consentOf()];
      await bankMoved(revokedLater, 'revoked');
      await bankMoved(expired, 'expired');
      await eventually('the expiry delivered', () => (fixed.accepted().length === 2 ? true : undefined));
      expect(fixed.accepted().map((event) => event.type)).toEqual(['consent.revoked', 'consent.expired']);

      for (const [body, field] of [
        [{ url: 'ftp://merchant.example/hooks' }, 'url'],
        [{ url: null }, 'url'],
        [{ types: ['payment.exploded'] }, 'types'],
        [{ types: null }, 'types'],
      ] as const) {
        const refused = await tenant.client.patch(path, body);
        expect([refused.status, refused.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
        if (field === 'url' && body.url) {
          expect(refused.body.error.message).toBe('url must be an absolute http or https URL');
        }
        expect(refused.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
      }
      const empty = await tenant.client.patch(path, {});
      expect([empty.status, empty.body.error.message]).toEqual([
        400,
        'Give url, types or rateLimit (one or more): nothing to change.',
      ]);
      expect((await other.client.patch(path, { url: fixed.url })).status).toBe(404);
      expect((await tenant.client.patch('/v1/event-endpoints/not-a-uuid', { url: fixed.url })).status).toBe(
        404,
      );
      expect((await tenant.client.get(path)).body.data.url).toBe(fixed.url);
    } finally {
      await Promise.all([broken.stop(), fixed.stop()]);
    }
  });

  it('keeps tenants apart: another merchant’s endpoints, deliveries and users’ streams are 404', async () => {
    const receiver = await new EventReceiver().start();
    try {
      const { endpoint: created } = await endpoint(tenant, receiver);
      const theirs = other.client;
      for (const path of [
        `/v1/event-endpoints/${created.id}`,
        `/v1/event-endpoints/${created.id}/deliveries`,
        `/v1/users/${tenant.userId}/events`,
      ]) {
        const response = await theirs.get(path);
        expect([path, response.status, response.body.error.code]).toEqual([path, 404, 'NOT_FOUND']);
      }
      expect((await theirs.delete(`/v1/event-endpoints/${created.id}`)).status).toBe(404);
      expect((await theirs.post(`/v1/event-endpoints/${created.id}/secret`)).status).toBe(404);
      expect((await theirs.get('/v1/event-endpoints')).body.data).toEqual([]);
      // A session of one user may not follow another user's stream, nor manage endpoints.
      const session = sessionToken(stack.api.config, {
        merchantId: other.merchant.merchant.id,
        userId: other.userId,
      });
      expect((await stack.anonymous.as(session).get(`/v1/users/${tenant.userId}/events`)).status).toBe(404);
      expect((await stack.anonymous.as(session).get('/v1/event-endpoints')).status).toBe(403);
    } finally {
      await receiver.stop();
    }
  });

  it('validates endpoints and stream positions: 400 in the envelope', async () => {
    const cases: [unknown, string][] = [
      [{ url: 'not a url' }, 'url'],
      [{ url: 'ftp://merchant.example/hooks' }, 'url'],
      [{ url: 'https://merchant.example/hooks', types: ['payment.exploded'] }, 'types'],
      [{ url: 'https://merchant.example/hooks', types: 'consent.revoked' }, 'types'],
      [{}, 'url'],
    ];
    for (const [body, field] of cases) {
      const response = await tenant.client.post('/v1/event-endpoints', body);
      expect([response.status, response.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
      expect(response.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const stream = await tenant.client.get(`/v1/users/${tenant.userId}/events`, {
      headers: { 'last-event-id': 'yesterday' },
    });
    expect([stream.status, stream.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect((await tenant.client.get('/v1/event-endpoints/not-a-uuid')).status).toBe(404);
  });
});
