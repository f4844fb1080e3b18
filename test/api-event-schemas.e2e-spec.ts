import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { ConsentExpiryScanService } from '#libs/domain/consents';
import {
  DELIVERED_EVENT_TYPES,
  type DeliveredEventType,
  EventsSweeperService,
  MERCHANT_EVENT_TYPE_NAMES,
  type MerchantEventType,
} from '#libs/domain/events';
import { PaymentStatusPoller } from '#libs/domain/payments';
import { UserRepository } from '#libs/domain/users';
import {
  accountsWhenSynced,
  atBank,
  connectBank,
  createUser,
  dataOf,
  decideAtBank,
  EventReceiver,
  eventually,
  paymentBodies,
  runWhenEnded,
  sandboxOf,
  tuned,
  uniqueName,
  upstreamConsentId,
  useReceiver,
  useStack,
  useTenant,
} from './kit/index.js';
import {
  ComponentChecker,
  type OpenApiDocument,
  readOpenApiDocument,
  type Schema,
} from './kit/openapi-kit.js';
import { SseClient } from './kit/sse-client.js';

const DAY = 86_400_000;
const UNION = 'MerchantEventOutput';

/** What every event carries besides its data, in the order of the wire shape. */
const EVENT_MEMBERS = ['id', 'type', 'createdAt', 'userId', 'userReference', 'data'];

/**
 * Each merchant event type has a schema of its own in the OpenAPI document, `MerchantEventOutput` is
 * their discriminated union, and it is true: real flows through the stack (consents authorised, renewed,
 * expiring, expired, failed and revoked, first and failed syncs, payments completed, failed and held for review), and
 * every event they record, as an endpoint receives it and as a stream sends it, is exactly its type's
 * schema, with no member the schema does not declare.
 */
