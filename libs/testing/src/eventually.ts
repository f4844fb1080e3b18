/**
 * How long a test waits for something, by what it waits for, in one place. Sized for a loaded machine
 * (two busy loops beside the suite on two cores doubles many a step's time); a limit is a guard against
 * a hang, not a speed check, except a `bound`, which is a documented promise of the product.
 */
export const WAIT = {
  /** Work the apps do on their own: a sync, a delivery, a poll round, a job taken over. */
  work: 60_000,
  /** One step the apps take at once: a job run, a process ready, an api answering again after an outage. */
  step: 30_000,
  /** Work picked up again after a process was killed: a lock or lease expires first. */
  recovery: 150_000,
  /** One step of a page in Chromium (a click answered, a list drawn). */
  page: 30_000,
  /** A first sync of several accounts seen through a page: the bank, the worker and the page's polling. */
  pageSync: 90_000,
  /** A bound: a revoked credential is refused on every api process within 5 s (over Redis pub/sub). */
  revocation: 5_000,
  /** A bound (docs/api-guide.md, "Events"): a stream ends within seconds of losing access or its process. */
  streamEnd: 5_000,
} as const;

/**
 * The one way a test waits: runs `check` until it answers something other than undefined, and returns
 * that. A check that throws (an `expect` not holding yet) is run again; an assertion-only check ends with
 * `return true`. After `within` ms it fails naming `what` it waited for and the check's last error (an
 * assertion's expected and received values), kept as the error's cause.
 */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  within: number = WAIT.work,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + within;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
      last = undefined;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      const why = last instanceof Error ? `last error: ${last.message}` : 'the check last answered undefined';
      throw new Error(`${what}: not within ${within} ms (${why})`, { cause: last });
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
