/** The upstream asked us to slow down: the job waits `retryInMs` without spending an attempt. */
export class SyncRateLimitedError extends Error {
  constructor(readonly retryInMs: number) {
    super(`rate limited upstream; retrying in ${retryInMs} ms`);
  }
}

/** The run ended as failed and retrying cannot help (consent gone, a record we cannot store, …). */
export class SyncStoppedError extends Error {}
