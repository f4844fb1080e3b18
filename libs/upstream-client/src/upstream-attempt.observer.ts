import { UpstreamError } from './upstream.error.js';

/**
 * One attempt of one call, as the upstream call log keeps it: what support needs when a bank fails, never
 * a body, a header or a credential.
 */
export interface UpstreamAttempt {
  operation: string;
  institutionId: string | undefined;
  /** 1, then each retry. */
  attempt: number;
  startedAt: Date;
  durationMs: number;
  /** The HTTP status answered; undefined when none was (a timeout, a refused connection). */
  status: number | undefined;
  /** The client's error kind; undefined for a success. */
  errorKind: string | undefined;
  tracingId: string | undefined;
}

/** Told of every attempt as it ends, synchronously: it must neither block nor throw. */
export type AttemptObserver = (attempt: UpstreamAttempt) => void;

/** What a failed attempt came to. */
export function failedAttempt(error: unknown): Pick<UpstreamAttempt, 'status' | 'errorKind' | 'tracingId'> {
  return error instanceof UpstreamError
    ? { status: error.status, errorKind: error.kind, tracingId: error.tracingId }
    : { status: undefined, errorKind: 'ERROR', tracingId: undefined };
}

/** What tells `observer`, if any, how an attempt starting now ended. */
export function watchAttempt(
  observer: AttemptObserver | undefined,
  operation: string,
  institutionId: string | undefined,
  attempt: number,
): (outcome: Pick<UpstreamAttempt, 'status' | 'errorKind' | 'tracingId'>) => void {
  if (!observer) return () => undefined;
  const startedAt = new Date();
  const began = performance.now();
  return (outcome) =>
    observer({
      operation,
      institutionId,
      attempt,
      startedAt,
      durationMs: Math.round(performance.now() - began),
      ...outcome,
    });
}
