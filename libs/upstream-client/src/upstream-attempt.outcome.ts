// How an upstream attempt ends: a 2xx body read as its result, a failure as the UpstreamError it throws,
// a DELETE's retry that finds its work done, and what earlier attempts leave on a later one's error. What
// a call sends is upstream-request.ts; the one loop that uses both is upstream.transport.ts.
import { UpstreamError } from './upstream.error.js';
import type { UpstreamLinks, UpstreamMeta, UpstreamResult } from './upstream.types.js';
import { BodyTooLarge } from './upstream-body.reader.js';
import type { RequestSpec } from './upstream-request.js';
import { mayHaveLanded, QUEUE_TIMEOUT } from './upstream-resilience.policy.js';

export interface BodyLimits {
  /** Largest 2xx body read (a 1000-transaction page is about 1 MB). */
  successBytes: number;
  /** Largest error body read: errors are small, and a huge one should not cost memory. */
  errorBytes: number;
}

export const DEFAULT_BODY_LIMITS: BodyLimits = { successBytes: 32 * 1024 * 1024, errorBytes: 64 * 1024 };

export function timeoutError(
  spec: RequestSpec,
  requestId: string,
  what: string,
  cause?: unknown,
): UpstreamError {
  return new UpstreamError(`${spec.operation}: ${what}`, {
    kind: 'UNAVAILABLE',
    shape: 'timeout',
    retryable: true,
    requestId,
    operation: spec.operation,
    cause,
  });
}

function protocolError(spec: RequestSpec, status: number, requestId: string, what: string): UpstreamError {
  return new UpstreamError(`${spec.operation}: ${what}`, {
    kind: 'PROTOCOL',
    shape: 'unrecognised',
    retryable: false,
    status,
    requestId,
    operation: spec.operation,
  });
}

/** A 2xx body as the result: the envelope's `data` and `meta`, or the bare resource of a bare route. */
export function unwrapAnswer<T>(
  spec: RequestSpec,
  status: number,
  text: string,
  requestId: string,
): UpstreamResult<T> {
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    throw protocolError(spec, status, requestId, `answered ${status} with a body that is not JSON`);
  }
  if (spec.envelope === 'bare')
    return { data: parsed as T, tracingId: undefined, requestId, status, meta: {} };
  if (typeof parsed !== 'object' || parsed === null || !('data' in parsed)) {
    throw protocolError(spec, status, requestId, `answered ${status} without the data envelope`);
  }
  const envelope = parsed as { data: T; meta?: UpstreamMeta; metadata?: UpstreamMeta; links?: UpstreamLinks };
  const meta = envelope.meta ?? envelope.metadata ?? {};
  return {
    data: envelope.data,
    tracingId: typeof meta.tracingId === 'string' ? meta.tracingId : undefined,
    requestId,
    status,
    meta,
    ...(envelope.links ? { links: envelope.links } : {}),
  };
}

/** How an attempt ended, when it did not end with an answer: which timer fired, if one did. */
export type Expiry = 'queued' | 'sent' | undefined;

/** What a failed attempt throws: an UpstreamError, or the caller's own abort reason. */
export function attemptError(
  spec: RequestSpec,
  error: unknown,
  requestId: string,
  timeoutMs: number,
  expired: Expiry,
  caller: AbortSignal | undefined,
): unknown {
  if (error instanceof UpstreamError) return error;
  if (caller?.aborted) return caller.reason;
  if (error instanceof BodyTooLarge) {
    return new UpstreamError(`${spec.operation}: the answer is larger than the client accepts`, {
      kind: 'PROTOCOL',
      shape: 'unrecognised',
      retryable: false,
      requestId,
      operation: spec.operation,
    });
  }
  if (expired === 'queued') {
    return timeoutError(
      spec,
      requestId,
      `no connection to send on within ${Math.round(timeoutMs)} ms (local load)`,
      Object.assign(new Error('queued too long'), { code: QUEUE_TIMEOUT }),
    );
  }
  if (expired === 'sent') {
    return timeoutError(spec, requestId, `no complete answer within ${Math.round(timeoutMs)} ms`);
  }
  const code = (error as { code?: unknown }).code;
  return new UpstreamError(
    `${spec.operation}: network error${typeof code === 'string' ? ` (${code})` : ''}: ${(error as Error).message}`,
    {
      kind: 'UNAVAILABLE',
      shape: 'network',
      retryable: true,
      requestId,
      operation: spec.operation,
      cause: error,
    },
  );
}

/** A DELETE's retry that finds the resource gone: an earlier attempt deleted it and only its answer was lost. */
export function goneOnRetry<T>(
  spec: RequestSpec,
  error: unknown,
  attempt: number,
  requestId: string,
): UpstreamResult<T> | undefined {
  if (!(error instanceof UpstreamError) || attempt === 1 || spec.method !== 'DELETE') return undefined;
  if (error.status !== 404 || spec.goneOnRetry === undefined) return undefined;
  return { data: spec.goneOnRetry as T, tracingId: error.tracingId, requestId, status: 404, meta: {} };
}

/**
 * What a call's earlier attempts leave on a later attempt's error: how many may have reached the
 * upstream (an unsafe retry must say so), and the last tracing id the upstream gave.
 */
export class AttemptHistory {
  private inDoubt = 0;
  private unanswered = 0;
  private earlierTracingId: string | undefined;

  note(error: unknown): void {
    if (error instanceof UpstreamError) {
      error.attemptsInDoubt = this.inDoubt;
      error.attemptsUnanswered = this.unanswered;
      error.earlierTracingId = this.earlierTracingId;
      this.earlierTracingId = error.tracingId ?? this.earlierTracingId;
    }
    if (mayHaveLanded(error)) {
      this.inDoubt += 1;
      if (!(error instanceof UpstreamError) || error.status === undefined) this.unanswered += 1;
    }
  }
}
