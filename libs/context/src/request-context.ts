import { AsyncLocalStorage } from 'node:async_hooks';
import type { Caller } from './caller.js';

/**
 * What the code running for one HTTP request or one job may need to know without being told: the id
 * that ties its log lines, upstream calls and error envelope together, and (once authentication has run)
 * who it acts for. Set by the HTTP app for each request and by the job processor for each job.
 */
export interface RequestContext {
  /** The request's `x-request-id` (its `meta.tracingId`), or a job's own id. */
  readonly requestId: string;
  /** Set by the authentication guard; absent on public routes and for jobs. */
  caller?: Caller;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` (and everything it awaits or schedules) within `context`. */
export function runInContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

/** The context of the code running now, if it runs for a request or a job. */
export function currentContext(): RequestContext | undefined {
  return storage.getStore();
}

/** The running request's or job's id, if any. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
