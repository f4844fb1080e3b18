import { UpstreamError } from './upstream.error.js';

/**
 * One attempt of one call, as the upstream call log keeps it: what support needs when a bank fails, never
 * a body, a header or a credential.
 */
export interface UpstreamAttempt extends AttemptStart, AttemptOutcome {
  durationMs: number;
}

/** What an attempt is, known before it is sent. */
export interface AttemptStart {
  operation: string;
  institutionId: string | undefined;
  /** 1, then each retry. */
  attempt: number;
  startedAt: Date;
}

/** What an attempt came to. */
export interface AttemptOutcome {
  /** The HTTP status answered; undefined when none was (a timeout, a refused connection). */
  status: number | undefined;
  /** The client's error kind; undefined for a success. */
  errorKind: string | undefined;
  tracingId: string | undefined;
}

/** Told how an attempt ended; the call returns once it resolves. */
export type AttemptEnd = (attempt: UpstreamAttempt) => Promise<void> | void;

/**
 * Told of every attempt before it is sent, and answers what to tell of its end. The attempt waits for
 * both, so a log can make its entry durable before the bank can see the request: a process killed
 * mid-call then leaves the entry, not a request nobody knows of. It must never reject.
 */
export type AttemptObserver = (attempt: AttemptStart) => Promise<AttemptEnd> | AttemptEnd;

/** What a failed attempt came to. */
export function failedAttempt(error: unknown): AttemptOutcome {
  return error instanceof UpstreamError
    ? { status: error.status, errorKind: error.kind, tracingId: error.tracingId }
    : { status: undefined, errorKind: 'ERROR', tracingId: undefined };
}

/** Tells `observer`, if any, of an attempt starting now; answers what tells it how the attempt ended. */
export async function watchAttempt(
  observer: AttemptObserver | undefined,
  operation: string,
  institutionId: string | undefined,
  attempt: number,
): Promise<(outcome: AttemptOutcome) => Promise<void>> {
  if (!observer) return () => Promise.resolve();
  const start = { operation, institutionId, attempt, startedAt: new Date() };
  const end = await observer(start);
  // Timed from here: the wait for the log is not the upstream's.
  const began = performance.now();
  return async (outcome) => {
    await end({ ...start, durationMs: Math.round(performance.now() - began), ...outcome });
  };
}
