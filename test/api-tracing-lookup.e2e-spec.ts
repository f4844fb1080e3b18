import { beforeAll, describe, expect, it } from 'vitest';
import { createBffClient } from '../libs/merchant-sdk/src/index.js';
import {
  accountsWhenSynced,
  connect,
  dataOf,
  eventually,
  onboard,
  syncAtFailingBank,
  type Tenant,
  uniqueName,
  useReceiver,
  useStack,
} from './kit/index.js';

interface Lookup {
  users: { id: string; reference: string }[];
  syncRuns: { id: string; status: string; error: { upstream: { tracingId: string } } | null }[];
  payments: { id: string }[];
  events: { id: string; type: string; data: { syncId?: string; consentId?: string } }[];
  deliveries: { id: string; eventId: string; endpointId: string; status: string }[];
  more: { syncRuns: boolean; payments: boolean; events: boolean; deliveries: boolean };
}

const NOTHING: Lookup = {
  users: [],
  syncRuns: [],
  payments: [],
  events: [],
  deliveries: [],
  more: { syncRuns: false, payments: false, events: false, deliveries: false },
};

/**
 * `GET /v1/lookup?id=` (issue 43) on the real stack: a sync failed at the sandbox bank carries the
 * upstream's tracing id; looking it up finds the run, its sync.failed event and that event's delivery,
 * and so do the run's and the event's ids. Another merchant finds nothing; a request's own tracing id
 * finds the events it recorded.
 */
