import { FastifyOtelInstrumentation } from '@fastify/otel';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ScrubbingSpanProcessor } from './scrubbing-span.processor.js';
import { REQUEST_ID_ATTRIBUTE } from './trace-context.js';
import type { Tracing, TracingOptions } from './tracing.js';

/** Probes and scrapes: every few seconds, never what an operator looks for in a trace. */
const UNTRACED = /^\/(health|metrics)(\/|\?|$)/;

/** How long a stop waits for the last spans to reach the receiver. */
const SHUTDOWN_MS = 2_000;

/**
 * The SDK, loaded only when tracing is on (tracing.ts imports this module dynamically). The exporter,
 * its batching, the sampler, the propagators and resource attributes follow the standard OTEL_*
 * variables, which the SDK reads itself; the choices below are ours.
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
  // The AsyncLocalStorage context manager and W3C trace context (OTEL_PROPAGATORS), globally.
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED.test(request.url ?? ''),
      }),
      // Fastify 5's maintained instrumentation: names the route on the request's span. One span per
      // request: a span per hook and handler would cost more than the hot reads can spare.
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        instrumentHooks: false,
        instrumentHandler: false,
        ignorePaths: (route) => UNTRACED.test(route.url),
        requestHook: (span, request) => span.setAttribute(REQUEST_ID_ATTRIBUTE, String(request.id)),
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
