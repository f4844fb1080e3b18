import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Caller } from './caller.js';

/**
 * What the code running for one HTTP request or one job may need to know without being told: the id
 * that ties its log lines, upstream calls and error envelope together, and (once authentication has run)
 * who it acts for. Set by the HTTP app for each request and by the job processor for each job.
 */
export interface RequestContext {
  /** The request's `x-request-id` (its `meta.tracingId`), or a job's own id. */
  readonly requestId: string;
  /** Set by the access hook; absent on public routes and for jobs. */
  caller?: Caller;
  /**
   * What a job works on, once it knows (a sync names its merchant and institution when it claims its
   * run): every later line of the job names them too, the upstream client's retries included.
   */
  subject?: WorkSubject;
}

export interface WorkSubject {
  readonly merchantId: string;
  readonly institutionId?: string;
  /** The consent, sync run or payment the work is for: the upstream call log files its calls under them. */
  readonly consentId?: string;
  readonly syncRunId?: string;
  readonly paymentId?: string;
}

/**
 * What every job's request id starts with. The api never takes an `x-request-id` so shaped (it makes its
 * own), so an id with it names a job's work and nothing a caller sent.
 */
export const JOB_REQUEST_ID_PREFIX = 'job:';
/** The request id a job's work runs under (its log lines, its upstream calls, the events it records). */
export const jobRequestId = (name: string, id: string | undefined) => `${JOB_REQUEST_ID_PREFIX}${name}:${id}`;

/** Where the running request context is kept: see {@link carryRequestContextIn}. */
export interface RequestContextCarrier {
  /** Runs `fn` (and everything it awaits or schedules) within `context`. */
  run<T>(context: RequestContext, fn: () => T): T;
  /** The context of the code running now, if any. */
  current(): RequestContext | undefined;
}

const storage = new AsyncLocalStorage<RequestContext>();
let carrier: RequestContextCarrier = {
  run: (context, fn) => storage.run(context, fn),
  current: () => storage.getStore(),
};

/**
 * Keeps the request context in another carrier from now on: tracing (libs/observability) keeps it in the
 * OpenTelemetry context, whose own AsyncLocalStorage then carries both. On Node 24 an AsyncLocalStorage
 * costs no promise hooks (it rides in the AsyncContextFrame that every promise and callback keeps anyway),
 * but each storage entered copies the frame once more per request (re-measure: `npm run bench -- --only
 * tracing-overhead`; docs/observability.md#tracing). Called once, before any request or job runs; this
 * module's own storage is then never entered.
 */
export function carryRequestContextIn(next: RequestContextCarrier): void {
  carrier = next;
}

/** Runs `fn` (and everything it awaits or schedules) within `context`. */
export function runInContext<T>(context: RequestContext, fn: () => T): T {
  return carrier.run(context, fn);
}

/** The context of the code running now, if it runs for a request or a job. */
export function currentContext(): RequestContext | undefined {
  return carrier.current();
}

/** The running request's or job's id, if any. */
export function currentRequestId(): string | undefined {
  return carrier.current()?.requestId;
}

/** Names what the running job works on, for its log lines from here on (nothing outside a job or request). */
export function describeWork(subject: WorkSubject): void {
  const context = carrier.current();
  if (context) context.subject = subject;
}

/**
 * Runs `fn` for one subject among several a request or job works on at once (a scan's consents in
 * parallel): in a context of its own, so each one's upstream calls and log lines name it and no other.
 */
export function withWork<T>(subject: WorkSubject, fn: () => T): T {
  const context = carrier.current();
  return carrier.run({ ...context, requestId: context?.requestId ?? randomUUID(), subject }, fn);
}
