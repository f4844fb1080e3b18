// How the apps run outside Docker (`npm start`, the bench): the environment and Node flags the Dockerfile
// and docker-compose.yml give them too (test/app-runtime.spec.ts holds docker-compose.yml to the flags).
// Why: "Memory" in docs/operations.md.

/** glibc gives blocks from 128 KiB up (the api's 200 KB /live pages and answers) back when freed. */
export const APP_ENV = { MALLOC_MMAP_THRESHOLD_: '131072' };

/**
 * Node flags per app, read by V8 only as the process starts. V8 grows the young generation to 2 × 64 MiB;
 * the worker keeps it at 2 × 32 MiB and the sandbox at 2 × 16. A first sync's pages live across a few
 * awaits: at 16 MiB they outlived the collections of the young and were promoted, and the worker spent a
 * third more CPU per row (2.7–3.1 s per 100,000 rows against 1.9–2.4 at 32, eight runs each) for about
 * 30 MiB less peak RSS. The api keeps V8's largest (its requests per second are its targets) and starts
 * at 2 × 16 MiB, not 2 × 1: a trim (trimHeapWhenIdle) shrinks the young generation to its least, and V8
 * grows it back only slowly, so the reads after one ran 70 scavenges every 6,000 requests instead of 2.
 * From 16 the api read ~9% less CPU per request after a trim (accounts page at 1,500 req/s, two pairs of
 * api processes in one run: 143/144 vs 159/156 µs) at the same RSS once trimmed (178-181 MiB vs
 * 183-186). No memory reducer: after start and after each burst it spent 15 to 20 ms of CPU a second
 * for 20 to 40 s giving pages back in small steps; the apps give them back in one collection instead
 * (trimHeapWhenIdle in libs/core). Every app under apps/ is named here (test/app-runtime.spec.ts).
 */
export const APP_NODE_FLAGS = {
  api: ['--min-semi-space-size=16', '--no-memory-reducer'],
  worker: ['--max-semi-space-size=32', '--no-memory-reducer'],
  sandbox: ['--max-semi-space-size=16', '--no-memory-reducer'],
  'demo-merchant': [],
};
