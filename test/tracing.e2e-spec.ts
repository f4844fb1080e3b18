import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, EventReceiver, eventually, uniqueName } from './kit/index.js';
import { ancestors, type ReceivedSpan, SpanKind } from './kit/otlp-receiver.js';
import { onboardTraced, startTracedStack, type TracedStack, traceIdOf } from './kit/traced-stack.js';

/** Re-based onto `base`: the apps write public URLs naming default ports; they listen on random ones. */
const on = (base: string, url: string) => {
  const u = new URL(url);
  return `${base}${u.pathname}${u.search}`;
};
/** The values of a URL's query parameters that carry a credential (the callback's state and token). */
const secretParams = (url: string) =>
  [...new URL(url).searchParams].filter(([name]) => /state|token|code/i.test(name)).map(([, v]) => v);
const isRedis = (s: ReceivedSpan) => s.attributes['db.system.name'] === 'redis';
const isPostgres = (s: ReceivedSpan) => s.attributes['db.system.name'] === 'postgresql';
const jobSpan = (spans: ReceivedSpan[], job: string) =>
  spans.find((s) => s.kind === SpanKind.CONSUMER && s.attributes['bullmq.job.name'] === job);
const under = (span: ReceivedSpan, ancestor: ReceivedSpan | undefined, all: ReceivedSpan[]) =>
  ancestor !== undefined && ancestors(span, all).some((a) => a.spanId === ancestor.spanId);

/**
 * Tracing through the real stack, each app a process exporting OTLP to a receiver here: a bank connected
 * through the api is one trace from the callback through the first sync's job, its upstream calls and
 * SQL, to the delivery of its events; a consent revoked at the bank is one trace from the upstream's
 * webhook through the fan-out to the merchant's delivery; a tracingId finds its trace; nothing secret or
 * personal is in anything exported.
 */
