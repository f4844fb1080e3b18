import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, describe, expect, it } from 'vitest';
import { captureLogger } from '#libs/testing';
import { ScrubbingSpanProcessor, withoutQueryValues } from './scrubbing-span.processor.js';
import { currentTraceContext, currentTraceId, tagRequestSpan } from './trace-context.js';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({
  spanProcessors: [new ScrubbingSpanProcessor(new SimpleSpanProcessor(exporter))],
});
// The AsyncLocalStorage context manager, as the apps have it: the logger and the helpers read it.
provider.register();
const tracer = provider.getTracer('spec');
afterAll(() => provider.shutdown());

const SECRETS = {
  state: 'st4te-value-0123456789',
  oneTimeToken: 'ott-0123456789abcdef',
  apiKey: 'mk_AbCdEf0123456789abcdefXYZ',
  jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJl',
  reference: 'customer-42',
};

function exported(name: string) {
  const span = exporter.getFinishedSpans().find((s) => s.name === name);
  if (!span) throw new Error(`no span ${name}`);
  return span;
}

describe('spans are scrubbed before they are exported', () => {
  it('keeps query parameter names and drops their values, in every URL-holding attribute', () => {
    const span = tracer.startSpan('GET /v1/callbacks/consents', { kind: SpanKind.SERVER });
    span.setAttributes({
      'url.full': `https://bff/v1/callbacks/consents?state=${SECRETS.state}&one-time-token=${SECRETS.oneTimeToken}`,
      'url.path': `/v1/users?filter[applicationUserId]=${SECRETS.reference}`,
      'url.query': `state=${SECRETS.state}&limit=5`,
      'http.target': `/bank?token=${SECRETS.oneTimeToken}`,
      'http.route': '/v1/callbacks/consents',
    });
    span.end();
    expect(exported('GET /v1/callbacks/consents').attributes).toEqual({
      'url.full': 'https://bff/v1/callbacks/consents?state=[REDACTED]&one-time-token=[REDACTED]',
      'url.path': '/v1/users?filter[applicationUserId]=[REDACTED]',
      'url.query': 'state=[REDACTED]&limit=[REDACTED]',
      'http.target': '/bank?token=[REDACTED]',
      'http.route': '/v1/callbacks/consents',
    });
  });

  it("drops the caller's address on a server span, keeps the upstream's on a client span", () => {
    const attributes = {
      'client.address': '203.0.113.9',
      'network.peer.address': '203.0.113.9',
      'server.port': 3000,
    };
    tracer.startSpan('served', { kind: SpanKind.SERVER, attributes }).end();
    tracer.startSpan('called', { kind: SpanKind.CLIENT, attributes }).end();
    expect(exported('served').attributes).toEqual({ 'server.port': 3000 });
    expect(exported('called').attributes).toEqual(attributes);
  });

  it('redacts secret-named attributes and secret-shaped text in values, events and the status', () => {
    const span = tracer.startSpan('failing');
    span.setAttributes({
      'http.request.header.authorization': `Bearer ${SECRETS.apiKey}`,
      'db.query.text': 'SELECT 1',
      'bullmq.job.failed.reason': `upstream refused ${SECRETS.jwt}`,
      'bullmq.job.bulk.names': ['events.deliver', `key ${SECRETS.apiKey}`],
    });
    span.recordException(new Error(`bad key ${SECRETS.apiKey} for consent ${SECRETS.jwt}`));
    span.setStatus({ code: SpanStatusCode.ERROR, message: `Bearer ${SECRETS.apiKey}` });
    span.end();
    const ended = exported('failing');
    expect(ended.attributes['http.request.header.authorization']).toBe('[REDACTED]');
    expect(ended.attributes['db.query.text']).toBe('SELECT 1');
    const text = JSON.stringify({ a: ended.attributes, e: ended.events, s: ended.status });
    for (const secret of [SECRETS.apiKey, SECRETS.jwt]) expect(text).not.toContain(secret);
    expect(ended.events[0].attributes?.['exception.message']).toContain('[REDACTED]');
  });

  it('scrubs the span name too: a name is text, whoever made it', () => {
    tracer.startSpan(`GET /v1/users/${SECRETS.apiKey} ${SECRETS.jwt}`).end();
    const [span] = exporter.getFinishedSpans().filter((s) => s.name.startsWith('GET /v1/users/'));
    expect(span.name).toBe('GET /v1/users/mk_[REDACTED] [REDACTED]');
  });

  it('withoutQueryValues leaves a URL without a query as it is', () => {
    expect(withoutQueryValues('/v1/accounts/a1/transactions')).toBe('/v1/accounts/a1/transactions');
    expect(withoutQueryValues('/p?flag&x=1#frag')).toBe('/p?flag&x=[REDACTED]#frag');
  });
});

describe('the running trace, for logs, ids and what is carried to later work', () => {
  it('names the trace in log lines, tags the request span and carries its context as a W3C carrier', () => {
    const { logger, lines } = captureLogger('api', 'info');
    expect(currentTraceContext()).toBeNull();
    tracer.startActiveSpan('request', (span) => {
      tagRequestSpan('req-7');
      logger.info('inside');
      const carried = JSON.parse(currentTraceContext()!) as { traceparent: string };
      expect(carried.traceparent).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
      expect(currentTraceId()).toBe(span.spanContext().traceId);
      span.end();
    });
    logger.info('outside');
    const [inside, outside] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const request = exported('request');
    expect(inside).toMatchObject({
      traceId: request.spanContext().traceId,
      spanId: request.spanContext().spanId,
    });
    expect(outside.traceId).toBeUndefined();
    expect(request.attributes['bff.request_id']).toBe('req-7');
  });
});
