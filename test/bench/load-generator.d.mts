// Types of load-generator.mjs for the TypeScript tests: the parts they call.

/** A warm-up phase (not recorded), then a measured phase: counts, errors and latencies. */
export function runLoad(job: object): Promise<unknown>;