describe('tracing: one trace per flow, across the api, the worker, the queue and the outbox', () => {
  let stack: TracedStack;
  let endpoint: EventReceiver;
  let merchant: Awaited<ReturnType<typeof onboardTraced>>;
  let db: pg.Client;
  /** Everything secret or personal the flows below handle; none may be exported. */
  const secrets: string[] = [];
  let consentId = '';

  /** The merchant's client. */
  let client: ApiClient;

  beforeAll(async () => {
    stack = await startTracedStack('tracing');
    endpoint = await new EventReceiver().start();
    merchant = await onboardTraced(stack, endpoint.url);
    client = new ApiClient(stack.api.url, merchant.key);
    db = new pg.Client({ connectionString: stack.databaseUrl });
    await db.connect();
    secrets.push(...Object.values(stack.secrets), merchant.key, merchant.reference, merchant.endpointSecret);
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await endpoint?.stop();
    await stack?.close();
  });

  it('a bank connection: callback → sync job → upstream calls and SQL → its events delivered, one trace', async () => {
    const created = await client.post(`/v1/users/${merchant.userId}/consents`, {
      institutionId: 'sandbox-redirect',
      redirectUrl: 'https://merchant.example/done',
    });
    expect(created.status).toBe(201);
    const consent = (created.body as { data: { id: string; authorisationUrl: string } }).data;
    consentId = consent.id;
    const bank = await fetch(on(stack.sandbox.url, consent.authorisationUrl), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'decision=approve',
    });
    expect(bank.status).toBe(302);
    const callbackUrl = on(stack.api.url, bank.headers.get('location')!);
    const credentials = secretParams(callbackUrl);
    expect(credentials.length).toBeGreaterThan(0);
    secrets.push(...credentials);
    const callback = await fetch(callbackUrl, { redirect: 'manual' });
    expect(callback.status).toBe(302);
    // The callback started a trace of its own: its request id (the tracingId) is that trace's id.
    const traceId = callback.headers.get('x-request-id')!;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);

    // The merchant's endpoint received the first sync's event, its request carrying the same trace.
    const delivered = await eventually('the first sync delivered', () =>
      endpoint
        .accepted()
        .find((e) => e.type === 'sync.succeeded' && traceIdOf(e.headers.traceparent) === traceId),
    );
    expect(delivered).toBeDefined();

    const spans = await eventually('the whole trace received, every parent resolvable', () => {
      const trace = stack.receiver.trace(traceId);
      const ids = new Set(trace.map((s) => s.spanId));
      const sync = jobSpan(trace, 'sync.account');
      const delivery = trace.find(
        (s) =>
          s.kind === SpanKind.CLIENT && s.attributes['url.full'] === endpoint.url && under(s, sync, trace),
      );
      const roots = trace.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId));
      return sync && delivery && roots.length === 1 ? trace : undefined;
    });
    const byId = new Map(spans.map((s) => [s.spanId, s]));

    // The root: the api's server span of the callback (made by @fastify/otel), which names its route and
    // carries its request id.
    const [root] = spans.filter((s) => !s.parentSpanId);
    expect(root).toMatchObject({ service: 'api', kind: SpanKind.SERVER, name: 'GET /v1/callbacks/consents' });
    expect(root.scope).toBe('@fastify/otel');
    expect(root.attributes['bff.request_id']).toBe(traceId);

    // The enqueue (a producer span in the api, under the request) is the parent of the worker's job.
    const sync = jobSpan(spans, 'sync.account')!;
    const enqueue = byId.get(sync.parentSpanId!)!;
    expect(enqueue).toMatchObject({ service: 'api', kind: SpanKind.PRODUCER });
    expect(ancestors(enqueue, spans).at(-1)).toBe(root);
    expect(sync.service).toBe('worker');
    expect(sync.attributes['bff.request_id']).toMatch(/^job:sync\.account:/);

    // The job's upstream calls, its SQL and its Redis commands are its descendants.
    const upstream = spans.filter(
      (s) => s.kind === SpanKind.CLIENT && String(s.attributes['url.full']).startsWith(stack.sandbox.url),
    );
    expect(upstream.filter((s) => under(s, sync, spans)).length).toBeGreaterThan(0);
    expect(spans.filter((s) => isPostgres(s) && under(s, sync, spans)).length).toBeGreaterThan(0);
    expect(spans.filter((s) => isRedis(s) && s.service === 'worker').length).toBeGreaterThan(0);
    expect(spans.filter((s) => isPostgres(s) && s.service === 'api').length).toBeGreaterThan(0);
    expect(spans.filter((s) => isRedis(s) && s.service === 'api').length).toBeGreaterThan(0);

    // The outbox: the delivery's job continues the sync job's trace, and POSTs to the merchant's endpoint.
    const post = spans.find((s) => s.attributes['url.full'] === endpoint.url && under(s, sync, spans))!;
    expect(post).toMatchObject({ service: 'worker', kind: SpanKind.CLIENT });
    expect(post.attributes['http.response.status_code']).toBe(200);
    const deliveryJob = byId.get(post.parentSpanId!)!;
    expect(deliveryJob).toMatchObject({ kind: SpanKind.CONSUMER, service: 'worker' });
    expect(deliveryJob.attributes['bullmq.job.name']).toBe('events.deliver');

    // The sandbox (exporting http/protobuf) continued the same trace: its spans name this trace id.
    await eventually('the sandbox’s spans of this trace received', () => sandboxExported(stack, traceId));
    expect(stack.receiver.spans.some((s) => s.service === 'sandbox')).toBe(false);
  }, 120_000);

  it('a consent revoked at the bank: upstream webhook → fan-out job → the merchant’s delivery, one trace', async () => {
    const { rows } = await db.query<{ upstream_consent_id: string }>(
      'SELECT upstream_consent_id FROM consents WHERE id = $1',
      [consentId],
    );
    const revoked = await fetch(
      `${stack.sandbox.url}/sandbox/admin/consents/${rows[0].upstream_consent_id}/revoke`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.secrets.SANDBOX_ADMIN_TOKEN}` },
      },
    );
    expect(revoked.status).toBeLessThan(300);

    const delivered = await eventually('the revocation delivered', () =>
      endpoint.accepted().find((e) => e.type === 'consent.revoked'),
    );
    const traceId = traceIdOf(delivered.headers.traceparent)!;
    // Each process exports on its own schedule, so the worker's spans can arrive before the api's: wait
    // until the only span whose parent is missing is the api's receipt (its parent is the sandbox's).
    const spans = await eventually(
      'the webhook’s whole trace received, every parent but one resolvable',
      () => {
        const trace = stack.receiver.trace(traceId);
        const ids = new Set(trace.map((s) => s.spanId));
        const fanOut = jobSpan(trace, 'events.fan-out');
        const post = trace.find((s) => s.attributes['url.full'] === endpoint.url && under(s, fanOut, trace));
        const roots = trace.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId));
        const receivedOnly =
          roots.length === 1 && roots[0].kind === SpanKind.SERVER && roots[0].service === 'api';
        return post && receivedOnly ? trace : undefined;
      },
    );
    const byId = new Map(spans.map((s) => [s.spanId, s]));

    // The api received the webhook in this trace; the sandbox that sent it began it (its span, in protobuf).
    const received = spans.find(
      (s) => s.kind === SpanKind.SERVER && s.name === 'POST /v1/webhooks/upstream',
    )!;
    expect(received.service).toBe('api');
    const sentBy = received.parentSpanId!;
    expect(byId.has(sentBy)).toBe(false);
    await eventually('the sandbox’s span that sent the webhook received', () =>
      sandboxExported(stack, sentBy),
    );

    // Its fan-out job continues the request that stored the event (enqueued after the answer, with the
    // context kept in the inbox row); it recorded consent.revoked, whose delivery followed.
    const fanOut = jobSpan(spans, 'events.fan-out')!;
    expect(fanOut.service).toBe('worker');
    const storedBy = byId.get(fanOut.parentSpanId!)!;
    expect(storedBy.spanId === received.spanId || under(storedBy, received, spans)).toBe(true);
    expect(spans.some((s) => s.kind === SpanKind.PRODUCER && under(s, received, spans))).toBe(true);
    expect(spans.filter((s) => isPostgres(s) && under(s, fanOut, spans)).length).toBeGreaterThan(0);
    const deliveryJob = spans.find(
      (s) => s.attributes['bullmq.job.name'] === 'events.deliver' && s.kind === SpanKind.CONSUMER,
    )!;
    expect(under(deliveryJob, fanOut, spans)).toBe(true);
    // Every span decoded here has its parent here too, but the api's, whose parent is the sandbox's.
    expect(spans.filter((s) => !s.parentSpanId || !byId.has(s.parentSpanId))).toEqual([received]);
  }, 120_000);

  it('finds the trace of a tracingId quoted from an error envelope, and logs the trace id beside it', async () => {
    const missing = await client.get(`/v1/users/${randomUUID()}`);
    expect(missing.status).toBe(404);
    const { tracingId } = (missing.body as { error: { tracingId: string } }).error;
    // A request that starts a trace is known by the trace's own id.
    const traced = await eventually('the 404’s trace', () => {
      const trace = stack.receiver.trace(tracingId);
      return trace.some((s) => s.kind === SpanKind.SERVER) ? trace : undefined;
    });
    expect(traced.find((s) => s.kind === SpanKind.SERVER)?.attributes['http.response.status_code']).toBe(404);

    // A request id of the caller's own is the tracingId instead, and its span carries it.
    const own = uniqueName('tracing-lookup');
    const named = await client.get(`/v1/users/${randomUUID()}`, { headers: { 'x-request-id': own } });
    expect((named.body as { error: { tracingId: string } }).error.tracingId).toBe(own);
    const span = await eventually('the span naming the request id', () =>
      stack.receiver.spans.find((s) => s.attributes['bff.request_id'] === own),
    );
    const logged = await eventually('the access log line', () =>
      stack.api
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { reqId?: string; traceId?: string; msg?: string })
        .find((line) => line.reqId === own && line.msg === 'request'),
    );
    expect(logged.traceId).toBe(span.traceId);
  });

  it('exports no secret, token or personal data in any span, event or resource', async () => {
    const session = await client.post(`/v1/users/${merchant.userId}/sessions`);
    const token = (session.body as { data: { token: string } }).data.token;
    const accounts = await fetch(`${stack.api.url}/v1/users/${merchant.userId}/accounts`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(accounts.status).toBe(200);
    const { data } = (await accounts.json()) as {
      data: { accountNames: { name?: string }[]; accountIdentifications: { identification?: string }[] }[];
    };
    const personal = data.flatMap((a) => [
      ...a.accountNames.map((n) => n.name),
      ...a.accountIdentifications.map((i) => i.identification),
    ]);
    expect(personal.length).toBeGreaterThan(0);
    await eventually(
      'the session’s request exported',
      () =>
        stack.receiver.spans.some((s) => s.attributes['http.route'] === '/v1/users/:userId/accounts') ||
        undefined,
    );
    // A key pasted into a path no route matches: the span is named by the method alone, its path scrubbed.
    expect((await client.get(`/v1/no-such-route/${merchant.key}`)).status).toBe(404);
    const stray = await eventually('the unmatched request exported', () =>
      stack.receiver.spans.find((s) => String(s.attributes['url.path']).startsWith('/v1/no-such-route/')),
    );
    expect(stray.name).toBe('GET');
    const basic = Buffer.from(
      `00000000-0000-4000-8000-000000000001:${stack.secrets.UPSTREAM_APPLICATION_SECRET}`,
    );

    const exported = stack.receiver.allText();
    for (const secret of [...secrets, token, basic.toString('base64'), ...(personal as string[])]) {
      expect(carries(exported, secret), `exported: ${secret.slice(0, 12)}…`).toBe(false);
    }
    // And nothing shaped like one: credentials, our key prefixes, JWTs (the upstream's consent tokens).
    for (const shape of [
      /(Bearer|Basic) [A-Za-z0-9]/,
      /\b(mk|us|whsec)_[A-Za-z0-9]{6}/,
      /eyJ[\w-]{8,}\.[\w-]{8,}/,
    ]) {
      // On a match, the text around it: which span or attribute carried it is the whole diagnosis.
      const at = shape.exec(exported)?.index;
      const around = at === undefined ? '' : JSON.stringify(exported.slice(Math.max(0, at - 200), at + 80));
      expect(at, `${shape} matched in: ${around}`).toBeUndefined();
    }
  });
});

/**
 * Whether `text` carries `value`. A value of digits alone (a sort code is six) counts only where no digit
 * touches it: the JSON export writes every span's times as nanosecond digits and its ids as hex, which hold
 * any six digits now and then; a leaked one stands between delimiters in either encoding.
 */
function carries(text: string, value: string): boolean {
  if (!/^\d+$/.test(value)) return text.includes(value);
  return new RegExp(`(?<!\\d)${value}(?!\\d)`).test(text);
}

/** Whether the sandbox (exporting http/protobuf, which the receiver keeps undecoded) sent this id's bytes. */
function sandboxExported(stack: TracedStack, hexId: string): true | undefined {
  const id = Buffer.from(hexId, 'hex');
  return stack.receiver.bodies.some((b) => b.contentType === 'application/x-protobuf' && b.body.includes(id))
    ? true
    : undefined;
}
