// The scenarios of `npm run bench`, in the order they run: run.mjs maps each to its function, and
// test/bench-smoke.e2e-spec.ts holds a smoke run (`--smoke`) to have run every one of them.
export const SCENARIOS = [
  'sandbox-page',
  'upstream-client',
  'sandbox-rotation',
  'api-reads',
  'sync',
  'events',
  'consent-expiry',
  'transaction-changes',
  'reconcile',
  'tracing-overhead',
  'isolation',
  'lanes',
];
