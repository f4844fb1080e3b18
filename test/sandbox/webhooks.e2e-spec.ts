import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateWebhookSecret, verifyWebhook, WebhookVerificationError } from '#libs/crypto';
import { SEEDED_SUB_APPLICATIONS } from '../../apps/sandbox/src/core/index.js';
import { eventually, testConfig } from '../kit/index.js';
import { useSandbox } from '../kit/sandbox-fixture.js';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/** A real HTTP endpoint for the sandbox to deliver to; it can be told to fail a path's next requests. */
class Receiver {
  readonly requests: Received[] = [];
  private readonly failures = new Map<string, number>();
  private server?: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url ?? '/';
        const failing = this.failures.get(path) ?? 0;
        const status = failing > 0 ? 500 : 204;
        if (failing > 0) this.failures.set(path, failing - 1);
        this.requests.push({
          path,
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          status,
        });
        response.statusCode = status;
        response.end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  failNext(path: string, count: number): void {
    this.failures.set(path, count);
  }

  on(path: string): Received[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** Waits until `path` has had `count` requests: the sandbox delivers after answering the emit. */
  received(path: string, count: number) {
    return eventually(`${count} request(s) at ${path}`, () => {
      expect(this.on(path)).toHaveLength(count);
      return true;
    });
  }

  clear(): void {
    this.requests.length = 0;
    this.failures.clear();
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

const config = testConfig();
const ROOT = config.upstream.applicationId;
const SUB_A = SEEDED_SUB_APPLICATIONS[0].id;

describe('sandbox: webhooks, notifications and signed event delivery', () => {
  const receiver = new Receiver();
  // Registered before the fixture so that, after-hooks running in reverse, the sandbox closes first.
  afterAll(async () => {
    await receiver.close();
  });
  const { http } = useSandbox(config);
  beforeAll(async () => {
    await receiver.start();
  });
  beforeEach(() => {
    receiver.clear();
  });

  async function register(
    path: string,
    categories: string[] = ['payment.state.success'],
    options: { subApplication?: string; metadata?: Record<string, string> } = {},
  ) {
    const response = await http.call('POST', '/webhook/events', {
      subApplication: options.subApplication,
      body: {
        applicationId: options.subApplication ?? ROOT,
        categories,
        callbackUrl: { main: { url: `${receiver.url}${path}` } },
        ...(options.metadata ? { metadata: options.metadata } : {}),
      },
    });
    expect(response.status).toBe(201);
    return response.body.data as { id: string; webhookSecret: string };
  }

  async function emit(body: Record<string, unknown>) {
    const response = await http.admin('POST', '/webhooks/emit', body);
    expect(response.status).toBe(202);
    return response.body.data as { eventId: string; deliveries: { id: string; target: any }[] };
  }

  async function deliveries(eventId: string) {
    return (await http.admin('GET', `/webhooks/deliveries?eventId=${eventId}`)).body.data as any[];
  }

  async function fastRetries(delaysMs: number[]) {
    const response = await http.admin('PUT', '/webhooks/retry-policy', { delaysMs });
    expect(response.status).toBe(200);
    expect(response.body.data.delaysMs).toEqual(delaysMs);
  }

  function expectWebhookIssue(response: { status: number; body: any }, status: number, code: number) {
    expect(response.status).toBe(status);
    expect(response.body.error.code).toBe(status);
    expect(response.body.error.issues.length).toBeGreaterThan(0);
    for (const issue of response.body.error.issues) expect(issue.code).toBe(code);
  }

  it('lists categories under `metadata`, not `meta`', async () => {
    const response = await http.call('GET', '/webhook/events/categories');
    expect(response.status).toBe(200);
    expect(response.body.metadata.tracingId).toEqual(expect.any(String));
    expect(response.body.meta).toBeUndefined();
    const names = response.body.data.categories.map((c: { name: string }) => c.name);
    expect(names).toEqual(expect.arrayContaining(['payment.state.success', 'payment.state.failed']));
    for (const category of response.body.data.categories)
      expect(category.description).toEqual(expect.any(String));
  });

  it('returns the webhook secret on registration only, never on GET', async () => {
    const response = await http.call('POST', '/webhook/events', {
      body: {
        applicationId: ROOT,
        categories: ['payment.state.success', 'payment.state.failed'],
        callbackUrl: { main: { url: `${receiver.url}/hook` }, backup: { url: `${receiver.url}/backup` } },
        metadata: { merchant: 'm-1' },
      },
    });
    expect(response.status).toBe(201);
    expect(response.body.metadata.tracingId).toEqual(expect.any(String));
    const webhook = response.body.data;
    expect(webhook).toMatchObject({
      applicationId: ROOT,
      categories: ['payment.state.success', 'payment.state.failed'],
      callbackUrl: { main: { url: `${receiver.url}/hook` }, backup: { url: `${receiver.url}/backup` } },
      metadata: { merchant: 'm-1' },
      status: 'active',
    });
    expect(webhook.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(webhook.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);

    const list = await http.call('GET', '/webhook/events');
    expect(list.status).toBe(200);
    expect(list.body.data.active).toHaveLength(1);
    expect(list.body.data.active[0]).toMatchObject({ id: webhook.id, status: 'active' });
    expect(list.body.data.active[0].webhookSecret).toBeUndefined();
    expect(JSON.stringify(list.body)).not.toContain(webhook.webhookSecret.slice(6));
  });

  it('refuses an applicationId other than the effective application with 400 code 10600', async () => {
    const body = (applicationId: string) => ({
      applicationId,
      categories: ['payment.state.success'],
      callbackUrl: { main: { url: `${receiver.url}/hook` } },
    });
    expectWebhookIssue(await http.call('POST', '/webhook/events', { body: body(SUB_A) }), 400, 10600);
    expectWebhookIssue(
      await http.call('POST', '/webhook/events', { body: body(ROOT), subApplication: SUB_A }),
      400,
      10600,
    );
    const ok = await http.call('POST', '/webhook/events', { body: body(SUB_A), subApplication: SUB_A });
    expect(ok.status).toBe(201);
    expect(ok.body.data.applicationId).toBe(SUB_A);
  });

  it('refuses unknown categories and invalid bodies with 400 code 10600', async () => {
    const valid = {
      applicationId: ROOT,
      categories: ['payment.state.success'],
      callbackUrl: { main: { url: `${receiver.url}/hook` } },
    };
    const unknown = await http.call('POST', '/webhook/events', {
      body: { ...valid, categories: ['payment.state.success', 'payment.state.nope'] },
    });
    expectWebhookIssue(unknown, 400, 10600);
    expect(unknown.body.error.issues[0].parameter).toBe('categories[1]');
    for (const bad of [
      { ...valid, categories: [] },
      { ...valid, callbackUrl: undefined },
      { ...valid, callbackUrl: { main: { url: `${receiver.url}/hook?x=1` } } },
      { ...valid, callbackUrl: { main: { url: 'ftp://example.com/hook' } } },
      { ...valid, metadata: { n: 1 } },
    ]) {
      expectWebhookIssue(await http.call('POST', '/webhook/events', { body: bad }), 400, 10600);
    }
    expectWebhookIssue(await http.call('DELETE', '/webhook/events/not-a-uuid'), 400, 10600);
    expect((await http.call('GET', '/webhook/events')).body.data.active).toEqual([]);
  });

  it('answers invalid credentials on webhook routes with 401 code 10700', async () => {
    const response = await http.call('GET', '/webhook/events', { auth: { id: ROOT, secret: 'wrong' } });
    expectWebhookIssue(response, 401, 10700);
  });

  it('delivers an emitted event, signed with the returned secret, with the documented body and headers', async () => {
    const webhook = await register('/hook', ['payment.state.success'], { metadata: { shop: 's-1' } });
    const before = Math.floor(Date.now() / 1000);
    const { eventId, deliveries: started } = await emit({
      type: 'payment.state.success',
      data: { paymentId: 'pay-1', status: 'COMPLETED' },
    });
    expect(started).toEqual([{ id: expect.any(String), target: { kind: 'webhook', webhookId: webhook.id } }]);
    await receiver.received('/hook', 1);

    const [request] = receiver.on('/hook');
    expect(verifyWebhook(request.body, request.headers, webhook.webhookSecret).id).toBe(eventId);
    expect(() => verifyWebhook(request.body, request.headers, generateWebhookSecret())).toThrow(
      WebhookVerificationError,
    );
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['webhook-id']).toBe(eventId);
    const timestamp = Number(request.headers['webhook-timestamp']);
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(timestamp).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    expect(JSON.parse(request.body)).toEqual({
      id: eventId,
      type: 'payment.state.success',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      applicationId: ROOT,
      data: { paymentId: 'pay-1', status: 'COMPLETED' },
      metadata: { shop: 's-1' },
    });

    await eventually('the delivery logged delivered', async () => {
      expect((await deliveries(eventId))[0]?.state).toBe('delivered');
      return true;
    });
    const [log] = await deliveries(eventId);
    expect(log.attempts).toEqual([
      expect.objectContaining({
        attempt: 1,
        statusCode: 204,
        url: `${receiver.url}/hook`,
        webhookTimestamp: timestamp,
      }),
    ]);
  });

  it('retries failed deliveries with the same webhook-id until one succeeds', async () => {
    await fastRetries([20, 40, 80]);
    const webhook = await register('/flaky');
    receiver.failNext('/flaky', 2);
    const { eventId } = await emit({ type: 'payment.state.success', data: { paymentId: 'pay-2' } });

    await receiver.received('/flaky', 3);
    const requests = receiver.on('/flaky');
    expect(requests.map((r) => r.status)).toEqual([500, 500, 204]);
    for (const request of requests) {
      expect(request.headers['webhook-id']).toBe(eventId);
      expect(verifyWebhook(request.body, request.headers, webhook.webhookSecret).id).toBe(eventId);
    }
    await eventually('the delivery logged delivered', async () => {
      expect((await deliveries(eventId))[0]?.state).toBe('delivered');
      return true;
    });
    const [log] = await deliveries(eventId);
    expect(log.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 500, 204]);
  });

  it('gives up after the last retry of the schedule, and the reset restores the default schedule', async () => {
    await fastRetries([10, 20]);
    await register('/down');
    receiver.failNext('/down', 100);
    const { eventId } = await emit({ type: 'payment.state.success' });

    await eventually('the delivery logged failed', async () => {
      expect((await deliveries(eventId))[0]?.state).toBe('failed');
      return true;
    });
    expect(receiver.on('/down')).toHaveLength(3);
    const [log] = await deliveries(eventId);
    expect(log.attempts.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3]);
    expect(log.nextAttemptAt).toBeUndefined();

    await http.admin('POST', '/reset');
    expect((await http.admin('GET', '/webhooks/retry-policy')).body.data).toEqual({
      delaysMs: [5_000, 30_000, 120_000, 600_000, 3_600_000],
      timeoutMs: 5_000,
    });
    expect(await deliveries(eventId)).toEqual([]);
  });

  it('records network errors and tries the backup URL when the main one does not respond', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/gone`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const response = await http.call('POST', '/webhook/events', {
      body: {
        applicationId: ROOT,
        categories: ['payment.state.failed'],
        callbackUrl: { main: { url: deadUrl }, backup: { url: `${receiver.url}/backup` } },
      },
    });
    expect(response.status).toBe(201);
    const { eventId } = await emit({ type: 'payment.state.failed' });
    await receiver.received('/backup', 1);
    expect(
      verifyWebhook(
        receiver.on('/backup')[0].body,
        receiver.on('/backup')[0].headers,
        response.body.data.webhookSecret,
      ).id,
    ).toBe(eventId);
    await eventually('the delivery logged delivered', async () => {
      expect((await deliveries(eventId))[0]?.state).toBe('delivered');
      return true;
    });
    const [log] = await deliveries(eventId);
    expect(log.attempts).toEqual([
      expect.objectContaining({ attempt: 1, url: deadUrl, error: expect.any(String) }),
      expect.objectContaining({ attempt: 1, url: `${receiver.url}/backup`, statusCode: 204 }),
    ]);
  });

  it('delivers the same event id twice when asked to duplicate', async () => {
    const webhook = await register('/dup');
    const { eventId } = await emit({ type: 'payment.state.success', duplicate: true });
    await receiver.received('/dup', 2);
    const [a, b] = receiver.on('/dup');
    expect(a.headers['webhook-id']).toBe(eventId);
    expect(b.headers['webhook-id']).toBe(eventId);
    expect(a.body).toBe(b.body);
    expect(verifyWebhook(b.body, b.headers, webhook.webhookSecret).id).toBe(eventId);
  });

  it('sends a stale timestamp on request, which fails verification at the default tolerance', async () => {
    const webhook = await register('/stale');
    await emit({ type: 'payment.state.success', timestampOffsetSeconds: -3600 });
    await receiver.received('/stale', 1);
    const [request] = receiver.on('/stale');
    let reason: string | undefined;
    try {
      verifyWebhook(request.body, request.headers, webhook.webhookSecret);
    } catch (error) {
      reason = (error as WebhookVerificationError).reason;
    }
    expect(reason).toBe('TIMESTAMP_TOO_OLD');
    // The signature itself is genuine: only its age is refused.
    expect(() =>
      verifyWebhook(request.body, request.headers, webhook.webhookSecret, { toleranceSeconds: 7200 }),
    ).not.toThrow();
  });

  it('delivers only to webhooks subscribed to the category', async () => {
    const failedOnly = await register('/failed-only', ['payment.state.failed']);
    const successOnly = await register('/success-only', ['payment.state.success']);
    const success = await emit({ type: 'payment.state.success' });
    expect(success.deliveries.map((d) => d.target.webhookId)).toEqual([successOnly.id]);
    await receiver.received('/success-only', 1);
    expect(receiver.on('/failed-only')).toHaveLength(0);

    const failed = await emit({ type: 'payment.state.failed' });
    expect(failed.deliveries.map((d) => d.target.webhookId)).toEqual([failedOnly.id]);
    await receiver.received('/failed-only', 1);
    expect(JSON.parse(receiver.on('/failed-only')[0].body).type).toBe('payment.state.failed');
  });

  it('stops deliveries, including waiting retries, once the webhook is deleted', async () => {
    await fastRetries([60_000]);
    const webhook = await register('/deleted');
    receiver.failNext('/deleted', 1);
    const { eventId } = await emit({ type: 'payment.state.success' });
    await receiver.received('/deleted', 1);
    await eventually('the delivery’s next attempt scheduled', async () => {
      expect((await deliveries(eventId))[0]?.nextAttemptAt).toEqual(expect.any(String));
      return true;
    });

    const removed = await http.call('DELETE', `/webhook/events/${webhook.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body.data).toMatchObject({ id: webhook.id, categories: ['payment.state.success'] });
    expect(removed.body.data.webhookSecret).toBeUndefined();
    expect((await deliveries(eventId))[0].state).toBe('cancelled');
    expect((await http.call('GET', '/webhook/events')).body.data.active).toEqual([]);
    expect((await emit({ type: 'payment.state.success' })).deliveries).toEqual([]);
    expectWebhookIssue(await http.call('DELETE', `/webhook/events/${webhook.id}`), 404, 10800);
  });

  it('resets a secret: shown once, the old one refused at once, or kept alongside for the given delay', async () => {
    const webhook = await register('/rotate');
    const reset = await http.call('POST', `/webhook/secrets/${webhook.id}`, { body: { delay: 0 } });
    expect(reset.status).toBe(201);
    const fresh = reset.body.data.webhookSecret as string;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(webhook.webhookSecret);
    expect(reset.body.data).toMatchObject({ id: webhook.id, status: 'active' });
    expect(JSON.stringify((await http.call('GET', '/webhook/events')).body)).not.toContain(fresh.slice(6));

    await emit({ type: 'payment.state.success' });
    await receiver.received('/rotate', 1);
    const first = receiver.on('/rotate')[0];
    expect(() => verifyWebhook(first.body, first.headers, fresh)).not.toThrow();
    expect(() => verifyWebhook(first.body, first.headers, webhook.webhookSecret)).toThrow(/No signature/);

    const graceful = await http.call('POST', `/webhook/secrets/${webhook.id}`, { body: { delay: 3600 } });
    const newest = graceful.body.data.webhookSecret as string;
    await emit({ type: 'payment.state.success' });
    await receiver.received('/rotate', 2);
    const second = receiver.on('/rotate')[1];
    expect(String(second.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(() => verifyWebhook(second.body, second.headers, newest)).not.toThrow();
    expect(() => verifyWebhook(second.body, second.headers, fresh)).not.toThrow();

    expectWebhookIssue(await http.call('POST', `/webhook/secrets/${webhook.id}`, { body: {} }), 400, 10600);
    expectWebhookIssue(
      await http.call('POST', `/webhook/secrets/${webhook.id}`, { body: { delay: 86_401 } }),
      400,
      10600,
    );
    expectWebhookIssue(
      await http.call('POST', '/webhook/secrets/00000000-0000-4000-8000-00000000dead', {
        body: { delay: 0 },
      }),
      404,
      10800,
    );
  });

  it('manages deprecated event subscriptions: one per event type, created in dd-MM-yyyy HH:mm:ss', async () => {
    const url = `${receiver.url}/notify`;
    const body = { eventTypeId: 'payment.status.completed', notification: { type: 'WEBHOOK', url } };
    const created = await http.call('POST', '/notifications/event-subscriptions', { body });
    expect(created.status).toBe(201);
    expect(created.body.meta.tracingId).toEqual(expect.any(String));
    expect(created.body.data).toEqual({
      eventTypeId: 'payment.status.completed',
      applicationId: ROOT,
      created: expect.stringMatching(/^\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}$/),
      notification: { type: 'WEBHOOK', url },
    });
    const now = new Date();
    expect(created.body.data.created.slice(0, 10)).toBe(
      `${String(now.getUTCDate()).padStart(2, '0')}-${String(now.getUTCMonth() + 1).padStart(2, '0')}-${now.getUTCFullYear()}`,
    );

    const duplicate = await http.call('POST', '/notifications/event-subscriptions', { body });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.status).toBe('CONFLICT');
    const unknownType = await http.call('POST', '/notifications/event-subscriptions', {
      body: { ...body, eventTypeId: 'payment.nope' },
    });
    expect(unknownType.status).toBe(400);
    expect(unknownType.body.error.issues[0].parameter).toBe('eventTypeId');
    const badType = await http.call('POST', '/notifications/event-subscriptions', {
      body: { ...body, eventTypeId: 'payment.status', notification: { type: 'EMAIL', url } },
    });
    expect(badType.status).toBe(400);

    const list = await http.call('GET', '/notifications/event-subscriptions');
    expect(list.body.meta.count).toBe(1);
    expect(list.body.data[0].eventTypeId).toBe('payment.status.completed');
    const one = await http.call('GET', '/notifications/event-subscriptions/payment.status.completed');
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual(created.body.data);
    expect((await http.call('GET', '/notifications/event-subscriptions/payment.status')).status).toBe(404);

    const removed = await http.call('DELETE', '/notifications/event-subscriptions/payment.status.completed');
    expect(removed.status).toBe(200);
    expect(removed.body.data).toEqual({
      eventTypeId: 'payment.status.completed',
      applicationId: ROOT,
      created: created.body.data.created,
      deleteStatus: 'SUCCESS',
    });
    expect(
      (await http.call('GET', '/notifications/event-subscriptions/payment.status.completed')).status,
    ).toBe(404);
    expect(
      (await http.call('DELETE', '/notifications/event-subscriptions/payment.status.completed')).status,
    ).toBe(404);
  });

  it('delivers payment events to the matching notification subscriptions', async () => {
    for (const eventTypeId of ['payment.status.completed', 'payment.status']) {
      const response = await http.call('POST', '/notifications/event-subscriptions', {
        body: { eventTypeId, notification: { type: 'WEBHOOK', url: `${receiver.url}/n/${eventTypeId}` } },
      });
      expect(response.status).toBe(201);
    }
    const success = await emit({ type: 'payment.state.success', data: { paymentId: 'pay-9' } });
    expect(success.deliveries.map((d) => d.target.eventTypeId).sort()).toEqual([
      'payment.status',
      'payment.status.completed',
    ]);
    await receiver.received('/n/payment.status.completed', 1);
    await receiver.received('/n/payment.status', 1);
    const completed = receiver.on('/n/payment.status.completed')[0];
    expect(completed.headers['webhook-id']).toBe(success.eventId);
    expect(completed.headers['webhook-signature']).toBeUndefined();
    expect(JSON.parse(completed.body)).toMatchObject({
      id: success.eventId,
      type: 'payment.status.completed',
      applicationId: ROOT,
      data: { paymentId: 'pay-9' },
    });

    const failed = await emit({ type: 'payment.state.failed' });
    expect(failed.deliveries.map((d) => d.target.eventTypeId)).toEqual(['payment.status']);
    await receiver.received('/n/payment.status', 2);
    expect(receiver.on('/n/payment.status.completed')).toHaveLength(1);
  });

  it('keeps sub-applications apart: their webhooks, subscriptions and events', async () => {
    const subWebhook = await register('/sub-a', ['payment.state.success'], { subApplication: SUB_A });
    const rootWebhook = await register('/root');
    expect((await http.call('GET', '/webhook/events')).body.data.active.map((w: any) => w.id)).toEqual([
      rootWebhook.id,
    ]);
    const subList = await http.call('GET', '/webhook/events', { subApplication: SUB_A });
    expect(subList.body.data.active.map((w: any) => w.id)).toEqual([subWebhook.id]);
    expectWebhookIssue(await http.call('DELETE', `/webhook/events/${subWebhook.id}`), 404, 10800);

    const rootEvent = await emit({ type: 'payment.state.success' });
    expect(rootEvent.deliveries.map((d) => d.target.webhookId)).toEqual([rootWebhook.id]);
    await receiver.received('/root', 1);
    expect(receiver.on('/sub-a')).toHaveLength(0);

    const subEvent = await emit({ type: 'payment.state.success', applicationId: SUB_A });
    await receiver.received('/sub-a', 1);
    const request = receiver.on('/sub-a')[0];
    expect(verifyWebhook(request.body, request.headers, subWebhook.webhookSecret).id).toBe(subEvent.eventId);
    expect(JSON.parse(request.body).applicationId).toBe(SUB_A);
    expect(receiver.on('/root')).toHaveLength(1);

    const subscription = await http.call('POST', '/notifications/event-subscriptions', {
      subApplication: SUB_A,
      body: {
        eventTypeId: 'payment.status',
        notification: { type: 'WEBHOOK', url: `${receiver.url}/n-sub` },
      },
    });
    expect(subscription.body.data.applicationId).toBe(SUB_A);
    expect((await http.call('GET', '/notifications/event-subscriptions')).body.data).toEqual([]);
    expect(
      (await http.call('GET', '/notifications/event-subscriptions', { subApplication: SUB_A })).body.data,
    ).toHaveLength(1);
  });

  it('guards the control API and validates its input', async () => {
    const anonymous = await http.call('POST', '/sandbox/admin/webhooks/emit', {
      auth: 'root',
      body: { type: 'payment.state.success' },
    });
    expect(anonymous.status).toBe(401);
    expect((await http.admin('POST', '/webhooks/emit', { type: 'nope' })).status).toBe(400);
    expect(
      (await http.admin('POST', '/webhooks/emit', { type: 'payment.state.success', applicationId: 'x' }))
        .status,
    ).toBe(404);
    expect((await http.admin('PUT', '/webhooks/retry-policy', { delaysMs: [-1] })).status).toBe(400);
  });
});