describe('api: merchant events, one schema per type, true to what is sent', () => {
  // The expiry scan and the relay act on every row of their database: this file has one of its own.
  const stack = useStack({
    ownDatabase: 'event_schemas',
    worker: true,
    overrides: { ...tuned({ eventDeliveryBackoffSeconds: 1 }) },
  });
  let prisma: PrismaService;
  const sandbox = sandboxOf(stack);
  let document: OpenApiDocument;
  let schemas: Record<string, Schema>;
  const tenant = useTenant(stack);
  const receiver = useReceiver();
  const users: string[] = [];

  beforeAll(async () => {
    prisma = stack.api.app.get(PrismaService);
    document = await readOpenApiDocument(stack.api.url);
    schemas = document.components?.schemas ?? {};
    users.push(tenant.userId);
    // Every type: an endpoint subscribed before anything happens receives every event.
    expect((await tenant.client.post('/v1/event-endpoints', { url: receiver.url })).status).toBe(201);
  });

  const apps = () => ({ apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url });
  const merchantId = () => tenant.merchant.merchant.id;
  const newUser = async () => {
    const user = await createUser(stack.api.app.get(UserRepository), merchantId());
    users.push(user.id);
    return user.id;
  };
  const component = (ref: string) => schemas[ref.replace('#/components/schemas/', '')];
  /** The schema a property names: a reference, or a reference wrapped to carry a description. */
  const named = (property: Schema) =>
    component(((property.allOf as Schema[] | undefined)?.[0] ?? property).$ref as string);
  const mapping = () => (schemas[UNION].discriminator as { mapping: Record<string, string> }).mapping;
  const recordedTypes = async () =>
    (
      await prisma.$queryRaw<{ type: string }[]>`
        SELECT DISTINCT type::text AS type FROM merchant_events WHERE merchant_id = ${merchantId()}::uuid`
    ).map((r) => r.type);
  const endpointId = async () =>
    dataOf<{ id: string; url: string }[]>(await tenant.client.get('/v1/event-endpoints')).find(
      (e) => e.url === receiver.url,
    )!.id;
  const recorded = async (type: MerchantEventType) =>
    eventually(type, async () => ((await recordedTypes()).includes(type) ? true : undefined));

  it('documents every type of the catalogue as a schema of its own, and their union as MerchantEventOutput', () => {
    const union = schemas[UNION];
    expect(union.discriminator).toMatchObject({ propertyName: 'type' });
    // The recorded events' types, and the test event an endpoint receives only when asked for.
    const delivered = Object.keys(DELIVERED_EVENT_TYPES) as DeliveredEventType[];
    expect(Object.keys(mapping())).toEqual(delivered);
    expect((union.oneOf as Schema[]).map((member) => member.$ref)).toEqual(Object.values(mapping()));
    const names = new Set<string>();
    for (const type of delivered) {
      const schema = component(mapping()[type]);
      expect(schema, type).toBeDefined();
      names.add(mapping()[type]);
      const properties = schema.properties as Record<string, Schema>;
      expect(Object.keys(properties), type).toEqual(EVENT_MEMBERS);
      expect(schema.required, type).toEqual(EVENT_MEMBERS);
      expect(properties.type.enum, type).toEqual([type]);
      expect(schema.description, type).toBe(DELIVERED_EVENT_TYPES[type].description);
      // `data` is the component the catalogue names, every member always there (maybe null).
      const data = named(properties.data);
      expect(data, `${type} data`).toBe(schemas[DELIVERED_EVENT_TYPES[type].data]);
      expect(data.required, type).toEqual(Object.keys(data.properties as Schema));
    }
    expect(names.size).toBe(delivered.length);
  });

  it('records the consent lifecycle: authorised, first syncs, expiring, a renewal not extended, expired', async () => {
    // A bank that keeps the expiry on a re-authorisation (the sandbox's quirk).
    const lifecycle = stack.api.app.get(ConsentExpiryScanService);
    // Short, and asked to be renewed all the same: the scan asks the bank in its last days.
    const terms = { expiresAt: new Date(Date.now() + 6 * DAY).toISOString(), autoReauthorise: true };
    const consentId = await sandbox.withQuirks({ reauthorisationKeepsExpiry: true }, async () => {
      const id = await connectBank(
        apps(),
        tenant.merchant.apiKey.key,
        tenant.userId,
        'sandbox-redirect',
        terms,
      );
      await accountsWhenSynced(tenant.client, tenant.userId);
      expect((await lifecycle.scanExpiry(new Date())).reauthorisationsRequested).toBe(1);
      const pending = dataOf(await tenant.client.get(`/v1/consents/${id}`));
      const back = await decideAtBank(apps(), pending.reauthorisationUrl);
      expect(back.location.searchParams.get('status')).toBe('AUTHORIZED');
      return id;
    });
    await accountsWhenSynced(tenant.client, tenant.userId);
    const { expiresAt } = await prisma.consent.findUniqueOrThrow({ where: { id: consentId } });
    await lifecycle.scanExpiry(new Date(expiresAt!.getTime() + 1_000));
    for (const type of [
      'consent.authorized',
      'consent.expiring',
      'consent.reauthorisation_required',
      'consent.reauthorisation_not_extended',
      'consent.expired',
      'sync.succeeded',
      'transactions.changed',
    ] as const) {
      await recorded(type);
    }
  });

  it('records a sync that fails for a consent the bank revoked, and a revocation by the merchant', async () => {
    const revokedAtBank = await newUser();
    const consentId = await connectBank(apps(), tenant.merchant.apiKey.key, revokedAtBank);
    const [account] = await accountsWhenSynced(tenant.client, revokedAtBank);
    const revoked = await sandbox.admin(
      'POST',
      `/consents/${await upstreamConsentId(stack, consentId)}/revoke`,
    );
    expect(revoked.status).toBeLessThan(300);
    const { syncId } = dataOf<{ syncId: string }>(
      await tenant.client.post(`/v1/accounts/${account.id}/sync`),
      202,
    );
    expect((await runWhenEnded(tenant.client, syncId)).status).toBe('failed');

    const revokedHere = await newUser();
    const mine = await connectBank(apps(), tenant.merchant.apiKey.key, revokedHere);
    await accountsWhenSynced(tenant.client, revokedHere);
    expect((await tenant.client.delete(`/v1/consents/${mine}`)).status).toBe(204);
    await recorded('sync.failed');
    await recorded('consent.revoked');
  });

  it('records a consent the user refused at the bank, and payments completed, failed and held for review', async () => {
    const refused = await newUser();
    const created = await tenant.client.post(`/v1/users/${refused}/consents`, {
      institutionId: 'sandbox-redirect',
      redirectUrl: 'https://app.merchant.example/banks/done',
    });
    const denied = await atBank(stack, dataOf(created, 201).authorisationUrl, 'deny');
    expect(denied.query.status).toBe('REJECTED');

    const payer = await newUser();
    const pay = () =>
      tenant.client.post(`/v1/users/${payer}/payments`, paymentBodies.single(), {
        headers: { 'idempotency-key': uniqueName('pay') },
      });
    const poller = stack.api.app.get(PaymentStatusPoller);
    const paid = dataOf(await pay(), 201);
    expect((await atBank(stack, paid.authorisationUrl)).query.status).toBe('PENDING');
    await eventually('payment completed', async () => {
      await poller.pollDue();
      const payment = dataOf(await tenant.client.get(`/v1/payments/${paid.id}`));
      return payment.status === 'COMPLETED' ? true : undefined;
    });
    const unpaid = dataOf(await pay(), 201);
    await atBank(stack, unpaid.authorisationUrl, 'deny');
    // A payment whose first send is lost and the next refused is held for a person to check.
    await sandbox.admin('POST', '/faults', { method: 'POST', path: '/payments', drop: true, count: 1 });
    await sandbox.admin('POST', '/faults', { method: 'POST', path: '/payments', status: 409, count: 1 });
    const held = dataOf(await pay(), 201);
    await atBank(stack, held.authorisationUrl);
    await eventually('payment held for review', async () => {
      await poller.pollDue();
      return (await recordedTypes()).includes('payment.held_for_review') ? true : undefined;
    });
    await sandbox.admin('DELETE', '/faults');
    for (const type of ['consent.failed', 'payment.completed', 'payment.failed'] as const)
      await recorded(type);
  });

  it('records an endpoint disabled after failing too long, for the merchant’s other endpoints only', async () => {
    const dead = await new EventReceiver().start();
    await dead.stop();
    const created = await tenant.client.post('/v1/event-endpoints', {
      url: dead.url,
      types: ['endpoint.disabled'],
    });
    const deadId = dataOf<{ endpoint: { id: string } }>(created, 201).endpoint.id;
    await prisma.eventEndpoint.update({
      where: { id: deadId },
      data: { failingSince: new Date(Date.now() - 4 * DAY) },
    });
    expect((await stack.api.app.get(EventsSweeperService).sweepOutbound()).disabled).toBe(1);
    await recorded('endpoint.disabled');
    const [event] = await prisma.merchantEvent.findMany({
      where: { merchantId: merchantId(), type: 'ENDPOINT_DISABLED' },
    });
    expect(event.data).toMatchObject({ endpointId: deadId, url: dead.url });
    await eventually('the other endpoint told', () =>
      receiver.accepted().some((e) => e.id === event.id) ? true : undefined,
    );
    // Not the endpoint itself, though it takes the type: it is the one that cannot hear it.
    expect(await prisma.eventDelivery.count({ where: { endpointId: deadId } })).toBe(0);
  });

  it('sends every event recorded, to the endpoint and down the streams, exactly as its type’s schema says', async () => {
    // Every type of the catalogue came out of the flows above.
    expect((await recordedTypes()).sort()).toEqual([...MERCHANT_EVENT_TYPE_NAMES].sort());
    const checker = new ComponentChecker(document, { closed: true });
    const ids = (
      await prisma.merchantEvent.findMany({ where: { merchantId: merchantId() }, select: { id: true } })
    ).map((e) => e.id);
    /** Its type's schema, in detail; then the union, which must agree. */
    const check = (event: { id: string; type: MerchantEventType }, where: string) => {
      const what = `${where} ${event.type} ${event.id}`;
      const ref = mapping()[event.type];
      if (!ref) return [`${what}: no schema for its type`];
      const typed = checker.problems(ref.split('/').pop()!, event, what);
      if (typed.length > 0) return typed;
      const union = checker.problems(UNION, event, what);
      return union.length > 0 ? [`${what}: its type's schema, but not ${UNION}: ${union.join('; ')}`] : [];
    };

    // Delivered: every request the endpoint received (a retry too), the body as it came.
    await eventually('every event delivered', () => {
      const accepted = new Set(receiver.accepted().map((e) => e.id));
      return ids.every((id) => accepted.has(id)) ? true : undefined;
    });
    const problems = receiver.requests.flatMap((r) => check(JSON.parse(r.body), 'delivered'));

    // Streamed: each user's whole history, replayed from the start (a late sync's events too).
    const streamed = new Set<string>();
    for (const userId of users) {
      const count = await prisma.merchantEvent.count({ where: { merchantId: merchantId(), userId } });
      const stream = await SseClient.open(
        `${stack.api.url}/v1/users/${userId}/events`,
        tenant.merchant.apiKey.key,
        '0',
      );
      try {
        for (const message of await stream.waitFor(count)) {
          const event = JSON.parse(message.data);
          expect(message.event).toBe(event.type);
          problems.push(...check(event, 'streamed'));
          streamed.add(event.id);
        }
      } finally {
        stream.close();
      }
    }
    // Every event about a user (endpoint.disabled is about none, and is on no stream).
    const ofUsers = await prisma.merchantEvent.findMany({
      where: { merchantId: merchantId(), userId: { not: null } },
      select: { id: true },
    });
    expect(ofUsers.map((e) => e.id).filter((id) => !streamed.has(id))).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('serves each type’s event schema at /v1/event-types: every event sent is its type’s, and no other’s', async () => {
    const answer = await tenant.client.get('/v1/event-types');
    expect(answer.status).toBe(200);
    const served =
      dataOf<{ name: string; component: string; subscribable: boolean; schema: object }[]>(answer);
    // The whole catalogue, in its order, each from its own component of the document.
    expect(served.map((t) => t.name)).toEqual(Object.keys(DELIVERED_EVENT_TYPES));
    expect(served.map((t) => `#/components/schemas/${t.component}`)).toEqual(
      served.map((t) => mapping()[t.name]),
    );
    expect(served.filter((t) => !t.subscribable).map((t) => t.name)).toEqual(['endpoint.test']);
    // Self-contained: compiled alone, by a reader that knows nothing of the document.
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, strictTypes: false });
    ajvFormats.default(ajv);
    const validators = new Map<string, ValidateFunction>(served.map((t) => [t.name, ajv.compile(t.schema)]));

    // Every body the endpoint received, and a test event sent to it.
    const sent = await tenant.client.post(`/v1/event-endpoints/${await endpointId()}/test`);
    expect(sent.status).toBe(200);
    const bodies = receiver.requests.map((r) => JSON.parse(r.body) as { id: string; type: string });
    expect(new Set(bodies.map((b) => b.type))).toEqual(new Set(served.map((t) => t.name)));
    const problems: string[] = [];
    for (const body of bodies) {
      for (const [name, validate] of validators) {
        // A copy: the validator is a type guard, and would narrow `body` itself.
        const accepted = validate({ ...body });
        if (name === body.type && !accepted) {
          problems.push(`${body.type} ${body.id}: ${JSON.stringify(validate.errors)}`);
        }
        if (name !== body.type && accepted) problems.push(`${body.type} ${body.id}: accepted by ${name}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('holds a member the schema does not declare, or a number for money, to be a mismatch', () => {
    const checker = new ComponentChecker(document, { closed: true });
    const payment = {
      id: '0193a8f4-5c1e-7a2b-9c3d-4e5f6a7b8c9d',
      type: 'payment.completed',
      createdAt: '2026-11-23T10:15:02.481Z',
      userId: '0193a8f4-5c1e-7a2b-9c3d-4e5f6a7b8c9e',
      userReference: 'customer-42',
      data: {
        paymentId: '0193a8f4-5c1e-7a2b-9c3d-4e5f6a7b8c9f',
        kind: 'SINGLE',
        consentId: '0193a8f4-5c1e-7a2b-9c3d-4e5f6a7b8c90',
        status: 'COMPLETED',
        amount: { amount: '12.34', currency: 'GBP' },
        reference: null,
        upstreamPaymentId: 'pay-1',
        statusReason: null,
      },
    };
    expect(checker.problems(UNION, payment)).toEqual([]);
    expect(checker.problems(UNION, { ...payment, data: { ...payment.data, extra: 1 } })).not.toEqual([]);
    expect(
      checker.problems(UNION, {
        ...payment,
        data: { ...payment.data, amount: { amount: 12.34, currency: 'GBP' } },
      }),
    ).not.toEqual([]);
    expect(checker.problems(UNION, { ...payment, type: 'sync.failed' })).not.toEqual([]);
  });
});
