import { FastifyOtelInstrumentation } from '@fastify/otel';
import type { Span } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { FastifyRequest } from 'fastify';
import { carryRequestContextIn } from '#libs/context';
import { ScrubbingSpanProcessor } from './scrubbing-span.processor.js';
import { keepRequestTrace, OTEL_REQUEST_CONTEXT, REQUEST_ID_ATTRIBUTE } from './trace-context.js';
import type { Tracing, TracingOptions } from './tracing.types.js';

/** Probes and scrapes: every few seconds, never what an operator looks for in a trace. */
const UNTRACED = /^\/(health|metrics)(\/|\?|$)/;

/**
 * The request's span is named by its route (`GET /v1/users/:userId`) and carries its request id. A request
 * that starts a trace (no `traceparent`) and brought no request id of its own is known by the trace's id
 * instead of the random one Fastify gave it, which nothing has used yet (this hook runs first): the
 * tracingId a merchant quotes is then the trace to open. Its context is kept on the request, for the
 * hooks that run after its body is read (inRequestTrace).
 */
function nameRequestSpan(span: Span, request: FastifyRequest): void {
  // A request no route matched is named by its method alone (as the HTTP conventions say): its path is
  // whatever the caller sent, a token pasted into a URL included.
  const route = request.routeOptions.url;
  span.updateName(route ? `${request.method} ${route}` : request.method);
  if (request.headers.traceparent === undefined && request.headers['x-request-id'] !== request.id) {
    request.id = span.spanContext().traceId;
  }
  span.setAttribute(REQUEST_ID_ATTRIBUTE, String(request.id));
  keepRequestTrace(request, span);
}

/** How long a stop waits for the last spans to reach the receiver. */
const SHUTDOWN_MS = 2_000;

/**
 * The SDK, loaded only when tracing is on (tracing.ts imports this module dynamically). The exporter,
 * its batching, the sampler and resource attributes follow the standard OTEL_* variables, which the SDK
 * reads itself; the choices below are ours.
 */
export function startTracingSdk(protocol: TracingOptions['protocol'], serviceName: string): Tracing {
  // OTEL_SERVICE_NAME (folded into serviceName by the configuration) and OTEL_RESOURCE_ATTRIBUTES win.
  const resource = resourceFromAttributes({ 'service.name': serviceName }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const exporter = protocol === 'http/json' ? new JsonTraceExporter() : new ProtobufTraceExporter();
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new ScrubbingSpanProcessor(new BatchSpanProcessor(exporter))],
  });
  // The AsyncLocalStorage context manager and W3C trace context and baggage, globally.
  provider.register();
  // One AsyncLocalStorage for the trace and the request context, not two (carryRequestContextIn says why).
  carryRequestContextIn(OTEL_REQUEST_CONTEXT);
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // Fastify 5's maintained instrumentation makes each request's server span (the caller's context
      // extracted, the route named): one span per request, as spans per hook and handler would cost more
      // than the hot reads can spare. @opentelemetry/instrumentation-http is not used: binding every
      // request's and response's listeners to the context slowed the hot reads badly, sampled or not
      // (`npm run bench -- --only tracing-overhead`), and its client spans would cover node:http, which we
      // do not call (undici's cover our outgoing calls).
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        instrumentHooks: false,
        instrumentHandler: false,
        ignorePaths: (route) => UNTRACED.test(route.url),
        requestHook: nameRequestSpan,
      }),
      // SQL text only: parameters (enhancedDatabaseReporting) are never recorded. Work outside any
      // request or job (the read cache's listener, the outbox relay's wake-ups) makes no traces.
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
      // The command's name only: arguments hold keys and job data.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
    ],
  });
  return {
    shutdown: async () => {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        provider.shutdown().catch(() => undefined),
        new Promise((resolve) => (timer = setTimeout(resolve, SHUTDOWN_MS))),
      ]);
      clearTimeout(timer);
    },
  };
}
