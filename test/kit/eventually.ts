/**
 * The one way a test waits: polls `probe` until it answers something other than undefined, and fails
 * after `ms` naming `what` it waited for and the probe's last error. The default deadline is sized for a
 * loaded machine (two busy loops beside the suite on two cores); a wait that checks a documented bound
 * passes that bound instead. A probe that throws (an assertion not holding yet) is polled again.
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  ms = 60_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`${what}: not within ${ms} ms${last instanceof Error ? ` (${last.message})` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Waits until `assertion` stops throwing (an `expect` that holds): `eventually` for assertions. */
export function untilPasses(what: string, assertion: () => unknown, ms?: number): Promise<true> {
  return eventually(
    what,
    async () => {
      await assertion();
      return true as const;
    },
    ms,
  );
}
