import { randomBytes } from 'node:crypto';
import { type Context, context, trace, TraceFlags } from '@opentelemetry/api';
import type { Telemetry } from 'bullmq';
import { BullMQOtel, BullMQOTelSpan } from 'bullmq-otel';
import type { AppConfig } from '#libs/config';

/** BullMQ's own loops: a worker's wait for a job, the stalled-job checks. */
const HOUSEKEEPING = /^(getNextJob|moveStalledJobsToWait|startStalledCheckTimer|rateLimit) /;

/**
 * BullMQ's telemetry (bullmq-otel) when tracing is on: an enqueue is a producer span, and the job's
 * options carry its context, so the worker's `process` span continues the trace that enqueued it. BullMQ
 * also traces its own loops; those outside any trace (a worker waiting and finding nothing, every few
 * seconds per queue) would each be a trace of their own, so they start an unsampled one instead: nothing
 * recorded, nor the Redis calls made under them (sampling follows the parent).
 */
export function queueTelemetry(config: AppConfig): Telemetry | undefined {
  if (!config.tracing) return undefined;
  const otel = new BullMQOtel({ tracerName: 'bullmq' });
  return {
    contextManager: otel.contextManager,
    tracer: {
      startSpan(name, options, parent?: Context) {
        if (HOUSEKEEPING.test(name) && !trace.getSpanContext(parent ?? context.active())) return unsampled();
        return otel.tracer.startSpan(name, options, parent);
      },
    },
  };
}

function unsampled(): BullMQOTelSpan {
  return new BullMQOTelSpan(
    trace.wrapSpanContext({
      traceId: randomBytes(16).toString('hex'),
      spanId: randomBytes(8).toString('hex'),
      traceFlags: TraceFlags.NONE,
    }),
  );
}
