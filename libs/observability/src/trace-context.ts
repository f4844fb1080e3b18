import {
  type Context,
  context,
  createContextKey,
  isSpanContextValid,
  propagation,
  type Span,
  trace,
} from '@opentelemetry/api';
import { type RequestContext, type RequestContextCarrier } from '#libs/context';

/**
 * The running trace, read and carried through the OpenTelemetry API alone. With tracing off (no SDK
 * started) the API is a no-op: every function here answers null or does nothing, at the cost of a
 * context lookup.
 */

/** The attribute naming the request's or job's id (our tracingId) on the span that runs it. */
export const REQUEST_ID_ATTRIBUTE = 'bff.request_id';

/** The running span's trace id (32 hex digits), when something is traced now. */
export function currentTraceId(): string | null {
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext && isSpanContextValid(spanContext) ? spanContext.traceId : null;
}

/** `traceId` and `spanId` for a log line written while a span runs; nothing otherwise. */
export function traceFields(): { traceId: string; spanId: string } | undefined {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (!spanContext || !isSpanContextValid(spanContext)) return undefined;
  return { traceId: spanContext.traceId, spanId: spanContext.spanId };
}

/** Names the running span with the request's or job's id, so a quoted tracingId finds its trace. */
export function tagRequestSpan(requestId: string): void {
  trace.getActiveSpan()?.setAttribute(REQUEST_ID_ATTRIBUTE, requestId);
}

/**
 * The running trace context as the JSON of its W3C carrier (`{"traceparent":"00-…"}`): what is stored with
 * work that runs later elsewhere (an outbox event, an inbox row), and the form BullMQ's telemetry carries in
 * a job's options, so a job enqueued from it continues the same trace. Null when nothing is traced.
 */
export function currentTraceContext(): string | null {
  if (!trace.getActiveSpan()) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? JSON.stringify(carrier) : null;
}

/** Where an HTTP request keeps its trace's context (set as its span starts; see tracing-sdk.ts). */
export const REQUEST_TRACE = Symbol('bff.request-trace');

/** Keeps `span`'s context on the request, for {@link inRequestTrace}. */
export function keepRequestTrace(request: object, span: Span): void {
  (request as { [REQUEST_TRACE]?: Context })[REQUEST_TRACE] = trace.setSpan(context.active(), span);
}

/**
 * Runs `fn` in the trace of an HTTP request: a request's body is read from the socket's callbacks,
 * outside the context its first hook entered, so the hooks after it enter it again here. A request whose
 * context survived (no body) and an untraced one run `fn` as is. The trace is entered as it was kept, without
 * a request context: enter this first, then the request context.
 */
export function inRequestTrace(request: object, fn: () => void): void {
  const traced = (request as { [REQUEST_TRACE]?: Context })[REQUEST_TRACE];
  if (traced === undefined || trace.getSpan(context.active()) === trace.getSpan(traced)) fn();
  else context.with(traced, fn);
}

const REQUEST_CONTEXT = createContextKey('bff.request-context');

/**
 * The request context kept in the OpenTelemetry context, beside the running span (see
 * carryRequestContextIn): what the tracing SDK installs as it starts. Entering a request context keeps the
 * trace that runs; a trace entered later without it (inRequestTrace) must be entered first.
 */
export const OTEL_REQUEST_CONTEXT: RequestContextCarrier = {
  run: (requestContext, fn) => context.with(context.active().setValue(REQUEST_CONTEXT, requestContext), fn),
  current: () => context.active().getValue(REQUEST_CONTEXT) as RequestContext | undefined,
};
