// How the apps run outside Docker (`npm start`, the bench): the environment and Node flags the Dockerfile
// and docker-compose.yml give them too (test/app-runtime.spec.ts holds docker-compose.yml to the flags).
// Why: "Memory" in docs/operations.md.

/** glibc gives blocks from 128 KiB up (the api's 200 KB /live pages and answers) back when freed. */
export const APP_ENV = { MALLOC_MMAP_THRESHOLD_: '131072' };

/**
 * Node flags per app, read by V8 only as the process starts. The worker and the sandbox keep V8's young
 * generation at 2 × 16 MiB (V8 grows it to 2 × 32 MiB): the worker's peak RSS in the sync bench falls by
 * 80 MiB, its CPU unchanged. The api keeps the default: its requests per second are its targets. No memory
 * reducer: after start and after each burst it spent 15 to 20 ms of CPU a second for 20 to 40 s giving
 * pages back in small steps; the apps give them back in one collection instead (trimHeapWhenIdle in
 * libs/core). Every app under apps/ is named here (test/app-runtime.spec.ts).
 */
export const APP_NODE_FLAGS = {
  api: ['--no-memory-reducer'],
  worker: ['--max-semi-space-size=16', '--no-memory-reducer'],
  sandbox: ['--max-semi-space-size=16', '--no-memory-reducer'],
  'demo-merchant': [],
};