describe('api: looking a tracing id up across sync runs, events and deliveries', () => {
  const stack = useStack({ ownDatabase: 'tracing_lookup', worker: true });
  let tenant: Tenant;
  let other: Tenant;
  const receiver = useReceiver();
  let consentId: string;
  let otherConsentId: string;
  let endpointId: string;
  let run: Lookup['syncRuns'][number];
  let tracingId: string;
  /** The tracing id the api answered the POST …/sync that opened the run with. */
  let syncRequestId: string;

  const lookUp = async (client: Tenant['client'], id: string) =>
    dataOf<Lookup>(await client.get(`/v1/lookup?id=${encodeURIComponent(id)}`));

  beforeAll(async () => {
    [tenant, other] = [await onboard(stack), await onboard(stack)];
    consentId = await connect(stack, tenant);
    otherConsentId = await connect(stack, other);
    const [account] = await accountsWhenSynced(tenant.client, tenant.userId);
    endpointId = dataOf<{ endpoint: { id: string } }>(
      await tenant.client.post('/v1/event-endpoints', { url: receiver.url, types: ['sync.failed'] }),
      201,
    ).endpoint.id;
    // A refusal the sync does not retry: the run fails at once, with the upstream's tracing id.
    syncRequestId = uniqueName('sync-request');
    run = (await syncAtFailingBank(stack, tenant, account, undefined, {
      'x-request-id': syncRequestId,
    })) as unknown as Lookup['syncRuns'][number];
    expect(run.status).toBe('failed');
    tracingId = run.error!.upstream.tracingId;
    expect(tracingId).toBeTruthy();
  }, 180_000);

  it('finds the run by the upstream’s tracing id, its sync.failed event and that event’s delivery', async () => {
    const found = await eventually('the sync.failed event delivered', async () => {
      const answer = await lookUp(tenant.client, tracingId);
      return answer.deliveries.some((d) => d.status === 'SUCCEEDED') ? answer : undefined;
    });
    expect(found.syncRuns.map((r) => r.id)).toEqual([run.id]);
    expect(found.syncRuns[0]).toEqual(dataOf(await tenant.client.get(`/v1/syncs/${run.id}`)));
    expect(found.events.map((e) => [e.type, e.data.syncId])).toEqual([['sync.failed', run.id]]);
    const [event] = found.events;
    expect(event).toEqual(dataOf(await tenant.client.get(`/v1/events/${event.id}`)));
    expect(found.deliveries).toEqual([
      expect.objectContaining({
        eventId: event.id,
        endpointId,
        eventType: 'sync.failed',
        status: 'SUCCEEDED',
      }),
    ]);
    expect(receiver.accepted().map((e) => e.id)).toContain(event.id);
    expect(found.more).toEqual(NOTHING.more);
    const bff = createBffClient({ baseUrl: stack.api.url, token: tenant.merchant.apiKey.key });
    expect(await bff.lookup(tracingId)).toEqual(found);

    // The run's id leads to the same, and so does the tracing id the api answered the request that opened
    // it with; the event's id to the event and its delivery; the delivery's to it.
    expect(await lookUp(tenant.client, run.id)).toEqual(found);
    expect(await lookUp(tenant.client, syncRequestId)).toEqual(found);
    expect(await lookUp(other.client, syncRequestId)).toEqual(NOTHING);
    expect(await lookUp(tenant.client, run.id.toUpperCase())).toEqual(found);
    expect(await lookUp(tenant.client, event.id)).toEqual({ ...found, syncRuns: [] });
    expect(await lookUp(tenant.client, found.deliveries[0].id)).toEqual({
      ...NOTHING,
      deliveries: found.deliveries,
    });
  });

  it('finds a customer by their reference or id, and no other merchant’s', async () => {
    const user = dataOf<{ id: string; reference: string }>(
      await tenant.client.get(`/v1/users/${tenant.userId}`),
    );
    for (const id of [user.reference, user.id, user.id.toUpperCase()]) {
      expect(await lookUp(tenant.client, id)).toEqual({ ...NOTHING, users: [user] });
      expect(await lookUp(other.client, id)).toEqual(NOTHING);
    }
  });

  it('finds nothing of another merchant’s, by any of its ids', async () => {
    const { events, deliveries } = await lookUp(tenant.client, tracingId);
    for (const id of [tracingId, run.id, events[0].id, deliveries[0].id]) {
      expect(await lookUp(other.client, id)).toEqual(NOTHING);
    }
  });

  it('finds the events an api request recorded by the tracing id it was answered with', async () => {
    const requestId = uniqueName('revoke');
    const revoked = await tenant.client.delete(`/v1/consents/${consentId}`, {
      headers: { 'x-request-id': requestId },
    });
    expect(revoked.status).toBe(204);
    expect(revoked.headers.get('x-request-id')).toBe(requestId);
    const found = await eventually('the revocation’s event relayed', async () => {
      const answer = await lookUp(tenant.client, requestId);
      return answer.events.length > 0 ? answer : undefined;
    });
    expect(found.events.map((e) => [e.type, e.data.consentId])).toEqual([['consent.revoked', consentId]]);
    expect(found.syncRuns).toEqual([]);
    // Never the request's id itself: the events are as they were sent.
    expect(JSON.stringify(found)).not.toContain(requestId);
    expect(await lookUp(other.client, requestId)).toEqual(NOTHING);
  });

  it('answers the newest 50 deliveries of what it finds, and says there were more', async () => {
    // 51 endpoints of the other merchant take its consent's revocation: 51 deliveries of one event.
    for (let i = 0; i < 51; i += 1) {
      const created = await other.client.post('/v1/event-endpoints', {
        url: `${receiver.url}?endpoint=${i}`,
        types: ['consent.revoked'],
      });
      expect(created.status).toBe(201);
    }
    const requestId = uniqueName('revoke-many');
    const revoked = await other.client.delete(`/v1/consents/${otherConsentId}`, {
      headers: { 'x-request-id': requestId },
    });
    expect(revoked.status).toBe(204);
    const found = await eventually('the revocation fanned out to 51 endpoints', async () => {
      const answer = await lookUp(other.client, requestId);
      return answer.more.deliveries ? answer : undefined;
    });
    expect(found.events.map((e) => e.type)).toEqual(['consent.revoked']);
    expect(found.deliveries).toHaveLength(50);
    expect(new Set(found.deliveries.map((d) => d.endpointId)).size).toBe(50);
    expect(found.more).toEqual({ ...NOTHING.more, deliveries: true });
  });

  it('answers empty lists for an id that names nothing', async () => {
    expect(await lookUp(tenant.client, 'no-such-tracing-id')).toEqual(NOTHING);
    expect(await lookUp(tenant.client, '0190c0de-0000-7000-8000-000000000001')).toEqual(NOTHING);
    expect(await lookUp(tenant.client, 'job:sync-account:1')).toEqual(NOTHING);
  });

  it.each([
    ['an empty id', '', 'id must not be empty'],
    ['a blank id', ' ', 'id must be visible ASCII characters only (no spaces or control characters)'],
    ['an id of 256 characters', 'a'.repeat(256), 'id must be at most 255 characters'],
    [
      'a control character',
      'a\tb',
      'id must be visible ASCII characters only (no spaces or control characters)',
    ],
    ['a non-ASCII id', 'tracé', 'id must be visible ASCII characters only (no spaces or control characters)'],
  ])('refuses %s with 400 naming why', async (_name, id, message) => {
    const answer = await tenant.client.get(`/v1/lookup?id=${encodeURIComponent(id)}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message,
      details: [{ field: 'id', issue: message }],
    });
  });

  it('is the merchant key’s only', async () => {
    expect((await stack.anonymous.get(`/v1/lookup?id=${tracingId}`)).status).toBe(401);
  });
});
