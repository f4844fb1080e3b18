/**
 * How long a claimed payment is left to the one who claimed it (the callback, the VRP route, a poll
 * round) before another may take it over: longer than one upstream call can take with its retries. It is
 * also the bound on how late a payment is looked at again when its claimer died mid-way (a SIGKILL, or
 * Postgres gone before the claim was handed back). Its own module, with no imports, so the chaos soak
 * (plain JavaScript, test/soak) waits by this same number.
 */
export const CLAIM_LEASE_SECONDS = 300;
